#include "numeric/dtype.h"

#include <stdexcept>

#include "io/input_error.h"

namespace ropecheck {

namespace {

std::vector<std::string> kernel_names();

template <typename Name>
Dtype parse(const std::string& name, const std::string& input, std::span<const Dtype> accepted, Name name_of) {
  std::vector<std::string> names;
  for (Dtype a : accepted) {
    if (name == name_of(a)) return a;
    names.push_back(name_of(a));
  }
  throw InputError(input, or_list(names), name);
}

std::vector<std::string> kernel_names() {
  std::vector<std::string> names;
  for (Dtype t : kKernelDtypes) names.push_back(dtype_name(t));
  return names;
}

}  // namespace

const DtypeInfo& dtype_info(Dtype t) {
  for (const DtypeInfo& i : kDtypes)
    if (i.value == t) return i;
  throw std::invalid_argument("dtype: not in kDtypes");
}

std::size_t kernel_dtype_index(Dtype t) {
  for (std::size_t i = 0; i < kKernelDtypes.size(); ++i)
    if (kKernelDtypes[i] == t) return i;
  throw std::invalid_argument("kernel_dtype_index: " + dtype_name(t) + " is not a kernel dtype");
}

std::string dtype_name(Dtype t) { return std::string(dtype_info(t).name); }

std::string dtype_long_name(Dtype t) { return std::string(dtype_info(t).long_name); }

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

std::vector<Dtype> parse_dtype_set(const std::string& name, const std::string& input, std::span<const Dtype> accepted,
                                   const std::string& every_word) {
  if (name == every_word) return {accepted.begin(), accepted.end()};
  std::vector<std::string> names;
  for (Dtype t : accepted) {
    if (name == dtype_name(t)) return {t};
    names.push_back(dtype_name(t));
  }
  names.push_back(every_word);
  throw InputError(input, or_list(names), name);
}

void require_kernel_dtype(Dtype t, const char* who) {
  if (!dtype_info(t).kernel) throw std::invalid_argument(std::string(who) + ": " + dtype_name(t) + " is not a kernel dtype (" + or_list(kernel_names()) + ")");
}

}  // namespace ropecheck
