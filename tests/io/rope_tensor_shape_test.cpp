#include "io/rope_tensor_shape.h"

#include <gtest/gtest.h>

#include "io/input_error.h"

namespace ropecheck {
namespace {

TEST(RopeTensorShape, ReadsTwoThreeAndBatchedShapes) {
  const RopeTensorShape a = rope_tensor_shape({5, 8}, "--input");
  EXPECT_EQ(a.batch, 1);
  EXPECT_EQ(a.tokens, 5);
  EXPECT_EQ(a.heads, 1);
  EXPECT_EQ(a.head_dim, 8);
  const RopeTensorShape b = rope_tensor_shape({5, 3, 8}, "--input");
  EXPECT_EQ(b.batch, 1);
  EXPECT_EQ(b.tokens, 5);
  EXPECT_EQ(b.heads, 3);
  EXPECT_EQ(b.slice_elements(), 120);
  const RopeTensorShape c = rope_tensor_shape({2, 7, 5, 3, 8}, "--input");
  EXPECT_EQ(c.batch, 14);
  EXPECT_EQ(c.tokens, 5);
  EXPECT_EQ(c.heads, 3);
  EXPECT_EQ(c.head_dim, 8);
  EXPECT_EQ(rope_tensor_shape({0, 3, 8}, "--input").tokens, 0);  // empty tensors are valid
}

TEST(RopeTensorShape, RejectsLowRankAndOddOrTinyHeadDim) {
  for (const auto& shape : std::vector<std::vector<std::int64_t>>{{}, {8}, {4, 7}, {4, 3, 7}, {4, 0}, {4, 1, 1}}) {
    try {
      rope_tensor_shape(shape, "--input");
      ADD_FAILURE() << "accepted a shape of rank " << shape.size();
    } catch (const InputError& e) {
      EXPECT_EQ(e.input(), "--input") << e.what();
      EXPECT_NE(std::string(e.what()).find("shape ("), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace ropecheck
