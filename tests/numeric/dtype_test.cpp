// Tests for numeric/dtype.h: the names every flag and JSON field uses, and the parsers' accepted
// subsets and messages (the CLI's --dtype and --arith errors are these).
#include "numeric/dtype.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <string>

#include "io/input_error.h"

namespace ropecheck {
namespace {

std::string message_of(const std::string& name, const std::string& input, std::span<const Dtype> accepted) {
  try {
    parse_dtype(name, input, accepted);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Dtype, NamesRoundTrip) {
  EXPECT_EQ(dtype_name(Dtype::f64), "f64");
  EXPECT_EQ(dtype_name(Dtype::f32), "f32");
  EXPECT_EQ(dtype_name(Dtype::bf16), "bf16");
  EXPECT_EQ(dtype_name(Dtype::f16), "f16");
  EXPECT_EQ(dtype_long_name(Dtype::f16), "float16");
  for (Dtype t : kAllDtypes) EXPECT_EQ(dtype_named(dtype_name(t)), t);
  EXPECT_FALSE(dtype_named("f8").has_value());
  EXPECT_FALSE(dtype_named("F32").has_value());
  EXPECT_FALSE(dtype_named("both").has_value());
}

TEST(Dtype, ParseRefusesWhatTheCallerCannotDo) {
  EXPECT_EQ(parse_dtype("f64", "--arith", kAllDtypes), Dtype::f64);
  EXPECT_EQ(parse_dtype("bf16", "--dtype", kKernelDtypes), Dtype::bf16);
  EXPECT_THROW(parse_dtype("f64", "--dtype", kKernelDtypes), InputError);
  EXPECT_EQ(message_of("f64", "--dtype", kKernelDtypes), "--dtype must be f32, bf16 or f16 (got f64)");
  EXPECT_EQ(message_of("f8", "--arith", kAllDtypes), "--arith must be f64, f32, bf16 or f16 (got f8)");
}

TEST(Dtype, SetsTakeEveryAcceptedDtypeOrTheWordForAll) {
  EXPECT_EQ(parse_dtype_set("all", "--dtype", kKernelDtypes, "all").size(), 3u);
  EXPECT_EQ(parse_dtype_set("all", "--dtype", kKernelDtypes, "all").front(), Dtype::f32);
  EXPECT_EQ(parse_dtype_set("f16", "--dtype", kKernelDtypes, "all"), std::vector<Dtype>{Dtype::f16});
  const Dtype two[] = {Dtype::f32, Dtype::bf16};
  EXPECT_EQ(parse_dtype_set("both", "--dtype", two, "both").size(), 2u);
  try {
    parse_dtype_set("f64", "--dtype", kKernelDtypes, "all");
    ADD_FAILURE() << "f64 accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "--dtype must be f32, bf16, f16 or all (got f64)");
  }
}

TEST(Dtype, FormatParametersComeFromTheOneList) {
  EXPECT_EQ(dtype_info(Dtype::f16).precision, 11);
  EXPECT_EQ(dtype_info(Dtype::f16).emin_normal, -14);
  EXPECT_EQ(dtype_info(Dtype::f16).emax, 15);
  EXPECT_EQ(dtype_info(Dtype::bf16).precision, 8);
  EXPECT_EQ(dtype_info(Dtype::f32).npy, "<f4");
  EXPECT_EQ(dtype_info(Dtype::f16).npy, "<f2");
  for (std::size_t i = 0; i < kKernelDtypes.size(); ++i) EXPECT_EQ(kernel_dtype_index(kKernelDtypes[i]), i);
  EXPECT_THROW(kernel_dtype_index(Dtype::f64), std::invalid_argument);
}

// Every enumerator of Dtype, by a switch without default: adding one fails the build here
// (-Werror=switch) until it is counted, and the test below then fails until kDtypes has its entry.
constexpr std::size_t kEnumerators = [] {
  std::size_t n = 0;
  for (Dtype t : {Dtype::f64, Dtype::f32, Dtype::bf16, Dtype::f16}) {
    switch (t) {
      case Dtype::f64:
      case Dtype::f32:
      case Dtype::bf16:
      case Dtype::f16:
        ++n;
    }
  }
  return n;
}();

// A new format's registration in the one list is complete: an entry per enumerator, in enumerator
// order, with a name and a long name, a width that holds its bits, a canonical NaN that is a quiet
// NaN of its width, and an .npy descr of its width ('f' for IEEE formats, 'u' bits otherwise).
TEST(Dtype, EveryEnumeratorHasACompleteEntry) {
  ASSERT_EQ(std::size(kDtypes), kEnumerators);
  for (std::size_t i = 0; i < std::size(kDtypes); ++i) {
    const DtypeInfo& d = kDtypes[i];
    SCOPED_TRACE(std::string(d.name));
    EXPECT_EQ(static_cast<std::size_t>(d.value), i);
    EXPECT_EQ(&dtype_info(d.value), &d);
    EXPECT_FALSE(d.name.empty());
    EXPECT_FALSE(d.long_name.empty());
    EXPECT_EQ(dtype_named(std::string(d.name)), d.value);
    EXPECT_EQ(parse_long_dtype(std::string(d.long_name), "dtype", kAllDtypes), d.value);
    ASSERT_TRUE(d.bytes == 2 || d.bytes == 4 || d.bytes == 8);
    const int exponent_bits = std::bit_width(static_cast<unsigned>(d.emax)) + 1;  // emax = 2^(w-1) - 1
    EXPECT_EQ(d.emax, (1 << (exponent_bits - 1)) - 1);
    EXPECT_EQ(d.emin_normal, 1 - d.emax);
    EXPECT_EQ(1 + exponent_bits + d.precision - 1, 8 * d.bytes);  // sign, exponent, trailing significand
    const std::uint64_t quiet = std::uint64_t{1} << (d.precision - 2);
    const std::uint64_t exponent_ones = ((std::uint64_t{1} << exponent_bits) - 1) << (d.precision - 1);
    EXPECT_EQ(d.canonical_nan, exponent_ones | quiet);
    ASSERT_EQ(d.npy.size(), 3u);
    EXPECT_EQ(d.npy[0], '<');
    EXPECT_TRUE(d.npy[1] == 'f' || d.npy[1] == 'u');
    EXPECT_EQ(d.npy[2] - '0', d.bytes);
  }
}

TEST(Dtype, RequireKernelDtype) {
  EXPECT_THROW(require_kernel_dtype(Dtype::f64, "x"), std::invalid_argument);
  EXPECT_NO_THROW(require_kernel_dtype(Dtype::f32, "x"));
  EXPECT_NO_THROW(require_kernel_dtype(Dtype::bf16, "x"));
  EXPECT_NO_THROW(require_kernel_dtype(Dtype::f16, "x"));
}

}  // namespace
}  // namespace ropecheck
