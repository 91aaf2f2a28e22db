// File: dtype.h
// The one vocabulary of number formats (dtypes) for the kernel, its accuracy harness, the
// finite-precision verdicts, Monte Carlo and captures (usage/capture.h's kCaptureDtypes):
//   f64   IEEE binary64: Monte Carlo's reference arithmetic; never a kernel tensor.
//   f32   IEEE binary32 (24 significant bits).
//   bf16  bfloat16: 8 significant bits, binary32's exponent range.
//   f16   IEEE binary16 (NumPy's float16, '<f2'): 11 significant bits, normals from 2^-14, largest
//         finite 65504 (ggml/llama.cpp's KV cache, fp16 inference).
// The kernel rotates f32, bf16 and f16 tensors (the "kernel dtypes"); code whose contract is about
// kernel outputs (the ulp metric, rotations) states so and refuses f64. A format's parameters
// (significand bits, exponent range, storage width, canonical NaN) are read from its entry here,
// never spelled again; its storage type and conversions are in numeric/small_floats.h.
// Adding a format: an entry in kDtypes, its storage type and narrowing in small_floats.h, and the
// kernel's per-path rotation (kernel/detail/ops.h says how); CONTRIBUTING.md's recipe lists the rest.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ropecheck {

enum class Dtype { f64, f32, bf16, f16 };

struct DtypeInfo {
  Dtype value;
  std::string_view name;       // flags and JSON fields: "f32"
  std::string_view long_name;  // NumPy's and PyTorch's spelling (Python's dtype=): "float32"
  bool kernel;                 // the kernel rotates tensors of it
  int precision;               // significand bits, the leading one included
  int emin_normal;             // the smallest normal number is 2^emin_normal
  int emax;                    // the largest finite number is (2 - 2^(1 - precision)) 2^emax
  int bytes;                   // storage width
  std::uint64_t canonical_nan; // the kernel's NaN output, as stored bits
  std::string_view npy;        // the .npy descr of its storage ("<f4"; bf16 has none: "<u2" bits)
};

// The one list of formats: every loop over dtypes, every accepted-values message, Python's
// dtype names iterate it.
inline constexpr DtypeInfo kDtypes[] = {
    {Dtype::f64, "f64", "float64", false, 53, -1022, 1023, 8, 0x7FF8000000000000u, "<f8"},
    {Dtype::f32, "f32", "float32", true, 24, -126, 127, 4, 0x7FC00000u, "<f4"},
    {Dtype::bf16, "bf16", "bfloat16", true, 8, -126, 127, 2, 0x7FC0u, "<u2"},
    {Dtype::f16, "f16", "float16", true, 11, -14, 15, 2, 0x7E00u, "<f2"},
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

// Returns: t's entry in kDtypes.
const DtypeInfo& dtype_info(Dtype t);

// Returns: the position of kernel dtype t in kKernelDtypes (for per-format arrays). Throws
// std::invalid_argument for f64.
std::size_t kernel_dtype_index(Dtype t);

// Returns: "f64", "f32", "bf16" or "f16" (the spelling of every flag value and JSON field).
std::string dtype_name(Dtype t);
// Returns: "float64", "float32", "bfloat16" or "float16" (NumPy's and PyTorch's spelling).
std::string dtype_long_name(Dtype t);

// Returns: the dtype spelled `name` (dtype_name's spelling), or nothing.
std::optional<Dtype> dtype_named(const std::string& name);

// Returns: the dtype `name` names when it is one of `accepted`. Throws InputError(input, the
// accepted names in order, e.g. "f32 or bf16" or "f64, f32 or bf16", name) otherwise.
Dtype parse_dtype(const std::string& name, const std::string& input, std::span<const Dtype> accepted);
// As parse_dtype, in the long spelling ("float32 or bfloat16").
Dtype parse_long_dtype(const std::string& name, const std::string& input, std::span<const Dtype> accepted);

// Returns: the dtypes `name` names among `accepted`: one of their names, or `every_word` ("all",
// "both") for all of them in order. Throws InputError(input, "f32, bf16, f16 or all", name) otherwise.
std::vector<Dtype> parse_dtype_set(const std::string& name, const std::string& input, std::span<const Dtype> accepted,
                                   const std::string& every_word);

// Throws std::invalid_argument("<who>: f64 is not a kernel dtype (f32, bf16 or f16)") when t is
// f64: a programming error in code whose contract takes kernel dtypes only.
void require_kernel_dtype(Dtype t, const char* who);

}  // namespace ropecheck
