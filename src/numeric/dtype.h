// File: dtype.h
// The one vocabulary of number formats (dtypes) for the kernel, its accuracy harness, the
// finite-precision verdicts and Monte Carlo:
//   f64   IEEE binary64: Monte Carlo's reference arithmetic; never a kernel tensor.
//   f32   IEEE binary32 (24 significant bits).
//   bf16  bfloat16: 8 significant bits, binary32's exponent range.
// The kernel rotates f32 and bf16 tensors only (the "kernel dtypes"); code whose contract is about
// kernel outputs (the ulp metric, rotations, the finite verdicts) states so and refuses f64.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ropecheck {

enum class Dtype { f64, f32, bf16 };

struct DtypeInfo {
  Dtype value;
  std::string_view name;       // flags and JSON fields: "f32"
  std::string_view long_name;  // NumPy's and PyTorch's spelling (Python's dtype=): "float32"
  bool kernel;                 // the kernel rotates tensors of it
};

// The one list of formats: every loop over dtypes, every accepted-values message, Python's
// dtype names iterate it.
inline constexpr DtypeInfo kDtypes[] = {
    {Dtype::f64, "f64", "float64", false},
    {Dtype::f32, "f32", "float32", true},
    {Dtype::bf16, "bf16", "bfloat16", true},
};

namespace detail {
template <bool kKernelOnly>
constexpr auto dtypes_where() {
  constexpr std::size_t n = [] {
    std::size_t c = 0;
    for (const DtypeInfo& i : kDtypes) c += !kKernelOnly || i.kernel;
    return c;
  }();
  std::array<Dtype, n> out{};
  std::size_t at = 0;
  for (const DtypeInfo& i : kDtypes)
    if (!kKernelOnly || i.kernel) out[at++] = i.value;
  return out;
}
}  // namespace detail

inline constexpr auto kAllDtypes = detail::dtypes_where<false>();
inline constexpr auto kKernelDtypes = detail::dtypes_where<true>();

// Returns: "f64", "f32" or "bf16" (the spelling of every flag value and JSON field).
std::string dtype_name(Dtype t);
// Returns: "float64", "float32" or "bfloat16" (NumPy's and PyTorch's spelling).
std::string dtype_long_name(Dtype t);

// Returns: the dtype spelled `name` (dtype_name's spelling), or nothing.
std::optional<Dtype> dtype_named(const std::string& name);

// Returns: the dtype `name` names when it is one of `accepted`. Throws InputError(input, the
// accepted names in order, e.g. "f32 or bf16" or "f64, f32 or bf16", name) otherwise.
Dtype parse_dtype(const std::string& name, const std::string& input, std::span<const Dtype> accepted);
// As parse_dtype, in the long spelling ("float32 or bfloat16").
Dtype parse_long_dtype(const std::string& name, const std::string& input, std::span<const Dtype> accepted);

// Returns: the kernel dtypes `name` names: "f32", "bf16", or "both" (f32 then bf16).
// Throws InputError(input, "f32, bf16 or both", name) otherwise.
std::vector<Dtype> parse_kernel_dtypes(const std::string& name, const std::string& input);

// Throws std::invalid_argument("<who>: f64 is not a kernel dtype (f32 or bf16)") when t is f64:
// a programming error in code whose contract takes kernel dtypes only.
void require_kernel_dtype(Dtype t, const char* who);

}  // namespace ropecheck
