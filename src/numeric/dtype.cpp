#include "numeric/dtype.h"

#include <stdexcept>

#include "io/input_error.h"

namespace ropecheck {

std::string dtype_name(Dtype t) {
  switch (t) {
    case Dtype::f64: return "f64";
    case Dtype::f32: return "f32";
    case Dtype::bf16: return "bf16";
  }
  return "?";
}

std::optional<Dtype> dtype_named(const std::string& name) {
  for (Dtype t : kAllDtypes)
    if (name == dtype_name(t)) return t;
  return std::nullopt;
}

Dtype parse_dtype(const std::string& name, const std::string& input, std::span<const Dtype> accepted) {
  const std::optional<Dtype> t = dtype_named(name);
  for (Dtype a : accepted)
    if (t == a) return a;
  std::string names;
  for (size_t i = 0; i < accepted.size(); ++i)
    names += (i == 0 ? "" : i + 1 == accepted.size() ? " or " : ", ") + dtype_name(accepted[i]);
  throw InputError(input, names, name);
}

std::vector<Dtype> parse_kernel_dtypes(const std::string& name, const std::string& input) {
  if (name == "both") return {Dtype::f32, Dtype::bf16};
  const std::optional<Dtype> t = dtype_named(name);
  if (t && *t != Dtype::f64) return {*t};
  throw InputError(input, "f32, bf16 or both", name);
}

void require_kernel_dtype(Dtype t, const char* who) {
  if (t == Dtype::f64) throw std::invalid_argument(std::string(who) + ": f64 is not a kernel dtype (f32 or bf16)");
}

}  // namespace ropecheck
