#include "numeric/dtype.h"

#include <stdexcept>

#include "io/input_error.h"

namespace ropecheck {

namespace {

const DtypeInfo& info(Dtype t) {
  for (const DtypeInfo& i : kDtypes)
    if (i.value == t) return i;
  throw std::invalid_argument("dtype: not in kDtypes");
}

template <typename Name>
Dtype parse(const std::string& name, const std::string& input, std::span<const Dtype> accepted, Name name_of) {
  std::vector<std::string> names;
  for (Dtype a : accepted) {
    if (name == name_of(a)) return a;
    names.push_back(name_of(a));
  }
  throw InputError(input, or_list(names), name);
}

}  // namespace

std::string dtype_name(Dtype t) { return std::string(info(t).name); }

std::string dtype_long_name(Dtype t) { return std::string(info(t).long_name); }

std::optional<Dtype> dtype_named(const std::string& name) {
  for (const DtypeInfo& i : kDtypes)
    if (name == i.name) return i.value;
  return std::nullopt;
}

Dtype parse_dtype(const std::string& name, const std::string& input, std::span<const Dtype> accepted) {
  return parse(name, input, accepted, dtype_name);
}

Dtype parse_long_dtype(const std::string& name, const std::string& input, std::span<const Dtype> accepted) {
  return parse(name, input, accepted, dtype_long_name);
}

std::vector<Dtype> parse_kernel_dtypes(const std::string& name, const std::string& input) {
  if (name == "both") return {kKernelDtypes.begin(), kKernelDtypes.end()};
  std::vector<std::string> names;
  for (Dtype t : kKernelDtypes) {
    if (name == dtype_name(t)) return {t};
    names.push_back(dtype_name(t));
  }
  names.emplace_back("both");
  throw InputError(input, or_list(names), name);
}

void require_kernel_dtype(Dtype t, const char* who) {
  if (!info(t).kernel) throw std::invalid_argument(std::string(who) + ": " + dtype_name(t) + " is not a kernel dtype (f32 or bf16)");
}

}  // namespace ropecheck
