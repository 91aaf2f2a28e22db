#include "proofs/dynamic-ntk-cache.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "io/input_error.h"
#include "numeric/decimal.h"
#include "numeric/precision.h"
#include "random/counter_rng.h"
#include "rotation/rotation.h"
#include "spectrum/frequencies.h"
#include "tests/support/files.h"
#include "tests/support/show.h"

namespace ropecheck::proofs {
namespace {

using test::expect_input_error;

// The claim's default head: LlamaConfig() (d = 128, theta = 10000, M = 2048) with dynamic factor 2.
constexpr long long kM = 2048;
Spectrum example(const std::string& factor = "2.0") {
  Scaling s;
  s.kind = Scaling::Kind::dynamic;
  s.factor = factor;
  s.max_position = kM;
  return Spectrum(128, "10000", Variant::rope, "1", s);
}

// Seeded dyadic q, k (exact in every type), so that w_p != 0 and the sign convention is exercised,
// unlike the claim's all-ones head.
std::vector<double> seeded_vector(std::uint64_t stream, int n) {
  const CounterRng rng(16, stream);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (int t = 0; t < n; ++t) v[static_cast<std::size_t>(t)] = rng.uniform_dyadic(static_cast<std::uint64_t>(t));
  return v;
}

template <Scalar T>
Vector<T> as_vector(const std::vector<double>& v) {
  Vector<T> out(static_cast<Eigen::Index>(v.size()));
  for (std::size_t t = 0; t < v.size(); ++t) out[static_cast<Eigen::Index>(t)] = T(v[t]);
  return out;
}

// transformers' rule transcribed in binary64 (_compute_dynamic_ntk_parameters and the forward,
// without the float32 casts): base' = base * ((f*S/M) - (f-1)) ** (d/(d-2)) when S > M, inv_freq =
// 1/(base' ** (arange(0, d, 2)/d)); then the absolute form: q rotated by i*inv_query, k by
// j*inv_key, dot product. Chunks are (2p, 2p+1); the layout does not change the activation.
std::vector<double> inv_freq_binary64(double base, double factor, long long S, long long M, int d) {
  if (S > M) base = base * std::pow(factor * static_cast<double>(S) / static_cast<double>(M) - (factor - 1), static_cast<double>(d) / (d - 2));
  std::vector<double> inv(static_cast<std::size_t>(d / 2));
  for (int p = 0; p < d / 2; ++p) inv[static_cast<std::size_t>(p)] = 1.0 / std::pow(base, static_cast<double>(2 * p) / d);
  return inv;
}
double absolute_binary64(const std::vector<double>& q, const std::vector<double>& inv_query, long long i, const std::vector<double>& k,
                         const std::vector<double>& inv_key, long long j) {
  double sum = 0;
  for (std::size_t p = 0; p < inv_query.size(); ++p) {
    const double aq = static_cast<double>(i) * inv_query[p], ak = static_cast<double>(j) * inv_key[p];
    const double q1 = std::cos(aq) * q[2 * p] - std::sin(aq) * q[2 * p + 1], q2 = std::sin(aq) * q[2 * p] + std::cos(aq) * q[2 * p + 1];
    const double k1 = std::cos(ak) * k[2 * p] - std::sin(ak) * k[2 * p + 1], k2 = std::sin(ak) * k[2 * p] + std::cos(ak) * k[2 * p + 1];
    sum += q1 * k1 + q2 * k2;
  }
  return sum;
}

// The binary64 route's error bound, derived for |q|, |k| components < 1, d = 128, positions < 2^13:
// - the binary64 frequency carries a relative error <= 8 * 2^-53 (two pow, a product, a division;
//   the exponent d/(d-2) rounded once scales the ratio's pow error by at most ln 4 < 2);
// - the angle n * g (n < 8192, g <= 1) is then off by <= 8192 * 8 * 2^-53 + ulp(8192)/2 < 8.3e-12;
// - libm sin/cos add <= 1 ulp, so each rotated component (two terms of size < 1) is off by < 1.7e-11;
// - each chunk's dot product (two terms, components < 1.5 in size) is off by < 4 * 1.5 * 1.7e-11 ~ 1e-10;
//   64 chunks give < 6.5e-9, and the binary64 sum itself adds < 64 * 128 * 2^-53 * 64 < 6e-11.
// 1e-8 covers it; the effects certified below are >= 0.28, seven orders larger.
constexpr double kBinary64Tolerance = 1e-8;

double distance_to(const Interval& x, double v) {
  if (contains(x, Real(v))) return 0;
  return std::min(std::abs(to_double(lower_of(x)) - v), std::abs(to_double(upper_of(x)) - v));
}

TEST(DynamicNtkCache, NoRecomputeAtOrBelowMaxPositionGivesIdenticalEnclosures) {
  ScopedPrecision bits(256);
  const Spectrum sp = example();
  const auto q = as_vector<Interval>(seeded_vector(1, 128)), k = as_vector<Interval>(seeded_vector(2, 128));
  const PairProducts<Interval> pp = pair_products(q, k);
  for (long long S : {1LL, 1000LL, kM}) {
    const DynamicFrequencies df = transformers_dynamic_frequencies(sp, S);
    EXPECT_FALSE(df.recomputed) << S;
    for (std::size_t p = 0; p < df.change.size(); ++p) EXPECT_TRUE(is_point(df.change[p]) && lower_of(df.change[p]) == 0) << S << " p=" << p;
    for (long long r : {0LL, S / 2, S - 1}) {
      const Interval mixed = mixed_activation(pp, df.original, df.change, S - 1, S - 1 - r);
      const Interval old_base = consistent_activation(pp, df.original, r);
      EXPECT_EQ(lower_of(mixed), lower_of(old_base)) << "S=" << S << " r=" << r << " " << show(mixed) << " vs " << show(old_base);
      EXPECT_EQ(upper_of(mixed), upper_of(old_base)) << "S=" << S << " r=" << r;
    }
  }
  // The claim says so: every row "no recompute", identical enclosures, verdict holds.
  ClaimOptions o;
  o.query_lengths = {1000, kM};
  const auto certs = check_dynamic_ntk_cache(o);
  ASSERT_EQ(certs.size(), 1u);
  EXPECT_EQ(certs[0].verdict, Verdict::holds) << certs[0].details.dump();
  for (const auto& row : certs[0].details.at("rows")) {
    EXPECT_EQ(row.at("mixed_equals_old"), "yes") << row.dump();
    EXPECT_EQ(row.at("identical_enclosures"), true) << row.dump();
    EXPECT_EQ(row.at("a_mixed"), row.at("a_old")) << row.dump();
  }
  EXPECT_NE(certs[0].details.at("table").get<std::string>().find("no recompute: a_mixed = a_old (identical enclosures)"), std::string::npos);
}

TEST(DynamicNtkCache, AboveMaxPositionTheMixedActivationDiffersFromBothBases) {
  const auto certs = check_dynamic_ntk_cache(ClaimOptions{});
  ASSERT_EQ(certs.size(), 1u);
  const Certificate& c = certs[0];
  EXPECT_EQ(c.verdict, Verdict::holds) << c.details.dump();
  EXPECT_EQ(c.parameters.at("query_lengths"), (std::vector<long long>{kM, kM + 1, 2 * kM, 4 * kM}));
  int grown_rows = 0, unrotated_keys = 0;
  for (const auto& row : c.details.at("rows")) {
    if (row.at("S").get<long long>() <= kM) continue;
    ++grown_rows;
    EXPECT_EQ(row.at("mixed_differs_from_old"), "yes") << row.dump();
    if (row.at("j").get<long long>() == 0) {
      ++unrotated_keys;  // R^0 = I in every base: the mixed activation is the fresh one
      EXPECT_EQ(row.at("mixed_equals_new_key_unrotated"), "yes") << row.dump();
    } else {
      EXPECT_EQ(row.at("mixed_differs_from_new"), "yes") << row.dump();
    }
  }
  EXPECT_EQ(grown_rows, 9);
  EXPECT_EQ(unrotated_keys, 3);

  // Directly, on a seeded head: at S = 2M the key at j = 1024 is certainly off both consistent values.
  ScopedPrecision bits(256);
  const Spectrum sp = example();
  const PairProducts<Interval> pp = pair_products(as_vector<Interval>(seeded_vector(1, 128)), as_vector<Interval>(seeded_vector(2, 128)));
  const DynamicFrequencies df = transformers_dynamic_frequencies(sp, 2 * kM);
  ASSERT_TRUE(df.recomputed);
  const long long i = 2 * kM - 1, j = 1024;
  const Interval mixed = mixed_activation(pp, df.original, df.change, i, j);
  const Interval old_base = consistent_activation(pp, df.original, i - j), new_base = consistent_activation(pp, df.query, i - j);
  EXPECT_FALSE(overlaps(mixed, old_base)) << show(mixed) << " vs " << show(old_base);
  EXPECT_FALSE(overlaps(mixed, new_base)) << show(mixed) << " vs " << show(new_base);
}

TEST(DynamicNtkCache, Binary64TranscriptionOfTransformersLandsOnTheEnclosures) {
  ScopedPrecision bits(256);
  const Spectrum sp = example();
  const std::vector<double> q = seeded_vector(1, 128), k = seeded_vector(2, 128);
  const PairProducts<Interval> pp = pair_products(as_vector<Interval>(q), as_vector<Interval>(k));
  const std::vector<double> inv_old = inv_freq_binary64(10000.0, 2.0, kM, kM, 128);
  for (long long S : {kM, kM + 1, 3 * kM, 2 * kM, 4 * kM}) {
    const DynamicFrequencies df = transformers_dynamic_frequencies(sp, S);
    const std::vector<double> inv_new = inv_freq_binary64(10000.0, 2.0, S, kM, 128);
    const long long i = S - 1;
    for (long long j : {kM - 1, kM / 2, 1LL, 0LL}) {
      const double mixed64 = absolute_binary64(q, inv_new, i, k, inv_old, j);
      const double old64 = absolute_binary64(q, inv_old, i, k, inv_old, j);
      const double new64 = absolute_binary64(q, inv_new, i, k, inv_new, j);
      const Interval mixed = mixed_activation(pp, df.original, df.change, i, j);
      EXPECT_LE(distance_to(mixed, mixed64), kBinary64Tolerance) << "S=" << S << " j=" << j << " " << show(mixed) << " vs " << show(mixed64);
      EXPECT_LE(distance_to(consistent_activation(pp, df.original, i - j), old64), kBinary64Tolerance) << "S=" << S << " j=" << j;
      EXPECT_LE(distance_to(consistent_activation(pp, df.query, i - j), new64), kBinary64Tolerance) << "S=" << S << " j=" << j;
    }
  }
}

TEST(DynamicNtkCache, EnclosuresContainThe600BitAbsoluteForm) {
  // MPFR at 600 bits through rotation.h's absolute form (rotate q and k, then dot): another
  // evaluation order than the claim's relative phase (j - i) g - i (g' - g), ~340 bits more precise.
  const Spectrum sp = example();
  const std::vector<double> q = seeded_vector(3, 128), k = seeded_vector(4, 128);
  const long long S = 3 * kM, i = S - 1;
  Scaling grown = sp.scaling();
  grown.sequence_length = S;
  std::vector<Real> reference;
  {
    ScopedPrecision bits(600);
    const std::vector<Real> g = frequencies<Real>(Spectrum(128, "10000"));
    const std::vector<Real> g_new = frequencies<Real>(Spectrum(128, "10000", Variant::rope, "1", grown));
    for (long long j : {kM - 1, 7LL}) {
      const Vector<Real> rq = rotate(as_vector<Real>(q), i, g_new), rk = rotate(as_vector<Real>(k), j, g);
      Real sum(0);
      for (Eigen::Index t = 0; t < rq.size(); ++t) sum += Real(rq[t] * rk[t]);
      reference.push_back(sum);
    }
  }
  ScopedPrecision bits(256);
  const DynamicFrequencies df = transformers_dynamic_frequencies(sp, S);
  const PairProducts<Interval> pp = pair_products(as_vector<Interval>(q), as_vector<Interval>(k));
  const long long js[] = {kM - 1, 7};
  for (int t = 0; t < 2; ++t) {
    const Interval mixed = mixed_activation(pp, df.original, df.change, i, js[t]);
    EXPECT_TRUE(contains(mixed, reference[static_cast<std::size_t>(t)])) << "j=" << js[t] << " " << show(mixed) << " ref " << to_decimal(reference[static_cast<std::size_t>(t)], 40);
  }
}

TEST(DynamicNtkCache, PhaseErrorOfTheExtremePairsByHand) {
  // Fastest pair: theta'^0 = theta^0 = 1, so its error is exactly 0. Slowest pair (p = d/2 - 1):
  // theta'^(-(d-2)/d) = theta^(-(d-2)/d) / ratio, ratio = f S/M - (f - 1), so e = i g (1/ratio - 1)
  // exactly: computed here in MPFR at 600 bits from that closed form, not from theta'.
  const Spectrum sp = example();
  Interval previous(0);
  for (long long S : {kM + 1, 2 * kM, 4 * kM, 100 * kM}) {
    const long long i = S - 1;
    Real closed;
    {
      ScopedPrecision bits(600);
      const Real ratio = Real(Real(2) * Real(S) / Real(kM) - 1);
      const Real g = pow(Real(10000), Real(Real(-126) / 128));
      closed = Real(Real(i) * g * (1 / ratio - 1));
    }
    ScopedPrecision bits(256);
    const DynamicFrequencies df = transformers_dynamic_frequencies(sp, S);
    ASSERT_TRUE(df.recomputed);
    EXPECT_TRUE(is_point(df.change[0]) && lower_of(df.change[0]) == 0) << show(df.change[0]);
    const Interval e = Interval(Interval(i) * df.change[63]);
    EXPECT_TRUE(contains(e, closed)) << "S=" << S << " " << show(e) << " closed form " << to_decimal(closed, 40);
    EXPECT_TRUE(certainly_negative(e)) << show(e);
    EXPECT_TRUE(certainly_less(Interval(abs(previous)), Interval(abs(e)))) << "S=" << S;  // grows with the query position
    previous = e;
  }
}

TEST(DynamicNtkCache, VllmStaticBaseIsTransformersBaseAtFactorTimesM) {
  // vLLM evaluates the rule once at S = f M: its frequencies enclose the same numbers as
  // transformers' at that length (and differ from the original ones, even for short sequences).
  ScopedPrecision bits(256);
  const Spectrum sp = example();
  const std::vector<Interval> v = vllm_dynamic_frequencies(sp);
  const DynamicFrequencies at_fM = transformers_dynamic_frequencies(sp, 2 * kM);
  for (std::size_t p = 0; p < v.size(); ++p) EXPECT_TRUE(overlaps(v[p], at_fM.query[p])) << p << " " << show(v[p]) << " " << show(at_fM.query[p]);
  EXPECT_TRUE(certainly_less(v[63], at_fM.original[63]));
  EXPECT_THROW(vllm_dynamic_frequencies(Spectrum(128, "10000")), std::invalid_argument);
  EXPECT_THROW(transformers_dynamic_frequencies(Spectrum(128, "10000"), 5), std::invalid_argument);
  EXPECT_THROW(transformers_dynamic_frequencies(sp, 0), std::invalid_argument);
}

TEST(DynamicNtkCache, ReadsAModelConfigAndItsSequenceLength) {
  test::TempDir dir("dynntk");
  const auto path = dir.path / "config.json";
  test::write_bytes(path, R"({"model_type": "llama", "hidden_size": 256, "num_attention_heads": 4, "num_hidden_layers": 1,
    "max_position_embeddings": 512, "rope_theta": 10000.0, "rope_scaling": {"type": "dynamic", "factor": 4.0}})");
  ClaimOptions o;
  o.spectrum.model = path.string();
  o.spectrum.sequence_length = 1500;  // used as the one query length when --query-length is absent
  const auto certs = check_dynamic_ntk_cache(o);
  ASSERT_EQ(certs.size(), 1u);
  EXPECT_EQ(certs[0].verdict, Verdict::holds) << certs[0].details.dump();
  EXPECT_EQ(certs[0].parameters.at("max_position_M"), 512);
  EXPECT_EQ(certs[0].parameters.at("query_lengths"), std::vector<long long>{1500});
  EXPECT_EQ(certs[0].details.at("rows").size(), 3u);  // the default keys j = M - 1, M/2, 0: r = 988, 1243, 1499
}

TEST(DynamicNtkCache, BadParametersNameTheFlagAndTheAcceptedRange) {
  ClaimOptions o;
  o.distances = {9000};
  expect_input_error([&] { check_dynamic_ntk_cache(o); }, "--distance", {"[6144, 8191] at S = 8192", "M - 1 = 2047"});
  o.distances = {5};  // fits S = 2048 and 2049 (the other lengths skip it and say so)
  const auto certs = check_dynamic_ntk_cache(o);
  EXPECT_EQ(certs[0].verdict, Verdict::holds);
  EXPECT_EQ(certs[0].details.at("query_lengths")[3].at("distances_skipped"), std::vector<long long>{5});
  ClaimOptions q;
  q.query_lengths = {0};
  expect_input_error([&] { check_dynamic_ntk_cache(q); }, "--query-length", {"[1, 2^40]"});
  ClaimOptions d;
  d.spectrum.dim = 64;
  expect_input_error([&] { check_dynamic_ntk_cache(d); }, "--dim", {"without --model"});
  ClaimOptions m;
  m.spectrum.model = "llama-3.1-8b";
  expect_input_error([&] { check_dynamic_ntk_cache(m); }, "model", {"dynamic rope_scaling"});
}

}  // namespace
}  // namespace ropecheck::proofs
