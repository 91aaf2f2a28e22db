// Tests for numeric/dtype.h: the names every flag and JSON field uses, and the parsers' accepted
// subsets and messages (the CLI's --dtype and --arith errors are these).
#include "numeric/dtype.h"

#include <gtest/gtest.h>

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

TEST(Dtype, RequireKernelDtype) {
  EXPECT_THROW(require_kernel_dtype(Dtype::f64, "x"), std::invalid_argument);
  EXPECT_NO_THROW(require_kernel_dtype(Dtype::f32, "x"));
  EXPECT_NO_THROW(require_kernel_dtype(Dtype::bf16, "x"));
  EXPECT_NO_THROW(require_kernel_dtype(Dtype::f16, "x"));
}

}  // namespace
}  // namespace ropecheck
