// `ropecheck audit` end to end through the built binary: it reports the float32-angle baseline's
// error growing with position (the issue's "done when"), is identical for any --threads, honours
// --max-ulp, and rejects every bad input with exit 2 and one line naming the input.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <bit>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/small_float_bits.h"
#include "io/npy.h"
#include "accuracy/baselines.h"
#include "numeric/small_floats.h"
#include "random/counter_rng.h"
#include "spectrum/request.h"
#include "run_cli.h"
#include "tests/support/files.h"

namespace ropecheck {
namespace {

namespace fs = std::filesystem;

using CliOutput = ropecheck::test::CliStreams;
CliOutput run_cli_in(const std::string& args, const fs::path&) { return ropecheck::test::run_cli_streams(args); }

template <typename T>
NpyArray array_of(const std::string& dtype, std::vector<std::int64_t> shape, const std::vector<T>& v) {
  NpyArray a;
  a.dtype = dtype;
  a.shape = std::move(shape);
  a.bytes.resize(v.size() * sizeof(T));
  std::memcpy(a.bytes.data(), v.data(), a.bytes.size());
  return a;
}

class AuditCommand : public ::testing::Test {
 protected:
  // [tokens 16][heads 2][d 32] moderate inputs; positions 8 in [10, 100), 8 in [1e6, 1e7); the
  // f32-angle baseline's output.
  void SetUp() override {
    dir_ = test::fresh_dir(std::string("audit_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    const int d = 32, heads = 2;
    for (int i = 0; i < 8; ++i) positions_.push_back(12 + 10 * i);
    for (int i = 0; i < 8; ++i) positions_.push_back(1000003 + 1000033 * i);
    const auto tokens = static_cast<std::int64_t>(positions_.size());
    const CounterRng rng(4, 0);
    std::vector<float> x(static_cast<size_t>(tokens * heads * d)), y(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      const std::uint64_t b = rng.bits(i);
      x[i] = std::bit_cast<float>((static_cast<std::uint32_t>(b) & 0x807FFFFFu) | (static_cast<std::uint32_t>(124 + (b >> 40) % 7) << 23));
    }
    const kernel::RopePlan plan(Spectrum(d, "10000"), kernel::Layout::half);
    accuracy::apply_rope_baseline(accuracy::Implementation::f32_angle, plan, positions_, kernel::dense_view<const float>(x.data(), tokens, heads, d),
                                kernel::dense_view<float>(y.data(), tokens, heads, d));
    write_npy(path("x.npy"), array_of("<f4", {tokens, heads, d}, x), "x");
    write_npy(path("y.npy"), array_of("<f4", {tokens, heads, d}, y), "y");
    write_npy(path("p.npy"), array_of("<i8", {tokens}, positions_), "p");
    write_npy(path("p_short.npy"), array_of("<i8", {tokens - 1}, std::vector<std::int64_t>(positions_.begin(), positions_.end() - 1)), "p");
    write_npy(path("y_flat.npy"), array_of("<f4", {tokens * heads, d}, y), "y");
    std::vector<std::uint16_t> half(x.size(), 0x3F80);
    write_npy(path("bf16.npy"), array_of("<u2", {tokens, heads, d}, half), "b");
    std::vector<float> odd(static_cast<size_t>(tokens * 3), 1.0f);
    write_npy(path("odd.npy"), array_of("<f4", {tokens, 3}, odd), "o");
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string base_args() const {
    return "audit --input " + path("x.npy") + " --positions " + path("p.npy") + " --output " + path("y.npy") + " --layout half";
  }

  fs::path dir_;
  std::vector<std::int64_t> positions_;
};

TEST_F(AuditCommand, ReportsTheF32AngleBaselinesGrowingError) {
  const CliOutput r = run_cli_in(base_args() + " --json " + path("a.json"), dir_);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("ulp floored at 2^-24 x pair norm"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("worst element: position"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0x"), std::string::npos) << r.out;  // inputs in hex
  std::ifstream in(path("a.json"));
  const nlohmann::json j = nlohmann::json::parse(in);
  double near = -1, far = -1;
  for (const nlohmann::json& d : j["errors"]["decades"]) {
    if (d["positions"] == "[10, 100)") near = d["max_ulps"].get<double>();
    if (d["positions"] == "[1e6, 1e7)") far = d["max_ulps"].get<double>();
  }
  ASSERT_GE(near, 0) << j.dump(2);
  ASSERT_GE(far, 0) << j.dump(2);
  EXPECT_GT(far, 100 * near) << r.out;  // the angle error grows ~1e4-fold between the decades
  EXPECT_EQ(j["errors"]["elements"], 16 * 2 * 32);
  EXPECT_EQ(j["heads"], 2);
}

TEST_F(AuditCommand, ThreadsDoNotChangeTheReportAndMaxUlpSetsTheExitCode) {
  const CliOutput one = run_cli_in(base_args(), dir_);
  const CliOutput three = run_cli_in(base_args() + " --threads 3", dir_);
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_EQ(one.out, three.out);
  EXPECT_EQ(run_cli_in(base_args() + " --max-ulp 0.6", dir_).status, 1);
  EXPECT_EQ(run_cli_in(base_args() + " --max-ulp 1e30", dir_).status, 0);
  // [tokens * heads, d] is read as [tokens, d] with one head: 32 tokens, but 16 positions.
  const CliOutput flat = run_cli_in("audit --input " + path("y_flat.npy") + " --positions " + path("p.npy") + " --output " + path("y_flat.npy") + " --layout half", dir_);
  EXPECT_EQ(flat.status, 2);
  EXPECT_NE(flat.err.find("--positions"), std::string::npos) << flat.err;
}

TEST_F(AuditCommand, BadInputIsOneLineAndExit2) {
  struct Case {
    std::string args, names;
  };
  const std::string in = " --input " + path("x.npy"), pos = " --positions " + path("p.npy"), out = " --output " + path("y.npy");
  const Case cases[] = {
      {"audit" + in + pos + " --output " + path("y_flat.npy") + " --layout half", "--output"},       // shapes differ
      {"audit" + in + pos + out + " --layout half --dtype bf16", "--input"},                          // dtype
      {"audit --input " + path("bf16.npy") + pos + out + " --layout half --dtype bf16", "--output"},  // output dtype
      {"audit" + in + " --positions " + path("p_short.npy") + out + " --layout half", "--positions"},
      {"audit --input " + path("odd.npy") + pos + " --output " + path("odd.npy") + " --layout half", "--input"},
      {"audit" + in + pos + out + " --layout half --dim 64", "--dim"},
      {"audit" + in + pos + out + " --layout diagonal", "--layout"},
      {"audit" + in + pos + out + " --layout half --dtype f64", "--dtype"},
      {"audit" + in + pos + out + " --layout half --dtype f16", "--input"},                           // an f32 file
      {"audit" + in + pos + out + " --layout half --threads 0", "--threads"},
      {"audit" + in + pos + out + " --layout half --max-ulp -1", "--max-ulp"},
      {"audit" + in + pos + out + " --layout half --precision 20", "--precision"},
      {"audit --input " + path("missing.npy") + pos + out + " --layout half", "--input"},
      {"audit" + in + pos + " --layout half", "--output"},  // required
      {"audit" + in + pos + out + " --layout half --json /nonexistent-ropecheck-dir/a.json", "--json"},
  };
  for (const Case& c : cases) {
    const CliOutput r = run_cli_in(c.args, dir_);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.names), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << c.args << "\n" << r.out;
  }
}

// `audit --model`: the kernel's own output written by `apply --model` is 100% bit-identical to the
// correctly rounded exact map (attention factor, rotary part at its offset, pass-through copied),
// the f32-angle baseline's error grows with position, the axis orders of Hugging Face and vLLM read
// the same figures as the kernel's own order, and positions beyond 2^24, 2^31 go through untouched.
class AuditModel : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::fresh_dir(std::string("audit_model_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // Moderate floats, with an infinity and a NaN carrying a payload among them.
  static std::vector<float> inputs(std::size_t n, std::uint64_t seed) {
    const CounterRng rng(seed, 0);
    std::vector<float> x(n);
    for (size_t i = 0; i < n; ++i) {
      const std::uint64_t b = rng.bits(i);
      x[i] = std::bit_cast<float>((static_cast<std::uint32_t>(b) & 0x807FFFFFu) | (static_cast<std::uint32_t>(120 + (b >> 40) % 12) << 23));
    }
    if (n > 8) {
      x[1] = INFINITY;
      x[6] = std::bit_cast<float>(0x7FC05678u);
      x[7] = 0.0f;
    }
    return x;
  }
  // Writes x.npy ([1, tokens, heads, d] f32) and p.npy; returns x.
  std::vector<float> write_inputs(const std::vector<std::int64_t>& positions, std::int64_t heads, std::int64_t d, std::uint64_t seed,
                                  const std::string& x_name = "x.npy", const std::string& p_name = "p.npy") {
    const auto tokens = static_cast<std::int64_t>(positions.size());
    const std::vector<float> x = inputs(static_cast<size_t>(tokens * heads * d), seed);
    write_npy(path(x_name), array_of("<f4", {1, tokens, heads, d}, x), "x");
    write_npy(path(p_name), array_of("<i8", {tokens}, positions), "p");
    return x;
  }
  static int head_dim_of(const std::string& model) {
    SpectrumRequest r;
    r.model = model;
    return resolve(r).layer->head_dim;
  }
  nlohmann::json audit(const std::string& args, std::string* out = nullptr) {
    const CliOutput r = run_cli_in("audit " + args + " --json " + path("a.json"), dir_);
    EXPECT_EQ(r.status, 0) << args << "\n" << r.err;
    if (out) *out = r.out;
    std::ifstream in(path("a.json"));
    return nlohmann::json::parse(in);
  }

  fs::path dir_;
};

const std::vector<std::int64_t> kLargePositions = {0, 5, 4097, (std::int64_t{1} << 24) + 3, (std::int64_t{1} << 31) + 5,
                                                   std::int64_t{1} << 33, (std::int64_t{1} << 62) - 3};

TEST_F(AuditModel, KernelOutputOfEveryModelGeometryIsBitIdentical) {
  // YaRN (gpt-oss-20b, qwen2.5-7b-yarn), LongRoPE (phi-3.5-mini), MLA (deepseek-v3: rope part at
  // channel 128), NeoX partial (gpt-neox-20b), GLM's interleaved first half (glm-4-9b).
  for (const std::string model : {"gpt-oss-20b", "qwen2.5-7b-yarn", "phi-3.5-mini", "deepseek-v3", "gpt-neox-20b", "glm-4-9b"}) {
    const int d = head_dim_of(model);
    write_inputs(kLargePositions, 2, d, 51);
    const std::string files = " --input " + path("x.npy") + " --positions " + path("p.npy");
    const CliOutput applied = run_cli_in("apply --dtype f32 --model " + model + files + " --output " + path("y.npy"), dir_);
    ASSERT_EQ(applied.status, 0) << model << ": " << applied.err;
    std::string out;
    const nlohmann::json j = audit("--model " + model + files + " --output " + path("y.npy"), &out);
    const nlohmann::json& e = j["errors"];
    EXPECT_EQ(e["correctly_rounded"], e["elements"]) << model << "\n" << out;
    EXPECT_EQ(e["undecided"], 0) << model;
    EXPECT_EQ(e["pass_through_mismatches"], 0) << model;
    EXPECT_EQ(e["special_mismatches"], 0) << model;
    EXPECT_GT(e["specials"].get<int>(), 0) << model;
    EXPECT_EQ(j["bit_identical_share"], 1.0) << model;
    EXPECT_EQ(j["positions"][1], (std::int64_t{1} << 62) - 3) << model;
    EXPECT_NE(out.find("bit-identical       100.000000%"), std::string::npos) << model << "\n" << out;
    EXPECT_NE(out.find("model: " + model + "/"), std::string::npos) << out;
    if (model == "deepseek-v3") {
      EXPECT_EQ(j["rotary_offset"], 128);
    }
    if (model == "gpt-oss-20b") {
      EXPECT_NE(out.find("attention factor a = 1.34657"), std::string::npos) << out;
    }
  }
}

TEST_F(AuditModel, Bf16KernelOutputOfAYarnModelIsBitIdentical) {
  const int d = head_dim_of("gpt-oss-20b");
  const std::vector<float> x = inputs(static_cast<size_t>(kLargePositions.size() * 2 * d), 53);
  std::vector<std::uint16_t> xb(x.size());
  for (size_t i = 0; i < x.size(); ++i) xb[i] = bf16_bits(x[i]);
  write_npy(path("x.npy"), array_of("<u2", {static_cast<std::int64_t>(kLargePositions.size()), 2, d}, xb), "x");
  write_npy(path("p.npy"), array_of("<i8", {static_cast<std::int64_t>(kLargePositions.size())}, kLargePositions), "p");
  const std::string files = " --input " + path("x.npy") + " --positions " + path("p.npy");
  ASSERT_EQ(run_cli_in("apply --dtype bf16 --model gpt-oss-20b" + files + " --output " + path("y.npy"), dir_).status, 0);
  const nlohmann::json j = audit("--dtype bf16 --model gpt-oss-20b" + files + " --output " + path("y.npy"));
  EXPECT_EQ(j["errors"]["correctly_rounded"], j["errors"]["elements"]) << j.dump(2);
  EXPECT_EQ(j["errors"]["format"], "bf16");
}

TEST_F(AuditModel, F32AngleBaselineOfYarnAndLongRopeModelsGrowsWithPosition) {
  std::vector<std::int64_t> positions;
  for (int i = 0; i < 6; ++i) positions.push_back(12 + 13 * i);
  for (int i = 0; i < 6; ++i) positions.push_back(1000003 + 1000033 * i);
  for (const std::string model : {"qwen2.5-7b-yarn", "phi-3.5-mini"}) {
    write_inputs(positions, 1, head_dim_of(model), 55);
    const std::string files = " --input " + path("x.npy") + " --positions " + path("p.npy");
    ASSERT_EQ(run_cli_in("apply --dtype f32 --impl f32-angle --model " + model + files + " --output " + path("y.npy"), dir_).status, 0);
    std::string out;
    const nlohmann::json j = audit("--model " + model + files + " --output " + path("y.npy"), &out);
    double near = -1, far = -1;
    for (const nlohmann::json& dec : j["errors"]["decades"]) {
      if (dec["positions"] == "[10, 100)") near = dec["max_ulps"].get<double>();
      if (dec["positions"] == "[1e6, 1e7)") far = dec["max_ulps"].get<double>();
    }
    ASSERT_GE(near, 0) << out;
    ASSERT_GT(far, 0) << out;
    // The factor is applied: positions below 78 in [10, 100), so even granting the float32
    // frequency 2^-16 relative error the angle is off by < 78 * 2^-16 + 2^-18 (half an ulp of an
    // angle below 128) < 2^-9.7 rad, an output error < a 2^-9.7 ||x|| < 2.4e4 floored ulps (a < 1.2);
    // an output without the factor would be off by (a - 1) 2^24 > 2.3e6 (a = 1.139 and 1.190).
    // And the float32 angle's error grows with the position.
    EXPECT_LT(near, 1e5) << model << "\n" << out;
    EXPECT_GT(far, 100 * near) << model << "\n" << out;
    EXPECT_LT(j["bit_identical_share"].get<double>(), 1.0) << model;
  }
}

// Hugging Face holds q and k as [batch, heads, seq, head_dim]: --axes bhsd reads such a file
// directly, with the same figures as the transposed [batch, seq, heads, head_dim] file; positions
// may be one per batch row ([batch, seq], HF's position_ids).
TEST_F(AuditModel, BhsdAxesGiveTheFiguresOfTheTransposedBshdFile) {
  const std::string model = "phi-3.5-mini";
  const std::int64_t d = head_dim_of(model), heads = 3, batch = 2;
  const std::vector<std::int64_t> p0 = {0, 9, 70000, (std::int64_t{1} << 31) + 1}, p1 = {1, 2, 3, 4};
  const auto tokens = static_cast<std::int64_t>(p0.size());
  write_inputs(p0, heads, d, 57, "x0.npy", "p0.npy");
  write_inputs(p1, heads, d, 58, "x1.npy", "p1.npy");
  for (const char* b : {"0", "1"})
    ASSERT_EQ(run_cli_in("apply --dtype f32 --model " + model + " --input " + path(std::string("x") + b + ".npy") + " --positions " +
                          path(std::string("p") + b + ".npy") + " --output " + path(std::string("y") + b + ".npy"), dir_).status, 0);
  auto load = [&](const std::string& name) {
    const NpyArray a = read_npy(path(name), "t", {"<f4"});
    std::vector<float> v(a.bytes.size() / 4);
    std::memcpy(v.data(), a.bytes.data(), a.bytes.size());
    return v;
  };
  // bshd [2, T, H, d] (batch row b at positions p_b) and its transpose bhsd [2, H, T, d].
  std::vector<float> xs = load("x0.npy"), ys = load("y0.npy");
  const std::vector<float> x1 = load("x1.npy"), y1 = load("y1.npy");
  xs.insert(xs.end(), x1.begin(), x1.end());
  ys.insert(ys.end(), y1.begin(), y1.end());
  std::vector<float> xt(xs.size()), yt(ys.size());
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::int64_t t = 0; t < tokens; ++t)
      for (std::int64_t h = 0; h < heads; ++h)
        for (std::int64_t e = 0; e < d; ++e) {
          const auto from = static_cast<size_t>(((b * tokens + t) * heads + h) * d + e);
          const auto to = static_cast<size_t>(((b * heads + h) * tokens + t) * d + e);
          xt[to] = xs[from];
          yt[to] = ys[from];
        }
  std::vector<std::int64_t> rows = p0;
  rows.insert(rows.end(), p1.begin(), p1.end());
  write_npy(path("xs.npy"), array_of("<f4", {batch, tokens, heads, d}, xs), "x");
  write_npy(path("ys.npy"), array_of("<f4", {batch, tokens, heads, d}, ys), "y");
  write_npy(path("xt.npy"), array_of("<f4", {batch, heads, tokens, d}, xt), "x");
  write_npy(path("yt.npy"), array_of("<f4", {batch, heads, tokens, d}, yt), "y");
  write_npy(path("rows.npy"), array_of("<i8", {batch, tokens}, rows), "p");
  const std::string pos = " --positions " + path("rows.npy");
  const nlohmann::json s = audit("--model " + model + " --axes bshd --input " + path("xs.npy") + pos + " --output " + path("ys.npy"));
  const nlohmann::json t = audit("--model " + model + " --axes bhsd --input " + path("xt.npy") + pos + " --output " + path("yt.npy"));
  EXPECT_EQ(s["errors"], t["errors"]);
  EXPECT_EQ(t["errors"]["correctly_rounded"], t["errors"]["elements"]) << t.dump(2);
  EXPECT_EQ(t["heads"], heads);
  EXPECT_EQ(t["tokens"], tokens);
  EXPECT_EQ(t["batch"], batch);
  EXPECT_EQ(t["positions_per_row"], true);
  EXPECT_EQ(t["axes"], "bhsd");
  // A slip in the transposed file is found at its (batch, token, head), not at a permuted one.
  yt[static_cast<size_t>(((1 * heads + 2) * tokens + 3) * d + d / 2 - 1)] *= 1.5f;
  write_npy(path("yt.npy"), array_of("<f4", {batch, heads, tokens, d}, yt), "y");
  std::string out;
  const nlohmann::json bad = audit("--model " + model + " --axes bhsd --input " + path("xt.npy") + pos + " --output " + path("yt.npy"), &out);
  EXPECT_NE(out.find("at batch 1, token 3, head 2"), std::string::npos) << out;
  EXPECT_EQ(bad["errors"]["worst"]["position"], 4);
}

// vLLM passes q and k as [num_tokens, heads * head_size] (or viewed [num_tokens, heads, head_size]):
// --axes sd splits the heads by the model's head_dim; the figures are those of --axes shd.
TEST_F(AuditModel, SdAxesReadVllmsFlattenedHeads) {
  const std::string model = "gpt-neox-20b";
  const std::int64_t d = head_dim_of(model), heads = 2;
  const std::vector<float> x = write_inputs(kLargePositions, heads, d, 59);
  const std::string files = " --input " + path("x.npy") + " --positions " + path("p.npy");
  ASSERT_EQ(run_cli_in("apply --dtype f32 --model " + model + files + " --output " + path("y.npy"), dir_).status, 0);
  const NpyArray y = read_npy(path("y.npy"), "y", {"<f4"});
  const auto tokens = static_cast<std::int64_t>(kLargePositions.size());
  NpyArray flat = y;
  flat.shape = {tokens, heads * d};
  write_npy(path("y_sd.npy"), flat, "y");
  flat.shape = {tokens, heads, d};
  write_npy(path("y_shd.npy"), flat, "y");
  write_npy(path("x_sd.npy"), array_of("<f4", {tokens, heads * d}, x), "x");
  write_npy(path("x_shd.npy"), array_of("<f4", {tokens, heads, d}, x), "x");
  const std::string pos = " --positions " + path("p.npy");
  const nlohmann::json sd = audit("--model " + model + " --axes sd --input " + path("x_sd.npy") + pos + " --output " + path("y_sd.npy"));
  const nlohmann::json shd = audit("--model " + model + " --axes shd --input " + path("x_shd.npy") + pos + " --output " + path("y_shd.npy"));
  EXPECT_EQ(sd["errors"], shd["errors"]);
  EXPECT_EQ(sd["heads"], heads);
  EXPECT_EQ(sd["errors"]["correctly_rounded"], sd["errors"]["elements"]);
}

TEST_F(AuditModel, BadInputIsOneLineAndExit2) {
  const int d = head_dim_of("gpt-oss-20b");
  write_inputs({1, 2, 3}, 2, d, 61);
  write_inputs({1, 2, 3}, 2, 32, 62, "x32.npy", "p32.npy");
  const std::vector<float> far = {1.0f, 2.0f, 16777218.0f};  // 2^24 + 2: a float32, but maybe a rounding
  write_npy(path("pf.npy"), array_of("<f4", {3}, far), "p");
  ASSERT_EQ(run_cli_in("apply --dtype f32 --model gpt-oss-20b --input " + path("x.npy") + " --positions " + path("p.npy") + " --output " + path("y.npy"), dir_).status, 0);
  // Configs the plan refuses: rotary dims beyond the head, an attention factor that is not positive.
  std::ofstream(path("wide.json")) << R"({"model_type": "phi3", "hidden_size": 256, "num_attention_heads": 4, "num_hidden_layers": 2,
    "max_position_embeddings": 4096, "rope_theta": 10000, "partial_rotary_factor": 1.5})";
  std::ofstream(path("negative.json")) << R"({"model_type": "llama", "hidden_size": 256, "num_attention_heads": 4, "num_hidden_layers": 2,
    "max_position_embeddings": 4096, "rope_theta": 10000, "rope_scaling": {"rope_type": "yarn", "factor": 4.0,
    "original_max_position_embeddings": 1024, "attention_factor": -1.0}})";
  std::ofstream(path("huge.json")) << R"({"model_type": "llama", "hidden_size": 256, "num_attention_heads": 4, "num_hidden_layers": 2,
    "max_position_embeddings": 4096, "rope_theta": 10000, "rope_scaling": {"rope_type": "yarn", "factor": 4.0,
    "original_max_position_embeddings": 1024, "attention_factor": 1e300}})";
  struct Case {
    std::string args, names;
  };
  const std::string in = " --input " + path("x.npy"), pos = " --positions " + path("p.npy"), out = " --output " + path("y.npy");
  const Case cases[] = {
      {"audit --model gpt-oss-20b" + in + pos + out + " --axes bsdh", "--axes"},
      {"audit --model gpt-oss-20b" + in + pos + out + " --axes bhsd --layer-type nope", "--layer-type"},
      {"audit --model gpt-oss-20b" + in + pos + out + " --layout interleaved", "--layout"},
      {"audit" + in + pos + out, "--layout"},  // no model, no layout
      {"audit --model gpt-oss-20b --input " + path("x32.npy") + pos + " --output " + path("x32.npy"), "--input"},  // head_dim 32, not 64
      {"audit --model gpt-oss-20b" + in + pos + out + " --axes shd", "--input"},  // rank 4 for shd
      {"audit --model gpt-oss-20b" + in + " --positions " + path("pf.npy") + out, "--positions"},
      {"audit --model no-such-model" + in + pos + out, "--model"},
      {"audit --model " + path("wide.json") + in + pos + out, "partial_rotary_factor"},
      {"audit --model " + path("negative.json") + in + pos + out, "attention"},
      {"audit --model " + path("huge.json") + in + pos + out, "--model"},  // 1e300: the plan's factor must be < 2^64
      {"apply --dtype f32 --model gpt-oss-20b --input " + path("x32.npy") + pos + " --output " + path("z.npy"), "--input"},
      {"apply --dtype f32 --model gpt-oss-20b --layout interleaved" + in + pos + " --output " + path("z.npy"), "--layout"},
      {"apply --dtype f32 --model " + path("negative.json") + in + pos + " --output " + path("z.npy"), "attention"},
      {"apply --dtype f32" + in + " --positions " + path("pf.npy") + " --layout half --output " + path("z.npy"), "--positions"},
  };
  for (const Case& c : cases) {
    const CliOutput r = run_cli_in(c.args, dir_);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.names), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << c.args << "\n" << r.out;
  }
  const CliOutput axes = run_cli_in("audit --model gpt-oss-20b" + in + pos + out + " --axes bsdh", dir_);
  EXPECT_NE(axes.err.find("bhsd"), std::string::npos) << axes.err;  // names the accepted values
  EXPECT_FALSE(fs::exists(path("z.npy")));
}

}  // namespace
}  // namespace ropecheck
