#include "adversarial/presets.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "adversarial/certify.h"
#include "adversarial/counterexample.h"
#include "adversarial/detail/distance_sweep.h"
#include "io/input_error.h"
#include "io/json_fields.h"
#include "io/printf_string.h"
#include "numeric/mp_handles.h"
#include "numeric/precision.h"
#include "spectrum/frequencies.h"

namespace ropecheck::adversarial {
namespace {

namespace fs = std::filesystem;

// The Appendix E.1 decimals, read the way a file reads them (not the preset's own literals).
double printed(const char* decimal) { return finite_double_value(nlohmann::json(decimal), "test"); }

// q.k of the printed 2-vectors in every listed pair, the key scaled by `scale`, exactly: at 256 bits
// each product of two binary64 values (106 bits) and the sum of at most 16 of them are exact.
void exact_dot(mpfr_t out, const std::vector<int>& pairs, const char* const q[2], const char* const k[2], double scale) {
  Mpfr t(256);
  mpfr_set_zero(out, 1);
  for (size_t p = 0; p < pairs.size(); ++p)
    for (int c = 0; c < 2; ++c) {
      mpfr_set_d(t.v, printed(q[c]), MPFR_RNDN);
      mpfr_mul_d(t.v, t.v, printed(k[c]) * scale, MPFR_RNDN);
      mpfr_add(out, out, t.v, MPFR_RNDN);
    }
}

// Requires the enclosure to contain `exact` and to be at most 2^-100 wide (relative to 1): the
// sweep's only error at distance 0 is its own rounding at 128 bits, cos 0 = 1 and sin 0 = 0 exactly.
void expect_encloses(mpfi_srcptr a, mpfr_srcptr exact, const std::string& what) {
  Mpfr lo(256), hi(256), width(256);
  mpfi_get_left(lo.v, a);
  mpfi_get_right(hi.v, a);
  mpfr_sub(width.v, hi.v, lo.v, MPFR_RNDU);
  const bool inside = mpfr_lessequal_p(lo.v, exact) && mpfr_lessequal_p(exact, hi.v);
  EXPECT_TRUE(inside) << what << ": [" << hex_double(mpfr_get_d(lo.v, MPFR_RNDD)) << ", " << hex_double(mpfr_get_d(hi.v, MPFR_RNDU))
                      << "] misses " << hex_double(mpfr_get_d(exact, MPFR_RNDN));
  EXPECT_LT(mpfr_get_d(width.v, MPFR_RNDU), 0x1p-100) << what;
}

const char* const kQ[2] = {"-4.1", "11.3"};
const char* const kKTarget[2] = {"-2.5", "1.3"};
const char* const kKOther[2] = {"11.2", "-3.5"};

// The activations at distance 0 are q.k of the printed vectors (24.94 and -85.47 up to binary64
// rounding of the decimals): the vectors are in the right pairs, in the right roles, with the
// band's 1/8 exact.
void expect_distance_zero(const Head& h, double scale, const std::string& name) {
  const std::vector<int> pairs = active_chunks(h);
  detail::DistanceSweep sweep(h, {kTarget, distractor(0)}, 128);
  sweep.advance_to(0);
  Mpfr exact(256);
  exact_dot(exact.v, pairs, kQ, kKTarget, scale);
  expect_encloses(sweep.activation(0), exact.v, name + " target");
  // Distance from the decimal 24.94: the binary64 decimals move q.k by at most
  // (|q1 k1| + |q2 k2|)(2^-52 + 2^-106) = 24.94 * 2.2e-16 = 5.6e-15 (both terms positive), and
  // mpfr_get_d and the literal 24.94 each add half an ulp in [16, 32), 2^-49 = 1.8e-15: < 1e-14.
  EXPECT_NEAR(mpfr_get_d(exact.v, MPFR_RNDN), 24.94, 1e-14) << name;
  exact_dot(exact.v, pairs, kQ, kKOther, scale);
  expect_encloses(sweep.activation(1), exact.v, name + " distractor");
  // Both terms negative: 85.47 * 2.2e-16 = 1.9e-14, plus two half ulps in [64, 128), 2 * 2^-47
  // = 1.42e-14: 3.32e-14 < 3.5e-14.
  EXPECT_NEAR(mpfr_get_d(exact.v, MPFR_RNDN), -85.47, 3.5e-14) << name;
}

TEST(Presets, ApostropheIsPair119OfGemmaWithThePrintedVectors) {
  const Head h = preset_head("gemma-7b-apostrophe");
  EXPECT_EQ(h.spectrum.describe(), config_spectrum("gemma-7b").describe());
  EXPECT_EQ(active_chunks(h), std::vector<int>{118});
  // Pair 119 counted from 1, the one proofs/thm-6.1.cpp uses: g = 10000^(-236/256).
  long long e = 0, d = 0;
  h.spectrum.exponent(118, e, d);
  EXPECT_EQ(e, 236);
  EXPECT_EQ(d, 256);
  ASSERT_EQ(h.distractors.size(), 1u);
  EXPECT_FALSE(h.bos.has_value());
  EXPECT_EQ(h.notion, Notion::attention);
  EXPECT_EQ(h.epsilon, "0.1");
  EXPECT_EQ(h.break_at, "0.5");
  expect_distance_zero(h, 1.0, "gemma-7b-apostrophe");
  EXPECT_FALSE(position_free(h));
}

TEST(Presets, BandsUseTheEightLowestFrequencies) {
  for (const char* name : {"gemma-7b-band8", "llama-3.1-8b-band8"}) {
    SCOPED_TRACE(name);
    const Head h = preset_head(name);
    const std::vector<int> pairs = active_chunks(h);
    ASSERT_EQ(pairs.size(), 8u);
    EXPECT_EQ(std::set<int>(pairs.begin(), pairs.end()).size(), 8u);
    EXPECT_EQ(pairs, lowest_pairs(h.spectrum, 8));
    // What the header says, checked against the exact frequencies (next test) rather than assumed.
    const int first = std::string(name) == "gemma-7b-band8" ? 120 : 56;
    for (int i = 0; i < 8; ++i) EXPECT_EQ(pairs[static_cast<size_t>(i)], first + i);
    expect_distance_zero(h, 0.125, name);
    EXPECT_FALSE(position_free(h));
  }
}

TEST(Presets, PRopeVariantsArePositionFreeOnTheSamePairs) {
  for (const char* base : {"gemma-7b-apostrophe", "gemma-7b-band8", "llama-3.1-8b-band8"}) {
    const std::string name = std::string(base) + "-p-rope-0.75";
    SCOPED_TRACE(name);
    const Head rope = preset_head(base);
    const Head h = preset_head(name);
    EXPECT_EQ(h.spectrum.variant(), Variant::p_rope);
    EXPECT_EQ(h.spectrum.fraction(), "0.75");
    EXPECT_EQ(h.spectrum.dim(), rope.spectrum.dim());
    EXPECT_EQ(active_chunks(h), active_chunks(rope));
    for (int p : active_chunks(h)) EXPECT_FALSE(h.spectrum.rotated(p)) << p;
    EXPECT_TRUE(position_free(h));
    const PositionFreeCertificate cert = certify_position_free(h, 1LL << 20);
    EXPECT_EQ(cert.holds, Decision::yes) << cert.reason;
  }
}

TEST(Presets, NamesAndErrors) {
  const std::vector<std::string> names = preset_names();
  EXPECT_EQ(names.size(), 6u);
  for (const auto& n : names) EXPECT_NO_THROW(validate(preset_head(n), n)) << n;
  try {
    preset_head("gemma-7b-apostrophe-typo");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.input(), "--config");
    for (const auto& n : names) EXPECT_NE(std::string(e.what()).find(n), std::string::npos) << e.what();
  }
}

TEST(Presets, LoadHeadReadsPresetsAndFiles) {
  const fs::path dir = fs::temp_directory_path() / ("ropecheck_presets_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const Head preset = preset_head("gemma-7b-band8");
  const nlohmann::json head_json = head_to_json(preset);
  const auto write = [&](const std::string& file, const std::string& text) {
    std::ofstream(dir / file) << text;
    return (dir / file).string();
  };
  const std::string wrapped = write("wrapped.json", nlohmann::json{{"head", head_json}}.dump());
  const std::string bare = write("bare.json", head_json.dump());
  for (const std::string& f : {wrapped, bare}) {
    const Head h = load_head(f);
    EXPECT_EQ(head_to_json(h), head_json) << f;
  }
  EXPECT_EQ(head_to_json(load_head("gemma-7b-band8")), head_json);
  // A counterexample file names its head too.
  Counterexample c;
  c.head = preset;
  c.before = fill_sequence(preset, 10, 3);
  c.swaps = {{7, 8}};
  const std::string cx = write("cx.json", canonical_text(to_json(c)));
  EXPECT_EQ(head_to_json(load_head(cx)), head_json);
  const std::string extra = write("extra.json", nlohmann::json{{"head", head_json}, {"note", 1}}.dump());
  try {
    load_head(extra);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.input(), extra + ": note") << e.what();
  }
  nlohmann::json bad = head_json;
  bad["query"][5] = "NaN";
  const std::string nan_file = write("nan.json", bad.dump());
  try {
    load_head(nan_file);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.input(), nan_file + ": head.query[5]") << e.what();
  }
  const std::string truncated = write("truncated.json", head_json.dump().substr(0, 100));
  try {
    load_head(truncated);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.input(), truncated) << e.what();
  }
  try {
    load_head((dir / "absent.json").string());
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.input(), "--config") << e.what();
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ropecheck::adversarial
