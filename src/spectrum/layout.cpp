#include "spectrum/layout.h"

#include "io/named_values.h"

namespace ropecheck {

std::string layout_name(Layout layout) { return name_in(kLayouts, layout); }

Layout parse_layout(const std::string& name, const std::string& input) { return parse_name_in(kLayouts, name, input); }

}  // namespace ropecheck
