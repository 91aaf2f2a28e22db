#include "io/rope_tensor_shape.h"

#include <gtest/gtest.h>

#include <vector>

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

TEST(RopeTensorShape, AxesNameTheOrdersOfHuggingFaceAndVllm) {
  const RopeTensorShape hf = rope_tensor_shape({2, 3, 5, 8}, TensorAxes::bhsd, 0, "--input");
  EXPECT_EQ(hf.batch, 2);
  EXPECT_EQ(hf.heads, 3);
  EXPECT_EQ(hf.tokens, 5);
  EXPECT_TRUE(hf.heads_outer);
  const RopeTensorShape own = rope_tensor_shape({2, 5, 3, 8}, TensorAxes::bshd, 0, "--input");
  EXPECT_EQ(own.tokens, 5);
  EXPECT_FALSE(own.heads_outer);
  const RopeTensorShape flat = rope_tensor_shape({7, 24}, TensorAxes::sd, 8, "--input");  // vLLM [num_tokens, heads * head_size]
  EXPECT_EQ(flat.tokens, 7);
  EXPECT_EQ(flat.heads, 3);
  EXPECT_EQ(flat.head_dim, 8);
  EXPECT_EQ(rope_tensor_shape({7, 24}, TensorAxes::sd, 0, "--input").heads, 1);  // head_dim unknown: one head
  EXPECT_EQ(rope_tensor_shape({3, 7, 8}, TensorAxes::hsd, 0, "--input").heads, 3);
  EXPECT_EQ(rope_tensor_shape({7, 3, 8}, TensorAxes::shd, 0, "--input").heads, 3);
  // [b][h][t][d] -> [b][t][h][d] and back.
  const RopeTensorShape s = rope_tensor_shape({1, 2, 3, 2}, TensorAxes::bhsd, 0, "--input");
  const std::vector<int> held = {0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15};  // head 0 tokens 0..2, head 1 tokens 0..2
  const std::vector<int> token_major = to_token_major(s, held);
  EXPECT_EQ(token_major, (std::vector<int>{0, 1, 10, 11, 2, 3, 12, 13, 4, 5, 14, 15}));
  EXPECT_EQ(from_token_major(s, token_major), held);
  for (const char* a : {"bshd", "bhsd", "shd", "hsd", "sd"}) EXPECT_EQ(axes_name(parse_axes(a, "--axes")), a);
}

TEST(RopeTensorShape, RejectsAxesItDoesNotKnowAndShapesTheyDoNotDescribe) {
  try {
    parse_axes("bsdh", "--axes");
    ADD_FAILURE() << "accepted bsdh";
  } catch (const InputError& e) {
    EXPECT_EQ(e.input(), "--axes");
    EXPECT_NE(std::string(e.what()).find("bhsd"), std::string::npos) << e.what();
  }
  EXPECT_THROW(rope_tensor_shape({5, 3, 8}, TensorAxes::bhsd, 0, "--input"), InputError);  // rank 3 for a rank-4 order
  EXPECT_THROW(rope_tensor_shape({7, 20}, TensorAxes::sd, 8, "--input"), InputError);      // 20 is not heads x 8
  EXPECT_THROW(rope_tensor_shape({7, 3, 7}, TensorAxes::shd, 0, "--input"), InputError);   // odd head_dim
}

}  // namespace
}  // namespace ropecheck
