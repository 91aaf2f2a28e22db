// `ropecheck audit` end to end through the built binary: it reports the float32-angle baseline's
// error growing with position (the "done when"), is identical for any --threads, honours
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

#include "io/npy.h"
#include "accuracy/baselines.h"
#include "random/counter_rng.h"
#include "run_cli.h"

namespace ropecheck {
namespace {

namespace fs = std::filesystem;

using CliRun = ropecheck::test::CliStreams;
CliRun run_cli(const std::string& args, const fs::path&) { return ropecheck::test::run_cli_streams(args); }

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
    dir_ = fs::temp_directory_path() / ("ropecheck_audit_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
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
    accuracy::apply_rope_baseline(accuracy::Baseline::f32_angle, plan, positions_, kernel::dense_view<const float>(x.data(), tokens, heads, d),
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
  const CliRun r = run_cli(base_args() + " --json " + path("a.json"), dir_);
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
  const CliRun one = run_cli(base_args(), dir_);
  const CliRun three = run_cli(base_args() + " --threads 3", dir_);
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_EQ(one.out, three.out);
  EXPECT_EQ(run_cli(base_args() + " --max-ulp 0.6", dir_).status, 1);
  EXPECT_EQ(run_cli(base_args() + " --max-ulp 1e30", dir_).status, 0);
  // [tokens * heads, d] is read as [tokens, d] with one head: 32 tokens, but 16 positions.
  const CliRun flat = run_cli("audit --input " + path("y_flat.npy") + " --positions " + path("p.npy") + " --output " + path("y_flat.npy") + " --layout half", dir_);
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
      {"audit" + in + pos + out + " --layout half --dtype f16", "--dtype"},
      {"audit" + in + pos + out + " --layout half --threads 0", "--threads"},
      {"audit" + in + pos + out + " --layout half --max-ulp -1", "--max-ulp"},
      {"audit" + in + pos + out + " --layout half --precision 20", "--precision"},
      {"audit --input " + path("missing.npy") + pos + out + " --layout half", "--input"},
      {"audit" + in + pos + " --layout half", "--output"},  // required
      {"audit" + in + pos + out + " --layout half --json /nonexistent-ropecheck-dir/a.json", "--json"},
  };
  for (const Case& c : cases) {
    const CliRun r = run_cli(c.args, dir_);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.names), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << c.args << "\n" << r.out;
  }
}

}  // namespace
}  // namespace ropecheck
