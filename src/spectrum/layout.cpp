#include "spectrum/layout.h"

#include "io/input_error.h"

namespace ropecheck {

std::string layout_name(Layout layout) { return layout == Layout::interleaved ? "interleaved" : "half"; }

Layout parse_layout(const std::string& name, const std::string& input) {
  if (name == "interleaved") return Layout::interleaved;
  if (name == "half") return Layout::half;
  throw InputError(input, "interleaved or half", name);
}

}  // namespace ropecheck
