#include "spectrum/scaling.h"

#include "io/input_error.h"
#include "numeric/scalar.h"

namespace ropecheck {

std::string Scaling::describe() const {
  switch (kind) {
    case Kind::none: return "none";
    case Kind::linear: return "linear " + factor;
    case Kind::llama3:
      return "llama3 (factor " + factor + ", low " + low_freq_factor + ", high " + high_freq_factor +
             ", original context " + std::to_string(original_context) + ")";
  }
  return "none";
}

Scaling parse_scaling(const std::string& text) {
  const std::string accepted = "none, linear:F (F a decimal > 0) or llama3";
  if (text == "none") return {};
  if (text == "llama3") return Scaling::llama3_1();
  if (text.rfind("linear:", 0) == 0) {
    const std::string f = text.substr(7);
    double v = 0;
    try {
      v = from_decimal<double>(f);
    } catch (const std::invalid_argument&) {
      throw InputError("scaling", accepted, text);
    }
    if (!(v > 0)) throw InputError("scaling", accepted, text);
    return Scaling::linear(f);
  }
  throw InputError("scaling", accepted, text);
}

}  // namespace ropecheck
