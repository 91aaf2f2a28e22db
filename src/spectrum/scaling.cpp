#include "spectrum/scaling.h"

#include "io/input_error.h"
#include "spectrum/detail/scaling_checks.h"
#include "spectrum/scaling_registry.h"

namespace ropecheck {

std::string scaling_kind_name(Scaling::Kind kind) { return std::string(scaling_rule(kind).name); }

std::string Scaling::describe() const { return scaling_rule(kind).describe(*this); }

Scaling parse_scaling(const std::string& text) {
  const std::string accepted = "none, linear:F (F a decimal in (0, 2^40]), llama3 or llama3:F:LOW:HIGH:C";
  if (text == "none") return {};
  if (text == "llama3") return Scaling::llama3_1();
  if (text.rfind("linear:", 0) == 0) {
    const std::string f = text.substr(7);
    if (!scaling_checks::factor_decimal(f)) throw InputError("scaling", accepted, text);
    return Scaling::linear(f);
  }
  if (text.rfind("llama3:", 0) == 0) {
    std::vector<std::string> parts;
    size_t start = 7;
    for (size_t colon; (colon = text.find(':', start)) != std::string::npos; start = colon + 1)
      parts.push_back(text.substr(start, colon - start));
    parts.push_back(text.substr(start));
    if (parts.size() != 4) throw InputError("scaling", accepted, text);
    long long context = 0;
    try {
      size_t used = 0;
      context = std::stoll(parts[3], &used);
      if (used != parts[3].size()) context = 0;
    } catch (const std::exception&) {
      context = 0;
    }
    Scaling s = Scaling::llama3(parts[0], parts[1], parts[2], context);
    try {
      check_scaling(s, 1);
    } catch (const InputError&) {
      throw InputError("scaling", accepted + " (decimals F > 0, 0 < LOW <= HIGH, integer C >= 1)", text);
    }
    return s;
  }
  throw InputError("scaling", accepted, text);
}

void check_scaling(const Scaling& s, int pairs) { scaling_rule(s.kind).check(s, pairs); }

}  // namespace ropecheck
