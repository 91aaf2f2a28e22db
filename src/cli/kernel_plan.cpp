#include "cli/kernel_plan.h"

namespace ropecheck::cli {

kernel::RopePlan kernel_plan(const ResolvedSpectrum& rs, const std::string& layout, std::optional<kernel::Layout> fallback) {
  std::optional<kernel::Layout> l;
  if (!layout.empty()) l = kernel::parse_layout(layout, "--layout");
  else if (!rs.layer) l = fallback;
  return kernel::plan_for(rs, l, "--layout");
}

}  // namespace ropecheck::cli
