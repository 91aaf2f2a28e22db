// `ropecheck apply` as a user runs it: .npy in, .npy out, the same bits as the library kernel,
// the same bytes for any thread count, and on bad input one line, exit 2, and no output file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "accuracy/baselines.h"
#include "run_cli.h"
#include "io/npy.h"
#include "kernel/apply_rope.h"
#include "numeric/small_floats.h"
#include "random/counter_rng.h"
#include "spectrum/spectrum.h"

namespace ropecheck {
namespace {

namespace fs = std::filesystem;
using test::run_cli;

constexpr std::uint64_t kSeed = 20240404;

class ApplyCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ropecheck_apply_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    std::printf("seed %" PRIu64 "\n", kSeed);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

// Random bit patterns (every class: normals, subnormals, zeros, infinities, NaNs) with a few
// fixed edge values, from the counter RNG so any element can be regenerated from (seed, stream, i).
NpyArray random_tensor(const std::string& dtype, const std::vector<std::int64_t>& shape, std::uint64_t stream) {
  NpyArray a;
  a.dtype = dtype;
  a.shape = shape;
  const CounterRng rng(kSeed, stream);
  const std::int64_t n = a.elements();
  const size_t item = dtype == "<f4" ? 4 : 2;
  a.bytes.resize(static_cast<size_t>(n) * item);
  for (std::int64_t i = 0; i < n; ++i) {
    std::uint64_t r = rng.bits(static_cast<std::uint64_t>(i));
    // Most elements are moderate normals (exponent field near the bias), so the rotation is
    // exercised on ordinary values and not only on NaN/inf/huge patterns.
    if (item == 4) {
      std::uint32_t u = static_cast<std::uint32_t>(r);
      if ((r >> 40) % 4 != 0) u = (u & 0x807FFFFFu) | ((118u + static_cast<std::uint32_t>((r >> 48) % 16)) << 23);
      std::memcpy(a.bytes.data() + 4 * i, &u, 4);
    } else if (dtype == "<f2") {  // float16: exponent field 7 .. 22 (2^-8 .. 2^7) for moderate ones
      std::uint16_t u = static_cast<std::uint16_t>(r);
      if ((r >> 40) % 4 != 0) u = static_cast<std::uint16_t>((u & 0x83FFu) | ((7u + (r >> 48) % 16) << 10));
      std::memcpy(a.bytes.data() + 2 * i, &u, 2);
    } else {
      std::uint16_t u = static_cast<std::uint16_t>(r);
      if ((r >> 40) % 4 != 0) u = static_cast<std::uint16_t>((u & 0x807Fu) | ((118u + (r >> 48) % 16) << 7));
      std::memcpy(a.bytes.data() + 2 * i, &u, 2);
    }
  }
  return a;
}

NpyArray int64_array(const std::vector<std::int64_t>& values) {
  NpyArray a;
  a.dtype = "<i8";
  a.shape = {static_cast<std::int64_t>(values.size())};
  a.bytes.resize(values.size() * 8);
  std::memcpy(a.bytes.data(), values.data(), a.bytes.size());
  return a;
}

// Returns: the kernel's own output for `x`, each batch slice rotated at `positions`.
NpyArray library_rotation(const kernel::RopePlan& plan, const NpyArray& x, const std::vector<std::int64_t>& positions) {
  const std::int64_t dim = x.shape.back();
  const std::int64_t heads = x.shape.size() == 2 ? 1 : x.shape[x.shape.size() - 2];
  const std::int64_t tokens = static_cast<std::int64_t>(positions.size());
  const std::int64_t slice = tokens * heads * dim;
  NpyArray y = x;
  const kernel::KernelOptions options{cpu::default_path(), 1};
  if (x.dtype == "<f4") {
    std::vector<float> in(static_cast<size_t>(x.elements())), out(in.size());
    std::memcpy(in.data(), x.bytes.data(), x.bytes.size());
    for (std::int64_t off = 0; off < x.elements(); off += slice)
      kernel::apply_rope(plan, positions, kernel::dense_view<const float>(in.data() + off, tokens, heads, static_cast<int>(dim)),
                         kernel::dense_view<float>(out.data() + off, tokens, heads, static_cast<int>(dim)), options);
    std::memcpy(y.bytes.data(), out.data(), y.bytes.size());
  } else {
    const auto sixteen = [&](auto tag) {
      using E = decltype(tag);
      std::vector<E> in(static_cast<size_t>(x.elements())), out(in.size());
      std::memcpy(in.data(), x.bytes.data(), x.bytes.size());
      for (std::int64_t off = 0; off < x.elements(); off += slice)
        kernel::apply_rope(plan, positions, kernel::dense_view<const E>(in.data() + off, tokens, heads, static_cast<int>(dim)),
                           kernel::dense_view<E>(out.data() + off, tokens, heads, static_cast<int>(dim)), options);
      std::memcpy(y.bytes.data(), out.data(), y.bytes.size());
    };
    if (x.dtype == "<f2") sixteen(F16Bits{});
    else sixteen(Bf16Bits{});
  }
  return y;
}

// Describes element i of the first difference between `want` and `got` with its input, in hex.
std::string first_difference(const NpyArray& x, const NpyArray& want, const NpyArray& got) {
  const size_t item = x.dtype == "<f4" ? 4 : 2;
  for (size_t i = 0; i * item < want.bytes.size(); ++i) {
    if (std::memcmp(want.bytes.data() + i * item, got.bytes.data() + i * item, item) == 0) continue;
    std::uint32_t xi = 0, wi = 0, gi = 0;
    std::memcpy(&xi, x.bytes.data() + i * item, item);
    std::memcpy(&wi, want.bytes.data() + i * item, item);
    std::memcpy(&gi, got.bytes.data() + i * item, item);
    const Dtype f = x.dtype == "<f4" ? Dtype::f32 : x.dtype == "<f2" ? Dtype::f16 : Dtype::bf16;
    const double xf = value_of_bits(f, xi), wf = value_of_bits(f, wi), gf = value_of_bits(f, gi);
    char buf[256];
    std::snprintf(buf, sizeof buf, "element %zu: input %a (0x%08x), library %a (0x%08x), cli %a (0x%08x)", i, xf, xi,
                  wf, wi, gf, gi);
    return buf;
  }
  return "no difference";
}

struct RoundTrip {
  const char* dtype;   // --dtype
  const char* layout;  // --layout
  const char* flags;   // spectrum flags
  std::vector<std::int64_t> shape;
  Spectrum spectrum;   // what the flags must resolve to
};

TEST_F(ApplyCommand, OutputIsTheLibraryKernelsBitForBit) {
  // Positions: zero, negatives (allowed: the rotation is defined for them), out of order, repeats,
  // and far positions up to 2^40 and the int64 extremes.
  const std::vector<std::int64_t> positions = {0, 1, -7, 4095, std::int64_t{1} << 40, 123456789, 1, INT64_MAX, INT64_MIN + 1, -1};
  const RoundTrip cases[] = {
      {"f32", "interleaved", "", {10, 3, 8}, Spectrum(8, "10000")},
      {"f32", "half", "--p-rope 0.5 --theta 500000", {2, 10, 3, 8}, Spectrum(8, "500000", Variant::p_rope, "0.5")},
      {"bf16", "interleaved", "--dim 8", {10, 8}, Spectrum(8, "10000")},
      {"bf16", "half", "--partial 0.5", {2, 1, 10, 2, 8}, Spectrum(8, "10000", Variant::partial, "0.5")},
      {"f16", "interleaved", "--dim 8", {10, 8}, Spectrum(8, "10000")},
      {"f16", "half", "--p-rope 0.5", {2, 10, 3, 8}, Spectrum(8, "10000", Variant::p_rope, "0.5")},
      {"f32", "half", "--nope", {10, 2, 8}, Spectrum(8, "10000", Variant::nope)},
  };
  std::uint64_t stream = 0;
  for (const RoundTrip& c : cases) {
    SCOPED_TRACE(std::string(c.dtype) + " " + c.layout + " " + c.flags + " seed " + std::to_string(kSeed) + " stream " +
                 std::to_string(stream));
    const NpyArray x = random_tensor(std::string(dtype_info(parse_dtype(c.dtype, "dtype", kKernelDtypes)).npy), c.shape, stream++);
    write_npy(path("x.npy"), x, "x");
    write_npy(path("p.npy"), int64_array(positions), "p");
    const std::string args = std::string("apply --dtype ") + c.dtype + " --layout " + c.layout + " " + c.flags +
                             " --positions " + path("p.npy") + " --input " + path("x.npy") + " --output " + path("y.npy");
    const test::CliRun r = run_cli(args, true);
    ASSERT_EQ(r.status, 0) << args << "\n" << r.out;
    EXPECT_EQ(r.out, "") << "apply prints nothing on success without --verbose";
    const NpyArray y = read_npy(path("y.npy"), "y", {x.dtype});
    EXPECT_EQ(y.shape, x.shape);
    const kernel::RopePlan plan(c.spectrum, kernel::parse_layout(c.layout, "layout"));
    const NpyArray want = library_rotation(plan, x, positions);
    EXPECT_TRUE(y.bytes == want.bytes) << first_difference(x, want, y);
    if (std::string(c.flags) == "--nope") {
      EXPECT_TRUE(y.bytes == x.bytes) << "nope is the identity bit for bit";
    }
  }
}

TEST_F(ApplyCommand, ImplWritesTheBaselineStrategiesOutputs) {
  // --impl f32-angle / f64-angle: the baselines' bits (so that `audit` can be shown what a float
  // angle does), and they differ from the kernel's at far positions.
  const std::vector<std::int64_t> positions = {0, 1, 4096, 1000000, std::int64_t{1} << 31};
  const NpyArray x = random_tensor("<f4", {5, 2, 16}, 400);
  write_npy(path("x.npy"), x, "x");
  write_npy(path("p.npy"), int64_array(positions), "p");
  const kernel::RopePlan plan(Spectrum(16, "10000"), kernel::Layout::half);
  std::vector<float> in(x.bytes.size() / 4), want(in.size());
  std::memcpy(in.data(), x.bytes.data(), x.bytes.size());
  for (const auto& [impl, baseline] : {std::pair{"f32-angle", accuracy::Implementation::f32_angle}, std::pair{"f64-angle", accuracy::Implementation::f64_angle}}) {
    const test::CliRun r = run_cli(std::string("apply --dtype f32 --layout half --impl ") + impl + " --positions " +
                                       path("p.npy") + " --input " + path("x.npy") + " --output " + path("y.npy"),
                                   true);
    ASSERT_EQ(r.status, 0) << r.out;
    accuracy::apply_rope_baseline(baseline, plan, positions, kernel::dense_view<const float>(in.data(), 5, 2, 16),
                                kernel::dense_view<float>(want.data(), 5, 2, 16));
    const NpyArray y = read_npy(path("y.npy"), "y", {"<f4"});
    EXPECT_EQ(std::memcmp(y.bytes.data(), want.data(), y.bytes.size()), 0) << impl;
    fs::remove(path("y.npy"));
  }
}

TEST_F(ApplyCommand, TwoThreadsWriteTheSameBytesAsOne) {
  std::vector<std::int64_t> positions(97);
  for (size_t i = 0; i < positions.size(); ++i) positions[i] = static_cast<std::int64_t>(i * i * 1000003) - 5000;
  for (const char* dtype : {"f32", "bf16", "f16"}) {
    SCOPED_TRACE(std::string(dtype) + " seed " + std::to_string(kSeed) + " stream 100");
    write_npy(path("x.npy"), random_tensor(std::string(dtype_info(parse_dtype(dtype, "dtype", kKernelDtypes)).npy), {97, 4, 16}, 100), "x");
    write_npy(path("p.npy"), int64_array(positions), "p");
    std::string files[2];
    for (int threads = 1; threads <= 2; ++threads) {
      const std::string out = path("y" + std::to_string(threads) + ".npy");
      const test::CliRun r = run_cli(std::string("apply --dtype ") + dtype + " --layout half --threads " +
                                         std::to_string(threads) + " --positions " + path("p.npy") + " --input " +
                                         path("x.npy") + " --output " + out,
                                     true);
      ASSERT_EQ(r.status, 0) << r.out;
      std::ifstream in(out, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      files[threads - 1] = ss.str();
    }
    EXPECT_GT(files[0].size(), 97u * 4 * 16 * 2);
    EXPECT_TRUE(files[0] == files[1]) << "--threads 2 differs from --threads 1";
  }
}

TEST_F(ApplyCommand, VerboseNamesThePathAndTheSize) {
  write_npy(path("x.npy"), random_tensor("<f4", {3, 8}, 200), "x");
  write_npy(path("p.npy"), int64_array({0, 1, 2}), "p");
  const test::CliRun r = run_cli("apply --dtype f32 --layout interleaved --verbose --positions " + path("p.npy") +
                                     " --input " + path("x.npy") + " --output " + path("y.npy"),
                                 false);
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("path " + cpu::path_name(cpu::default_path())), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tokens 3"), std::string::npos) << r.out;
}

TEST_F(ApplyCommand, BadInputIsOneLineExitTwoAndNoOutputFile) {
  write_npy(path("x.npy"), random_tensor("<f4", {4, 2, 8}, 300), "x");            // good f32 [4, 2, 8]
  write_npy(path("odd.npy"), random_tensor("<f4", {4, 7}, 301), "x");             // head_dim 7
  write_npy(path("rank1.npy"), random_tensor("<f4", {8}, 302), "x");
  write_npy(path("p.npy"), int64_array({0, 1, 2, 3}), "p");
  write_npy(path("p3.npy"), int64_array({0, 1, 2}), "p");
  NpyArray nan_positions;
  nan_positions.dtype = "<f8";
  nan_positions.shape = {4};
  const double nan_values[4] = {0, 1, std::nan(""), 3};
  nan_positions.bytes.assign(reinterpret_cast<const unsigned char*>(nan_values), reinterpret_cast<const unsigned char*>(nan_values) + 32);
  write_npy(path("pnan.npy"), nan_positions, "p");
  {
    std::ifstream in(path("x.npy"), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string full = ss.str();
    std::ofstream(path("short.npy"), std::ios::binary) << full.substr(0, full.size() - 100);
    std::string be = full;
    be.replace(be.find("<f4"), 3, ">f4");
    std::ofstream(path("be.npy"), std::ios::binary) << be;
  }
  const std::string P = " --positions " + path("p.npy");
  const std::string X = " --input " + path("x.npy");
  const std::string Y = " --output " + path("y.npy");
  struct Case {
    std::string args;
    std::vector<std::string> names;  // what the one line must name
  };
  const Case cases[] = {
      {"apply --dtype f32 --layout half" + P + " --input " + path("odd.npy") + Y, {"--input", "head_dim", "(4, 7)"}},
      {"apply --dtype f32 --layout half" + P + " --input " + path("rank1.npy") + Y, {"--input", "(8,)"}},
      {"apply --dtype f32 --layout half --positions " + path("p3.npy") + X + Y, {"--positions", "4 positions", "3 positions"}},
      {"apply --dtype f32 --layout half --positions " + path("pnan.npy") + X + Y, {"--positions", "nan at index 2"}},
      {"apply --dtype bf16 --layout half" + P + X + Y, {"--input", "'<u2'", "'<f4'"}},
      {"apply --dtype f32 --layout half" + P + " --input " + path("short.npy") + Y, {"--input", "truncated", "needs 256 bytes of data, found 156"}},
      {"apply --dtype f32 --layout half" + P + " --input " + path("be.npy") + Y, {"--input", "big-endian"}},
      {"apply --dtype f32 --layout half" + P + " --input " + path("missing.npy") + Y, {"--input", "missing.npy"}},
      {"apply --dtype f32 --layout half --positions " + path("missing.npy") + X + Y, {"--positions", "missing.npy"}},
      {"apply --dtype f32 --layout half --threads 0" + P + X + Y, {"--threads", "[1, 256]"}},
      {"apply --dtype f32 --layout half --threads 257" + P + X + Y, {"--threads", "[1, 256]"}},
      {"apply --dtype f32 --layout half --threads two" + P + X + Y, {"--threads"}},
      {"apply --dtype f32 --layout half --dim 16" + P + X + Y, {"--dim", "head_dim", "8", "d=16"}},
      {"apply --dtype f32 --layout half --config gemma-2b" + P + X + Y, {"--config", "8", "d=256"}},
      {"apply --dtype f64 --layout half" + P + X + Y, {"--dtype", "f32, bf16 or f16"}},
      {"apply --dtype f16 --layout half" + P + X + Y, {"--input", "'<f2'", "'<f4'"}},
      {"apply --dtype f32 --layout diagonal" + P + X + Y, {"--layout", "diagonal"}},
      {"apply --dtype f32 --layout half --impl llama" + P + X + Y, {"--impl", "f32-angle", "llama"}},
      {"apply --dtype f32 --layout half --theta 1" + P + X + Y, {"--theta"}},
      {"apply --dtype f32 --layout half" + P + X, {"--output"}},
      {"apply --dtype f32 --layout half" + P + X + " --output /nonexistent-ropecheck-dir/y.npy", {"--output"}},
  };
  for (const Case& c : cases) {
    const test::CliRun r = run_cli(c.args, true);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << c.args << "\n" << r.out;
    for (const std::string& name : c.names) EXPECT_NE(r.out.find(name), std::string::npos) << c.args << "\n" << r.out;
    EXPECT_EQ(r.out.find("terminate"), std::string::npos) << c.args << "\n" << r.out;
    EXPECT_FALSE(fs::exists(path("y.npy"))) << c.args;
  }
  // Nothing but the inputs is left in the directory: no temporary from an atomic write.
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++entries;
  EXPECT_EQ(entries, 8);
}

}  // namespace
}  // namespace ropecheck
