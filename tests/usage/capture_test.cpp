#include "usage/capture.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "io/input_error.h"
#include "../support/files.h"

// Fixtures: tests/usage/data/*.npz, written by tests/usage/data/make_captures.py, whose q_value and
// k_value are mirrored here.
namespace ropecheck::usage::capture_test {

std::string data(const std::string& name) { return std::string(ROPECHECK_TEST_SOURCE_DIR) + "/tests/usage/data/" + name; }

double q_value(long long s, long long l, long long h, long long t, long long c) {
  return static_cast<double>(((s * 7 + l * 5 + h * 3 + t * 2 + c) % 61) - 30) * 0.25;
}
double k_value(long long s, long long l, long long h, long long t, long long c) {
  return static_cast<double>(((s * 3 + l * 7 + h * 11 + t * 5 + c * 2) % 53) - 26) * 0.125;
}

// Reads every block, checking the order, the shapes and every value against the formulas;
// `override_q` may replace an expected q value (the fixtures' special float16 values).
void expect_blocks(CaptureSource& source, double (*override_q)(long long, long long, long long, long long, long long, double) = nullptr) {
  const CaptureGeometry& g = source.geometry();
  CaptureBlock block;
  std::vector<double> row(static_cast<std::size_t>(g.tokens * g.head_dim));
  for (long long s = 0; s < g.sequences; ++s)
    for (long long l = 0; l < g.layers; ++l) {
      ASSERT_TRUE(source.next(block)) << "block " << s << ", " << l;
      EXPECT_EQ(block.sequence, s);
      EXPECT_EQ(block.layer, l);
      EXPECT_EQ(block.heads, g.heads);
      EXPECT_EQ(block.kv_heads, g.kv_heads);
      EXPECT_EQ(block.tokens, g.tokens);
      EXPECT_EQ(block.head_dim, g.head_dim);
      EXPECT_EQ(block.q_dtype, source.q_dtype());
      EXPECT_EQ(block.k_dtype, source.k_dtype());
      EXPECT_EQ(block.q_bytes.size(), static_cast<std::size_t>(g.heads) * row.size() * static_cast<std::size_t>(dtype_info(source.q_dtype()).bytes));
      for (long long h = 0; h < g.heads; ++h) {
        block.q_head(h, row.data());
        for (long long t = 0; t < g.tokens; ++t)
          for (long long c = 0; c < g.head_dim; ++c) {
            double want = q_value(s, l, h, t, c);
            if (override_q != nullptr) want = override_q(s, l, h, t, c, want);
            ASSERT_EQ(row[static_cast<std::size_t>(t * g.head_dim + c)], want) << "q[" << s << ", " << l << ", " << h << ", " << t << ", " << c << "]";
          }
      }
      for (long long h = 0; h < g.kv_heads; ++h) {
        block.k_head(h, row.data());
        for (long long t = 0; t < g.tokens; ++t)
          for (long long c = 0; c < g.head_dim; ++c)
            ASSERT_EQ(row[static_cast<std::size_t>(t * g.head_dim + c)], k_value(s, l, h, t, c))
                << "k[" << s << ", " << l << ", " << h << ", " << t << ", " << c << "]";
      }
    }
  EXPECT_FALSE(source.next(block));
  EXPECT_FALSE(source.next(block));
}

TEST(CaptureFile, StoredFloat32WithSharedPositionsAndSource) {
  const auto source = open_capture(data("stored_f32.npz"));
  const CaptureGeometry& g = source->geometry();
  EXPECT_EQ(std::tie(g.sequences, g.layers, g.heads, g.kv_heads, g.tokens, g.head_dim), std::make_tuple(2, 3, 4, 2, 5, 6));
  EXPECT_EQ(source->q_dtype(), Dtype::f32);
  EXPECT_EQ(source->k_dtype(), Dtype::f32);
  EXPECT_EQ(source->describe(), data("stored_f32.npz") + ": 2 sequences x 3 layers x 4/2 heads x 5 tokens x 6, float32");
  ASSERT_TRUE(source->source().has_value());
  EXPECT_EQ(*source->source(), "toy capture, \xce\xb8 = 10000 \xf0\x9d\x9c\x8b");  // θ and U+1D70B, in UTF-8
  EXPECT_FALSE(source->has_token_ids());
  EXPECT_EQ(source->positions(0), (std::vector<long long>{0, 1, 2, 3, 7}));
  EXPECT_EQ(source->positions(1), (std::vector<long long>{0, 1, 2, 3, 7}));
  EXPECT_THROW(source->positions(2), std::out_of_range);
  EXPECT_THROW(source->positions(-1), std::out_of_range);
  expect_blocks(*source);
}

double compressed_overrides(long long s, long long l, long long h, long long t, long long c, double want) {
  if (s == 1 && l == 2 && h == 3 && t == 4 && c == 5) return std::ldexp(1.0, -24);
  if (s == 1 && l == 2 && h == 3 && t == 4 && c == 4) return -65504.0;
  if (s == 0 && l == 0 && h == 0 && t == 0 && c == 1) return -0.0;
  return want;
}

TEST(CaptureFile, CompressedFloat16WithPerSequencePositions) {
  const auto source = open_capture(data("compressed_f16.npz"), "--in");
  EXPECT_EQ(source->q_dtype(), Dtype::f16);
  EXPECT_EQ(source->k_dtype(), Dtype::f32);
  EXPECT_EQ(source->describe(),
            data("compressed_f16.npz") + ": 2 sequences x 3 layers x 4/2 heads x 5 tokens x 6, q float16, k float32");
  EXPECT_FALSE(source->source().has_value());
  EXPECT_TRUE(source->has_token_ids());
  EXPECT_EQ(source->positions(0), (std::vector<long long>{5, 6, 7, 8, 9}));
  EXPECT_EQ(source->positions(1), (std::vector<long long>{100, 50, 0, (1LL << 40) - 1, 3}));
  expect_blocks(*source, compressed_overrides);
}

TEST(CaptureFile, Float16SignedZeroAndSubnormalAreExact) {
  const auto source = open_capture(data("compressed_f16.npz"));
  CaptureBlock block;
  std::vector<double> row(30);
  ASSERT_TRUE(source->next(block));
  block.q_head(0, row.data());
  EXPECT_EQ(row[1], 0.0);
  EXPECT_TRUE(std::signbit(row[1]));
  while (source->next(block)) {
  }
  EXPECT_EQ(block.sequence, 1);
  EXPECT_EQ(block.layer, 2);
  block.q_head(3, row.data());
  EXPECT_EQ(row[4 * 6 + 5], 0x1p-24);
  EXPECT_EQ(row[4 * 6 + 4], -65504.0);
  EXPECT_THROW(block.q_head(4, row.data()), std::out_of_range);
  EXPECT_THROW(block.k_head(2, row.data()), std::out_of_range);
  EXPECT_THROW(block.k_head(-1, row.data()), std::out_of_range);
}

TEST(CaptureFile, Int32PositionsAndFloat16Keys) {
  const auto source = open_capture(data("positions_i4.npz"));
  EXPECT_EQ(source->q_dtype(), Dtype::f32);
  EXPECT_EQ(source->k_dtype(), Dtype::f16);
  EXPECT_EQ(source->positions(0), (std::vector<long long>{4, 2, 9}));
  expect_blocks(*source);
}

// Opens the capture and reads every block: some errors are found only while streaming.
void drain(const std::string& file) {
  const auto source = open_capture(data(file));
  CaptureBlock block;
  while (source->next(block)) {
  }
}

TEST(CaptureFile, RefusesEveryBadInputNamingTheMember) {
  const std::string m = "--capture: member ";
  const std::vector<std::tuple<std::string, std::string, std::vector<std::string>>> cases = {
      {"bad_not_zip.npz", "--capture", {"a readable NumPy .npz file", "Not a zip archive"}},
      {"bad_truncated.npz", "--capture", {"bad_truncated.npz"}},
      {"bad_crc_stored.npz", m + "'q'", {"CRC error"}},
      {"bad_crc_deflated.npz", m + "'q'", {"uncorrupted"}},
      {"bad_missing_k.npz", m + "'k'", {"present", "members q, positions"}},
      {"bad_missing_positions.npz", m + "'positions'", {"present", "members q, k"}},
      {"bad_extra_member.npz", m + "'v'", {"q, k, positions, token_ids or source"}},
      {"bad_q_ndim.npz", m + "'q'", {"[sequences, layers, heads, tokens, head_dim] (5 dimensions)", "shape (1, 3, 2, 24)"}},
      {"bad_q_dtype.npz", m + "'q'", {"'<f4' or '<f2'", "dtype '<f8'"}},
      {"bad_k_dtype.npz", m + "'k'", {"'<f4' or '<f2'", "dtype '<i4'"}},
      {"bad_k_tokens.npz", m + "'k'", {"agreeing with q's shape (1, 3, 2, 4, 6)", "tokens 5"}},
      {"bad_k_head_dim.npz", m + "'k'", {"agreeing with q's shape", "head_dim 8"}},
      {"bad_k_layers.npz", m + "'k'", {"agreeing with q's shape", "layers 4"}},
      {"bad_heads_multiple.npz", m + "'k'", {"kv_heads divides q's heads (3)", "kv_heads 2"}},
      {"bad_kv_heads_zero.npz", m + "'k'", {"kv_heads >= 1", "shape (1, 3, 0, 4, 6)"}},
      {"bad_head_dim_odd.npz", m + "'q'", {"even and >= 2", "shape (1, 3, 2, 4, 5)"}},
      {"bad_tokens_zero.npz", m + "'q'", {"tokens >= 1", "shape (1, 3, 2, 0, 6)"}},
      {"bad_positions_length.npz", m + "'positions'", {"[tokens] = (4,) or [sequences, tokens] = (1, 4)", "shape (5,)"}},
      {"bad_positions_sequences.npz", m + "'positions'", {"[sequences, tokens] = (1, 4)", "shape (2, 4)"}},
      {"bad_positions_negative.npz", m + "'positions'", {"[0, 2^40)", "positions[2] = -2"}},
      {"bad_positions_huge.npz", m + "'positions'", {"[0, 2^40)", "positions[3] = 1099511627776"}},
      {"bad_positions_dtype.npz", m + "'positions'", {"'<i8' or '<i4'", "dtype '<f8'"}},
      {"bad_token_ids_shape.npz", m + "'token_ids'", {"[tokens] = (4,)", "shape (5,)"}},
      {"bad_source_shape.npz", m + "'source'", {"0-d string array", "shape (2,)"}},
      {"bad_source_dtype.npz", m + "'source'", {"0-d string array", "dtype '<i8'"}},
      {"bad_q_nan.npz", m + "'q'", {"finite values", "q[0, 2, 1, 3, 5] = nan"}},
      {"bad_k_inf.npz", m + "'k'", {"finite values", "k[0, 1, 0, 2, 4] = -inf"}},
      {"bad_k_f16_inf.npz", m + "'k'", {"finite values", "k[0, 2, 0, 0, 0] = inf"}},
      {"bad_q_short.npz", m + "'q'", {"is truncated", "needs 576 bytes of data, found 572"}},
      {"bad_q_long.npz", m + "'q'", {"trailing bytes", "found 580"}},
      {"bad_q_overflow.npz", m + "'q'", {"fewer than 2^62 bytes"}},
      {"bad_q_not_npy.npz", m + "'q'", {"not a .npy file"}},
  };
  for (const auto& [file, input, parts] : cases) {
    SCOPED_TRACE(file);
    std::vector<std::string> with_file = parts;
    with_file.push_back(file);
    test::expect_input_error([&f = file] { drain(f); }, input, with_file);  // clang 14 cannot capture a binding
  }
}

TEST(CaptureFile, ValuesBeforeABadOneAreStillDelivered) {
  // bad_q_nan.npz: the NaN is in layer 2; layers 0 and 1 arrive first.
  const auto source = open_capture(data("bad_q_nan.npz"));
  CaptureBlock block;
  EXPECT_TRUE(source->next(block));
  EXPECT_TRUE(source->next(block));
  EXPECT_THROW(source->next(block), InputError);
}

// float16 bit patterns of a few values, for the memory capture's k.
constexpr std::uint16_t kHalfOne = 0x3C00, kHalfMinusTwo = 0xC000, kHalfTiny = 0x0001, kHalfInf = 0x7C00;

TEST(CaptureMemory, StreamsArraysInMemory) {
  const CaptureGeometry g{2, 2, 2, 1, 3, 2};
  std::vector<float> q(2 * 2 * 2 * 3 * 2);
  for (std::size_t i = 0; i < q.size(); ++i) q[i] = static_cast<float>(i) * 0.5f;
  std::vector<std::uint16_t> k(2 * 2 * 1 * 3 * 2);
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = i % 3 == 0 ? kHalfOne : i % 3 == 1 ? kHalfMinusTwo : kHalfTiny;
  const auto source = memory_capture(g, Dtype::f32, q.data(), Dtype::f16, k.data(), {3, 1, 2}, "from Python");
  EXPECT_EQ(source->describe(), "memory: 2 sequences x 2 layers x 2/1 heads x 3 tokens x 2, q float32, k float16");
  EXPECT_EQ(source->source(), std::optional<std::string>("from Python"));
  EXPECT_FALSE(source->has_token_ids());
  EXPECT_EQ(source->positions(1), (std::vector<long long>{3, 1, 2}));
  CaptureBlock block;
  std::vector<double> row(6);
  std::size_t qi = 0, ki = 0;
  for (long long s = 0; s < 2; ++s)
    for (long long l = 0; l < 2; ++l) {
      ASSERT_TRUE(source->next(block));
      EXPECT_EQ(std::make_pair(block.sequence, block.layer), std::make_pair(s, l));
      for (long long h = 0; h < 2; ++h) {
        block.q_head(h, row.data());
        for (double v : row) EXPECT_EQ(v, static_cast<double>(qi++) * 0.5);
      }
      block.k_head(0, row.data());
      for (double v : row) {
        EXPECT_EQ(v, ki % 3 == 0 ? 1.0 : ki % 3 == 1 ? -2.0 : 0x1p-24);
        ++ki;
      }
    }
  EXPECT_FALSE(source->next(block));

  const auto per_sequence = memory_capture(g, Dtype::f32, q.data(), Dtype::f16, k.data(), {0, 1, 2, 9, 8, 7});
  EXPECT_EQ(per_sequence->positions(0), (std::vector<long long>{0, 1, 2}));
  EXPECT_EQ(per_sequence->positions(1), (std::vector<long long>{9, 8, 7}));
  EXPECT_FALSE(per_sequence->source().has_value());
}

TEST(CaptureMemory, RefusesBadArraysNamingTheParameter) {
  std::vector<float> q(1024, 1.0f), k(1024, 1.0f);
  auto open = [&](CaptureGeometry g, std::vector<long long> positions) {
    const auto source = memory_capture(g, Dtype::f32, q.data(), Dtype::f32, k.data(), positions);
    CaptureBlock block;
    while (source->next(block)) {
    }
  };
  test::expect_input_error([&] { open({1, 1, 3, 2, 2, 4}, {0, 1}); }, "k", {"kv_heads divides q's heads (3)"});
  test::expect_input_error([&] { open({1, 1, 2, 0, 2, 4}, {0, 1}); }, "k", {"kv_heads >= 1"});
  test::expect_input_error([&] { open({1, 1, 2, 1, 2, 5}, {0, 1}); }, "q", {"even and >= 2", "shape (1, 1, 2, 2, 5)"});
  test::expect_input_error([&] { open({1, 0, 2, 1, 2, 4}, {0, 1}); }, "q", {"layers >= 1"});
  test::expect_input_error([&] { open({1, 1, 2, 1, 0, 4}, {}); }, "q", {"tokens >= 1"});
  test::expect_input_error([&] { open({2, 1, 2, 1, 2, 4}, {0, 1, 2}); }, "positions", {"2 or 2 x 2 positions", "3 positions"});
  test::expect_input_error([&] { open({2, 1, 2, 1, 2, 4}, {0, 1, 2, -5}); }, "positions", {"positions[1, 1] = -5"});
  test::expect_input_error([&] { open({1, 1, 2, 1, 2, 4}, {0, 1LL << 40}); }, "positions", {"positions[1] = 1099511627776"});
  test::expect_input_error([&] { open({1LL << 40, 1LL << 20, 2, 1, 2, 4}, {0, 1}); }, "q", {"fewer than 2^62 bytes"});
  test::expect_input_error(
      [&] { memory_capture({1, 1, 2, 1, 2, 4}, Dtype::f32, nullptr, Dtype::f32, k.data(), {0, 1}); }, "q",
      {"null pointer"});
  q[1 * 16 + 1 * 8 + 1 * 4 + 3] = std::nanf("");  // q[0, 1, 1, 1, 3] of shape [1, 2, 2, 2, 4]
  test::expect_input_error([&] { open({1, 2, 2, 1, 2, 4}, {0, 1}); }, "q", {"q[0, 1, 1, 1, 3] = nan"});
  const std::vector<std::uint16_t> k16(16, kHalfInf);
  test::expect_input_error(
      [&] {
        const auto source = memory_capture({1, 1, 2, 1, 2, 4}, Dtype::f32, k.data(), Dtype::f16, k16.data(), {0, 1});
        CaptureBlock block;
        source->next(block);
      },
      "k", {"k[0, 0, 0, 0, 0] = inf"});
}

// The member checks for arrays in memory (Python's capture.save) are open_capture's, naming the member.
TEST(CaptureMemory, MemberChecksNameTheParameter) {
  EXPECT_EQ(capture_float_dtype("<f4", "q"), Dtype::f32);
  EXPECT_EQ(capture_float_dtype("<f2", "k"), Dtype::f16);
  test::expect_input_error([] { capture_float_dtype(">f4", "q"); }, "q", {"'<f4' or '<f2'", "dtype '>f4'"});
  test::expect_input_error([] { capture_float_dtype("<f8", "k"); }, "k", {"dtype '<f8'"});
  const CaptureGeometry g{2, 1, 2, 1, 3, 4};
  check_token_member("<i8", {3}, g, "token_ids");
  check_token_member("<i4", {2, 3}, g, "positions");
  test::expect_input_error([&] { check_token_member("<f8", {3}, g, "token_ids"); }, "token_ids", {"'<i8' or '<i4'"});
  test::expect_input_error([&] { check_token_member("<i8", {3, 2}, g, "token_ids"); }, "token_ids", {"[sequences, tokens] = (2, 3)"});
  test::expect_input_error([&] { check_token_member("<i8", {}, g, "positions"); }, "positions", {"[tokens] = (3,)"});
  const std::vector<unsigned char> ab = {'a', 0, 0, 0, 'b', 0, 0, 0, 0, 0, 0, 0};  // '<U3' "ab"
  EXPECT_EQ(capture_source_text("<U3", {}, ab, "source"), "ab");
  test::expect_input_error([&] { capture_source_text("<U3", {1}, ab, "source"); }, "source", {"0-d string array"});
  const std::vector<unsigned char> surrogate = {0x00, 0xD8, 0, 0};  // U+D800
  test::expect_input_error([&] { capture_source_text("<U1", {}, surrogate, "source"); }, "source", {"no surrogates"});
}

// Every capture dtype is read by its .npy descr and named by its long name (numeric/dtype.h); a dtype
// outside kCaptureDtypes is a programming error, named.
TEST(CaptureDtypes, EachReadByItsDescrAndNamed) {
  for (Dtype t : kCaptureDtypes) {
    EXPECT_EQ(capture_float_dtype(std::string(dtype_info(t).npy), "q"), t) << dtype_name(t);
    EXPECT_NO_THROW(require_capture_dtype(t, "test")) << dtype_name(t);
  }
  EXPECT_EQ(dtype_long_name(Dtype::f32), "float32");
  EXPECT_EQ(dtype_long_name(Dtype::f16), "float16");
  try {
    require_capture_dtype(Dtype::bf16, "memory_capture");
    ADD_FAILURE() << "bf16 accepted as a capture dtype";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "memory_capture: bf16 is not a capture dtype (float32 or float16)");
  }
  const std::vector<float> q(8, 1.0f);
  EXPECT_THROW(memory_capture({1, 1, 1, 1, 2, 4}, Dtype::f64, q.data(), Dtype::f32, q.data(), {0, 1}), std::invalid_argument);
}

}  // namespace ropecheck::usage::capture_test
