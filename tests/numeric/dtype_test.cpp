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
  for (Dtype t : kAllDtypes) EXPECT_EQ(dtype_named(dtype_name(t)), t);
  EXPECT_FALSE(dtype_named("f16").has_value());
  EXPECT_FALSE(dtype_named("F32").has_value());
  EXPECT_FALSE(dtype_named("both").has_value());
}

TEST(Dtype, ParseRefusesWhatTheCallerCannotDo) {
  EXPECT_EQ(parse_dtype("f64", "--arith", kAllDtypes), Dtype::f64);
  EXPECT_EQ(parse_dtype("bf16", "--dtype", kKernelDtypes), Dtype::bf16);
  EXPECT_THROW(parse_dtype("f64", "--dtype", kKernelDtypes), InputError);
  EXPECT_EQ(message_of("f64", "--dtype", kKernelDtypes), "--dtype must be f32 or bf16 (got f64)");
  EXPECT_EQ(message_of("f16", "--arith", kAllDtypes), "--arith must be f64, f32 or bf16 (got f16)");
}

TEST(Dtype, KernelDtypesTakeBoth) {
  EXPECT_THROW(parse_kernel_dtypes("f16", "--dtype"), InputError);
  EXPECT_EQ(parse_kernel_dtypes("both", "--dtype").size(), 2u);
  EXPECT_EQ(parse_kernel_dtypes("both", "--dtype").front(), Dtype::f32);
  EXPECT_EQ(parse_kernel_dtypes("bf16", "--dtype"), std::vector<Dtype>{Dtype::bf16});
  try {
    parse_kernel_dtypes("f64", "--dtype");
    ADD_FAILURE() << "f64 accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "--dtype must be f32, bf16 or both (got f64)");
  }
}

TEST(Dtype, RequireKernelDtype) {
  EXPECT_THROW(require_kernel_dtype(Dtype::f64, "x"), std::invalid_argument);
  EXPECT_NO_THROW(require_kernel_dtype(Dtype::f32, "x"));
  EXPECT_NO_THROW(require_kernel_dtype(Dtype::bf16, "x"));
}

}  // namespace
}  // namespace ropecheck
