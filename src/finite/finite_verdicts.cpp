#include "finite/finite_verdicts.h"
#include "io/printf_string.h"

#include <mpfi.h>
#include <mpfr.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "attention/activation.h"
#include "io/input_error.h"
#include "kernel/apply_rope.h"
#include "accuracy/baselines.h"
#include "kernel/bf16.h"
#include "numeric/precision.h"
#include "proofs/prop-3.1.h"
#include "proofs/positional-heads.h"
#include "random/dyadic_vector.h"
#include "rotation/angle_sweep.h"
#include "spectrum/frequencies.h"

namespace ropecheck::finite {

namespace {

// Enclosures here need only to separate the exact values from float rounding boundaries and to
// certify margins of order 1e-9 relative; 128 bits leave ~90 bits to spare at angles < 2^40.
constexpr unsigned kExactBits = 128;

// Stream ids of the shift-invariance vectors: ASCII "shift-q " and "shift-k ".
constexpr std::uint64_t kShiftQStream = 0x73686966742d7120ULL;
constexpr std::uint64_t kShiftKStream = 0x73686966742d6b20ULL;

// Largest shift exponent the baselines are run at: engines store positions as int32 (and the
// f32-angle baseline has lost every digit long before).
constexpr int kBaselineMaxLog2 = 31;

accuracy::Baseline baseline_of(Rotator r) {
  return r == Rotator::f32_angle ? accuracy::Baseline::f32_angle : accuracy::Baseline::f64_angle;
}

// Returns: x (an MPFR number) rounded to nearest-even in dtype t. bf16 rounds to 8 significant bits
// in MPFR first (exact afterwards in float); below 2^-126 (bf16 subnormals, never produced by the
// constructions here, whose components are O(1) or exactly 0) it goes through float, which may
// double-round.
float round_mpfr(mpfr_srcptr x, Dtype t) {
  if (t == Dtype::f32) return mpfr_get_flt(x, MPFR_RNDN);
  if (mpfr_zero_p(x) || mpfr_get_exp(x) <= -126)  // |x| < 2^-126 (MPFR: x = m 2^e, 1/2 <= |m| < 1)
    return kernel::bf16_to_f32(kernel::f32_to_bf16_rne(mpfr_get_flt(x, MPFR_RNDN)));
  mpfr_t r;
  mpfr_init2(r, 8);
  mpfr_set(r, x, MPFR_RNDN);
  const float f = mpfr_get_flt(r, MPFR_RNDN);
  mpfr_clear(r);
  return f;
}

// Returns: the dtype rounding of the exact value enclosed by x, certified: both endpoints round to
// the same value (so the exact value does too). Throws std::logic_error otherwise (the enclosure
// straddles a rounding boundary: never seen at 128 bits, and a silent wrong rounding would change
// the inputs of the exact verdict).
float round_certified(const Interval& x, Dtype t) {
  mpfr_t lo, hi;
  mpfr_init2(lo, mpfi_get_prec(x.backend().data()));
  mpfr_init2(hi, mpfi_get_prec(x.backend().data()));
  mpfi_get_left(lo, x.backend().data());
  mpfi_get_right(hi, x.backend().data());
  const float a = round_mpfr(lo, t), b = round_mpfr(hi, t);
  mpfr_clear(lo);
  mpfr_clear(hi);
  if (std::bit_cast<std::uint32_t>(a) != std::bit_cast<std::uint32_t>(b) && !(a == 0 && b == 0))
    throw std::logic_error("finite verdicts: an exact input lies too close to a " + dtype_name(t) + " rounding boundary: " +
                           hex_float(a) + " vs " + hex_float(b));
  return a == 0 ? 0.0f : a;
}

double lower_double(const Interval& x) {
  mpfr_t lo;
  mpfr_init2(lo, mpfi_get_prec(x.backend().data()));
  mpfi_get_left(lo, x.backend().data());
  const double d = mpfr_get_d(lo, MPFR_RNDD);
  mpfr_clear(lo);
  return d;
}

double upper_double(const Interval& x) {
  mpfr_t hi;
  mpfr_init2(hi, mpfi_get_prec(x.backend().data()));
  mpfi_get_right(hi, x.backend().data());
  const double d = mpfr_get_d(hi, MPFR_RNDU);
  mpfr_clear(hi);
  return d;
}

double real_down(const Real& x) { return mpfr_get_d(x.backend().data(), MPFR_RNDD); }
double real_up(const Real& x) { return mpfr_get_d(x.backend().data(), MPFR_RNDU); }

// Returns: the rotation R^r v of a float vector (chunks 2k, 2k+1), each component an enclosure.
Vector<Interval> exact_rotation(const std::vector<float>& v, std::int64_t r, const std::vector<Interval>& g) {
  Vector<Interval> out(static_cast<Eigen::Index>(v.size()));
  Interval s, c;
  for (size_t k = 0; k < g.size(); ++k) {
    sin_cos(Interval(Interval(static_cast<long long>(r)) * g[k]), s, c);
    const Interval x(v[2 * k]), y(v[2 * k + 1]);
    out[2 * k] = Interval(c * x - s * y);
    out[2 * k + 1] = Interval(s * x + c * y);
  }
  return out;
}

std::vector<float> round_vector(const Vector<Interval>& v, Dtype t) {
  std::vector<float> out(static_cast<size_t>(v.size()));
  for (Eigen::Index i = 0; i < v.size(); ++i) out[static_cast<size_t>(i)] = round_certified(v[i], t);
  return out;
}

std::vector<float> tile(const std::vector<float>& v, std::int64_t times) {
  std::vector<float> out;
  out.reserve(v.size() * static_cast<size_t>(times));
  for (std::int64_t i = 0; i < times; ++i) out.insert(out.end(), v.begin(), v.end());
  return out;
}

std::vector<std::int64_t> iota_positions(std::int64_t first, std::int64_t last) {
  std::vector<std::int64_t> p;
  for (std::int64_t x = first; x <= last; ++x) p.push_back(x);
  return p;
}

int max_log2_for(Rotator r, int requested) { return r == Rotator::kernel ? requested : std::min(requested, kBaselineMaxLog2); }

void check_dtypes(const std::vector<Dtype>& dtypes) {
  if (dtypes.empty()) throw InputError("--dtype", "f32, bf16 or both", "no dtype");
}

}  // namespace

std::string dtype_name(Dtype t) { return t == Dtype::f32 ? "f32" : "bf16"; }

std::vector<Dtype> parse_dtypes(const std::string& name, const std::string& input) {
  if (name == "f32") return {Dtype::f32};
  if (name == "bf16") return {Dtype::bf16};
  if (name == "both") return {Dtype::f32, Dtype::bf16};
  throw InputError(input, "f32, bf16 or both", name);
}

std::string rotator_name(Rotator r) {
  switch (r) {
    case Rotator::kernel: return "kernel";
    case Rotator::f32_angle: return "f32-angle";
    case Rotator::f64_angle: return "f64-angle";
  }
  return "?";
}

float round_to(Dtype t, double x) {
  if (t == Dtype::f32) return static_cast<float>(x);
  mpfr_t m;
  mpfr_init2(m, 53);
  mpfr_set_d(m, x, MPFR_RNDN);
  const float f = round_mpfr(m, t);
  mpfr_clear(m);
  return f;
}

std::vector<float> rotate(Rotator r, Dtype t, const kernel::RopePlan& plan, std::span<const std::int64_t> positions,
                          std::span<const float> in, std::int64_t heads, cpu::Path path) {
  const std::int64_t tokens = static_cast<std::int64_t>(positions.size());
  const int d = plan.dim();
  if (static_cast<std::int64_t>(in.size()) != tokens * heads * d)
    throw InputError("rotate: input", std::to_string(tokens * heads * d) + " values (tokens x heads x dim)",
                     std::to_string(in.size()));
  std::vector<float> out(in.size());
  if (t == Dtype::f32) {
    const auto iv = kernel::dense_view(in.data(), tokens, heads, d);
    const auto ov = kernel::dense_view(out.data(), tokens, heads, d);
    if (r == Rotator::kernel) kernel::apply_rope(plan, positions, iv, ov, kernel::KernelOptions{path, 1});
    else accuracy::apply_rope_baseline(baseline_of(r), plan, positions, iv, ov);
    return out;
  }
  std::vector<std::uint16_t> bi(in.size()), bo(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    bi[i] = kernel::f32_to_bf16_rne(in[i]);
    if (kernel::bf16_to_f32(bi[i]) != in[i] && !std::isnan(in[i]))
      throw InputError("rotate: input", "values representable in bf16", hex_float(in[i]));
  }
  const auto iv = kernel::dense_view(static_cast<const std::uint16_t*>(bi.data()), tokens, heads, d);
  const auto ov = kernel::dense_view(bo.data(), tokens, heads, d);
  if (r == Rotator::kernel) kernel::apply_rope(plan, positions, iv, ov, kernel::KernelOptions{path, 1});
  else accuracy::apply_rope_baseline(baseline_of(r), plan, positions, iv, ov);
  for (size_t i = 0; i < out.size(); ++i) out[i] = kernel::bf16_to_f32(bo[i]);
  return out;
}

float dot_f32(const float* x, const float* y, int n) {
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) {
    const float product = static_cast<float>(static_cast<double>(x[i]) * static_cast<double>(y[i]));  // exact, then one rounding
    sum = static_cast<float>(static_cast<double>(sum) + static_cast<double>(product));
  }
  return sum;
}

// ---- Proposition 3.1 ----------------------------------------------------------------------------

namespace {

// One context r: the query rotated at r against the keys (content k_r) rotated at `positions`
// (positions[0] == 0 is the target). Updates `failure` (if unset) and `min_margin`.
void judge_context(long long r, const float* query, const std::vector<const float*>& keys,
                   const std::vector<std::int64_t>& positions, int d, ArgmaxFailure& failure, double* min_margin) {
  const float target = dot_f32(query, keys[0], d);
  long long worst = -1;
  float worst_a = -std::numeric_limits<float>::infinity();
  for (size_t p = 1; p < keys.size(); ++p) {
    const float a = dot_f32(query, keys[p], d);
    if (!(a <= worst_a)) worst_a = a, worst = positions[p];
  }
  if (worst < 0) return;
  if (min_margin) *min_margin = std::min(*min_margin, static_cast<double>(target) - static_cast<double>(worst_a));
  if (!(worst_a < target) && failure.r < 0) failure = ArgmaxFailure{r, worst, target, worst_a};
}

}  // namespace

ArgmaxConstruction prop_3_1_finite(const std::string& label, const Spectrum& spectrum, const std::vector<Dtype>& dtypes,
                                   const ArgmaxSettings& settings, cpu::Path path) {
  check_dtypes(dtypes);
  if (settings.max_distance < 1 || settings.max_distance > (1LL << 20))
    throw InputError("--max-distance", "an integer in [1, 2^20]", std::to_string(settings.max_distance));
  if (settings.max_shift_log2 < 0 || settings.max_shift_log2 > 40)
    throw InputError("--max-shift-log2", "an integer in [0, 40]", std::to_string(settings.max_shift_log2));
  if (settings.probe_window < 1) throw InputError("probe window", "an integer >= 1", std::to_string(settings.probe_window));
  const int d = spectrum.dim();
  const long long R = settings.max_distance;
  const kernel::RopePlan plan(spectrum, kernel::Layout::interleaved);

  ArgmaxConstruction out;
  out.label = label;
  out.spectrum = spectrum.describe();
  out.seed = settings.seed;
  out.stream = proofs::kProp31QueryStream;
  out.dtypes = dtypes;

  // Exact side, per dtype: the rounded query, the keys k_r = round(R^r q^) for r = 0..R (from one
  // AngleSweep), and the certified verdict min_{1<=m<=R} (a_r - a_{r-m}) > 0 (distance_margins at
  // r = N = R covers every offset m = 1..R, and the margin depends only on the offset).
  const Vector<double> q0 = random_dyadic_vector<double>(d, settings.seed, proofs::kProp31QueryStream);
  std::vector<std::vector<float>> query(dtypes.size()), keys(dtypes.size());  // keys: (R+1) x d
  {
    ScopedPrecision precision(kExactBits);
    const std::vector<Interval> g = frequencies<Interval>(spectrum);
    for (size_t t = 0; t < dtypes.size(); ++t) {
      query[t].resize(static_cast<size_t>(d));
      Vector<Interval> qi(d);
      for (int i = 0; i < d; ++i) {
        query[t][static_cast<size_t>(i)] = round_to(dtypes[t], q0[i]);
        qi[i] = Interval(query[t][static_cast<size_t>(i)]);
      }
      const proofs::DistanceMargin m = proofs::distance_margins(qi, g, {R}, R).front();
      ExactArgmax e;
      e.limit = R;
      e.holds = m.margin_lower > 0;
      e.margin_lower = real_down(m.margin_lower);
      e.margin_upper = real_up(m.margin_upper);
      e.runner_up_offset = R - m.runner_up;
      out.exact.push_back(e);
      keys[t].resize(static_cast<size_t>((R + 1) * d));
    }
    const AngleSweep sweep(g, R);
    std::vector<Interval> c, s;
    for (long long r = 0; r <= R; ++r) {
      sweep.row(r, c, s);
      for (size_t t = 0; t < dtypes.size(); ++t)
        for (int k = 0; k < d / 2; ++k) {
          const Interval x(query[t][static_cast<size_t>(2 * k)]), y(query[t][static_cast<size_t>(2 * k + 1)]);
          float* key = keys[t].data() + r * d;
          key[2 * k] = round_certified(Interval(c[static_cast<size_t>(k)] * x - s[static_cast<size_t>(k)] * y), dtypes[t]);
          key[2 * k + 1] = round_certified(Interval(s[static_cast<size_t>(k)] * x + c[static_cast<size_t>(k)] * y), dtypes[t]);
        }
    }
  }

  // Keys for many contexts r are rotated in one call, one head per r (a block of heads shares the
  // positions 0..r1), so a rotator's per-position work is shared; blocks keep a tensor <= 2^22 floats.
  const long long heads_per_block = std::max<long long>(1, std::min<long long>(R + 1, (1LL << 22) / ((R + 1) * d)));
  const std::vector<std::int64_t> all_positions = iota_positions(0, R);
  for (Rotator rot : kAllRotators)
    for (size_t t = 0; t < dtypes.size(); ++t) {
      ArgmaxScan scan;
      scan.rotator = rot;
      scan.dtype = dtypes[t];
      scan.exhaustive_limit = R;
      scan.probe_window = settings.probe_window;
      scan.min_margin = std::numeric_limits<double>::infinity();
      const std::vector<float> queries = rotate(rot, dtypes[t], plan, all_positions, tile(query[t], R + 1), 1, path);
      for (long long r0 = 0; r0 <= R; r0 += heads_per_block) {
        const long long r1 = std::min(R, r0 + heads_per_block - 1), H = r1 - r0 + 1;
        std::vector<float> in(static_cast<size_t>((r1 + 1) * H * d));
        for (long long p = 0; p <= r1; ++p)
          for (long long h = 0; h < H; ++h)
            std::copy_n(keys[t].data() + (r0 + h) * d, d, in.data() + (p * H + h) * d);
        const std::vector<std::int64_t> positions(all_positions.begin(), all_positions.begin() + r1 + 1);
        const std::vector<float> rotated = rotate(rot, dtypes[t], plan, positions, in, H, path);
        for (long long h = 0; h < H; ++h) {
          const long long r = r0 + h;
          std::vector<const float*> ks;
          for (long long p = 0; p <= r; ++p) ks.push_back(rotated.data() + (p * H + h) * d);
          judge_context(r, queries.data() + r * d, ks, all_positions, d, scan.first_failure, &scan.min_margin);
        }
      }
      scan.holds_up_to = scan.first_failure.r < 0 ? R : scan.first_failure.r - 1;

      // Probes r = 2^e > R: keys at positions 0..W and r-W..r only.
      ScopedPrecision precision(kExactBits);
      const std::vector<Interval> g = frequencies<Interval>(spectrum);
      for (int e = 0; e <= max_log2_for(rot, settings.max_shift_log2); ++e) {
        const long long r = 1LL << e;
        if (r <= R) continue;
        scan.probed.push_back(r);
        const std::vector<float> key = round_vector(exact_rotation(query[t], r, g), dtypes[t]);
        std::vector<std::int64_t> positions;
        for (long long p = 0; p <= std::min(r, settings.probe_window); ++p) positions.push_back(p);
        for (long long p = std::max(settings.probe_window + 1, r - settings.probe_window); p <= r; ++p) positions.push_back(p);
        const std::vector<float> rotated = rotate(rot, dtypes[t], plan, positions, tile(key, static_cast<std::int64_t>(positions.size())), 1, path);
        const std::vector<std::int64_t> at_r{r};
        const std::vector<float> q = rotate(rot, dtypes[t], plan, at_r, query[t], 1, path);
        std::vector<const float*> ks;
        for (size_t p = 0; p < positions.size(); ++p) ks.push_back(rotated.data() + p * static_cast<size_t>(d));
        judge_context(r, q.data(), ks, positions, d, scan.first_probe_failure, nullptr);
      }
      out.scans.push_back(std::move(scan));
    }
  return out;
}

// ---- Theorem 5.3 --------------------------------------------------------------------------------

HeadConstruction thm_5_3_finite(const std::string& label, const Spectrum& spectrum, bool previous_token,
                                const std::vector<Dtype>& dtypes, const HeadSettings& settings, cpu::Path path) {
  check_dtypes(dtypes);
  if (settings.N < 2 || settings.N > (1LL << 16)) throw InputError("--rows", "an integer in [2, 65536]", std::to_string(settings.N));
  if (spectrum.rotated_pairs() < 1)
    throw InputError("--config", "a spectrum with at least one rotating pair (the heads need one)", spectrum.describe());
  if (settings.K < 1) throw InputError("--pairs", "an integer >= 1", std::to_string(settings.K));
  const int d = spectrum.dim();
  const long long N = settings.N;
  const kernel::RopePlan plan(spectrum, kernel::Layout::interleaved);

  HeadConstruction out;
  out.label = label;
  out.spectrum = spectrum.describe();
  out.head = proofs::head_name(previous_token ? proofs::PositionalHead::previous_token : proofs::PositionalHead::diagonal);
  out.K = std::min(settings.K, spectrum.rotated_pairs());
  out.s = settings.s;
  out.N = N;
  out.dtypes = dtypes;

  std::vector<std::vector<float>> psi(dtypes.size()), key(dtypes.size());
  {
    ScopedPrecision precision(kExactBits);
    const std::vector<Interval> g = frequencies<Interval>(spectrum);
    Interval s;
    try {
      s = from_decimal<Interval>(settings.s);
    } catch (const std::invalid_argument&) {
      throw InputError("--norm", "a decimal > 0", settings.s);
    }
    if (!(lower_of(s) > 0)) throw InputError("--norm", "a decimal > 0", settings.s);
    const Vector<Interval> exact_psi = proofs::construction_query(proofs::fastest_pairs_weights(spectrum, out.K), s);
    for (size_t t = 0; t < dtypes.size(); ++t) {
      psi[t] = round_vector(exact_psi, dtypes[t]);
      key[t] = previous_token ? round_vector(exact_rotation(psi[t], 1, g), dtypes[t]) : psi[t];
      // a_{i,target} - a_{i,j} = sum_k w^_k (1 - cos(m g_k)) = gap(m) with unnormalised weights
      // w^_k = ||psi^_k||^2 (thm-5.3.h's reduction, exact for the rounded psi and the exact key R psi^).
      std::vector<Interval> w(static_cast<size_t>(d / 2));
      for (int k = 0; k < d / 2; ++k) {
        const Interval a(psi[t][static_cast<size_t>(2 * k)]), b(psi[t][static_cast<size_t>(2 * k + 1)]);
        w[static_cast<size_t>(k)] = Interval(a * a + b * b);
      }
      const std::vector<Interval> gaps = proofs::alignment_gaps(g, w, N);
      const long long last = previous_token ? std::max(1LL, N - 2) : N - 1;  // offsets of row N
      Real lo = std::numeric_limits<double>::infinity(), hi = std::numeric_limits<double>::infinity();
      long long at = 1;
      for (long long m = 1; m <= last; ++m) {
        const Real l = lower_of(gaps[static_cast<size_t>(m)]);
        if (l < lo) lo = l, at = m;
        hi = std::min(hi, upper_of(gaps[static_cast<size_t>(m)]));
      }
      out.exact_strict.push_back(lo > 0);
      out.exact_margin_lower.push_back(real_down(lo));
      out.exact_margin_upper.push_back(real_up(hi));
      out.exact_offset.push_back(at);
    }
  }

  // Only chunks where psi^ is non-zero take part: a zero chunk rotates to (+-0, +-0) in every
  // rotator (checked below), so its products are +-0 and leave every float32 partial sum unchanged
  // (only the sign of a zero sum could differ, which no comparison sees).
  const std::vector<std::int64_t> positions = iota_positions(1, N);
  for (Rotator rot : kAllRotators)
    for (size_t t = 0; t < dtypes.size(); ++t) {
      std::vector<int> active;
      for (int i = 0; i < d; i += 2)
        if (psi[t][static_cast<size_t>(i)] != 0 || psi[t][static_cast<size_t>(i + 1)] != 0) active.push_back(i), active.push_back(i + 1);
      const int n = static_cast<int>(active.size());
      const std::vector<float> Q = rotate(rot, dtypes[t], plan, positions, tile(psi[t], N), 1, path);
      const std::vector<float> K = rotate(rot, dtypes[t], plan, positions, tile(key[t], N), 1, path);
      std::vector<float> q(static_cast<size_t>(N * n)), k(static_cast<size_t>(N * n));
      for (long long i = 0; i < N; ++i) {
        for (int e = 0, a = 0; e < d; ++e) {
          const size_t src = static_cast<size_t>(i * d + e);
          if (a < n && active[static_cast<size_t>(a)] == e) {
            q[static_cast<size_t>(i * n + a)] = Q[src], k[static_cast<size_t>(i * n + a)] = K[src];
            ++a;
          } else if (Q[src] != 0 || K[src] != 0) {
            throw std::logic_error("thm-5.3 finite: " + rotator_name(rot) + " rotated a zero chunk to a non-zero value");
          }
        }
      }
      HeadStrictness row;
      row.rotator = rot;
      row.dtype = dtypes[t];
      row.min_margin = std::numeric_limits<double>::infinity();
      for (long long i = previous_token ? 2 : 1; i <= N; ++i) {
        const long long target = previous_token ? i - 1 : i;
        const float* qi = q.data() + (i - 1) * n;
        const float at = dot_f32(qi, k.data() + (target - 1) * n, n);
        bool fails = false;
        for (long long j = 1; j <= i; ++j) {
          if (j == target) continue;
          const float a = dot_f32(qi, k.data() + (j - 1) * n, n);
          const double margin = static_cast<double>(at) - static_cast<double>(a);
          fails = fails || !(a < at);
          if (margin < row.min_margin) row.min_margin = margin, row.min_row = i, row.min_key = j, row.a_target = at, row.a_other = a;
        }
        row.failing_rows += fails ? 1 : 0;
      }
      row.strict = row.failing_rows == 0;
      out.rows.push_back(row);
    }
  return out;
}

Cos710 cos_710(cpu::Path path) {
  Cos710 out;
  {
    ScopedPrecision precision(kExactBits);
    Interval s, c;
    sin_cos(Interval(710), s, c);
    out.cos_lower = lower_double(c);
    out.cos_upper = upper_double(c);
    out.cos_f32 = round_certified(c, Dtype::f32);
  }
  const Spectrum spectrum(2, "10000");  // d = 2: the one pair has g = theta^0 = 1 for every theta
  const kernel::RopePlan plan(spectrum, kernel::Layout::interleaved);
  const std::vector<std::int64_t> at{710};
  const std::vector<float> unit{1.0f, 0.0f};
  const std::vector<float> r = rotate(Rotator::kernel, Dtype::f32, plan, at, unit, 1, path);
  out.kernel_x = r[0];
  out.kernel_y = r[1];
  return out;
}

// ---- Shift invariance ---------------------------------------------------------------------------

double shift_invariance_bound(Dtype t, std::span<const float> q, std::span<const float> k) {
  if (q.size() != k.size() || q.size() % 2 != 0) throw std::invalid_argument("shift_invariance_bound: q, k of one even size");
  const double p_floor = t == Dtype::f32 ? 0x1p-24 : 0x1p-8;            // 2^-p'
  const double c = 0.5 + (t == Dtype::f32 ? 0x1p-25 : 0x1p-14);          // the contract's ulp factor
  const double cu = c * 2 * p_floor;                                      // c 2^(1-p')
  const double eps = cu / (1 - cu);
  const double d = static_cast<double>(q.size()), u = 0x1p-24;
  const double gamma = d * u / (1 - d * u);
  double S = 0;
  for (size_t i = 0; i < q.size(); i += 2) {
    const double nq = std::hypot(static_cast<double>(q[i]), static_cast<double>(q[i + 1]));
    const double nk = std::hypot(static_cast<double>(k[i]), static_cast<double>(k[i + 1]));
    // The ulp floor argument needs normal-range pair norms (or exact zeros, which rotate to zeros).
    if ((nq != 0 && nq < 0x1p-100) || (nk != 0 && nk < 0x1p-100))
      throw std::invalid_argument("shift_invariance_bound: pair norms must be 0 or >= 2^-100");
    S += nq * nk;
  }
  const double B = (2 * std::sqrt(2.0) * eps + 2 * eps * eps + gamma * (1 + std::sqrt(2.0) * eps) * (1 + std::sqrt(2.0) * eps)) * S;
  // The double evaluation of B (d + 10 roundings of 2^-53 each, and hypot's < 1 ulp) is covered by
  // a relative 2^-40 of slack.
  return 2 * B * (1 + 0x1p-40);
}

ShiftInvariance shift_invariance(const std::string& label, const Spectrum& spectrum, const std::vector<Dtype>& dtypes,
                                 const ShiftSettings& settings, cpu::Path path) {
  check_dtypes(dtypes);
  if (settings.max_shift_log2 < 0 || settings.max_shift_log2 > 40)
    throw InputError("--max-shift-log2", "an integer in [0, 40]", std::to_string(settings.max_shift_log2));
  if (std::abs(settings.m) > (1LL << 40) || std::abs(settings.n) > (1LL << 40))
    throw InputError("shift positions", "m, n in [-2^40, 2^40]", std::to_string(settings.m) + ", " + std::to_string(settings.n));
  const int d = spectrum.dim();
  const kernel::RopePlan plan(spectrum, kernel::Layout::interleaved);
  ShiftInvariance out;
  out.label = label;
  out.spectrum = spectrum.describe();
  out.m = settings.m;
  out.n = settings.n;
  out.seed = settings.seed;
  out.dtypes = dtypes;
  const Vector<double> q0 = random_dyadic_vector<double>(d, settings.seed, kShiftQStream);
  const Vector<double> k0 = random_dyadic_vector<double>(d, settings.seed, kShiftKStream);
  std::vector<std::vector<float>> q(dtypes.size()), k(dtypes.size());
  for (size_t t = 0; t < dtypes.size(); ++t) {
    for (int i = 0; i < d; ++i) q[t].push_back(round_to(dtypes[t], q0[i])), k[t].push_back(round_to(dtypes[t], k0[i]));
    ScopedPrecision precision(kExactBits);
    Vector<Interval> qi(d), ki(d);
    for (int i = 0; i < d; ++i) qi[i] = Interval(q[t][static_cast<size_t>(i)]), ki[i] = Interval(k[t][static_cast<size_t>(i)]);
    out.exact.push_back(to_double(activation(qi, ki, settings.n - settings.m, frequencies<Interval>(spectrum))));
  }
  for (Rotator rot : kAllRotators)
    for (size_t t = 0; t < dtypes.size(); ++t) {
      ShiftSeries series;
      series.rotator = rot;
      series.dtype = dtypes[t];
      std::vector<ShiftPoint> points{ShiftPoint{}};
      for (int e = 0; e <= max_log2_for(rot, settings.max_shift_log2); ++e) points.push_back(ShiftPoint{e, std::int64_t{1} << e});
      std::vector<std::int64_t> pq, pk;
      for (const ShiftPoint& p : points) pq.push_back(settings.m + p.shift), pk.push_back(settings.n + p.shift);
      const auto T = static_cast<std::int64_t>(points.size());
      const std::vector<float> Q = rotate(rot, dtypes[t], plan, pq, tile(q[t], T), 1, path);
      const std::vector<float> K = rotate(rot, dtypes[t], plan, pk, tile(k[t], T), 1, path);
      for (std::int64_t i = 0; i < T; ++i) points[static_cast<size_t>(i)].a = dot_f32(Q.data() + i * d, K.data() + i * d, d);
      const double a0 = points[0].a;
      for (ShiftPoint& p : points) {
        p.error = std::abs(static_cast<double>(p.a) - a0);
        p.error_vs_exact = std::abs(static_cast<double>(p.a) - out.exact[t]);
        series.max_error = std::max(series.max_error, p.error);
      }
      if (rot == Rotator::kernel) {
        series.bound = shift_invariance_bound(dtypes[t], q[t], k[t]);
        series.within_bound = series.max_error <= series.bound;
      }
      series.points = std::move(points);
      out.series.push_back(std::move(series));
    }
  return out;
}

// ---- JSON ---------------------------------------------------------------------------------------

namespace {

nlohmann::json failure_json(const ArgmaxFailure& f) {
  if (f.r < 0) return nullptr;
  return {{"r", f.r}, {"key_position", f.position}, {"distance", f.r - f.position},
          {"a_target", f.a_target}, {"a_other", f.a_other}, {"a_target_hex", hex_float(f.a_target)}, {"a_other_hex", hex_float(f.a_other)}};
}

}  // namespace

nlohmann::json to_json(const ArgmaxConstruction& c) {
  nlohmann::json j = {{"construction", c.label}, {"spectrum", c.spectrum}, {"seed", c.seed}, {"stream", c.stream},
                      {"setup", "context of r+1 tokens (positions 0..r), query q at position r, every key k = R^r q; "
                                "the key at position 0 must have the strictly largest activation"}};
  j["exact"] = nlohmann::json::array();
  for (size_t t = 0; t < c.dtypes.size(); ++t) {
    const ExactArgmax& e = c.exact[t];
    j["exact"].push_back({{"dtype_of_inputs", dtype_name(c.dtypes[t])}, {"limit", e.limit}, {"holds", e.holds},
                          {"min_margin_lower", e.margin_lower}, {"min_margin_upper", e.margin_upper},
                          {"runner_up_offset", e.runner_up_offset}, {"kind", "certified (MPFI)"}});
  }
  j["finite"] = nlohmann::json::array();
  for (const ArgmaxScan& s : c.scans)
    j["finite"].push_back({{"rotator", rotator_name(s.rotator)}, {"dtype", dtype_name(s.dtype)},
                           {"exhaustive_limit", s.exhaustive_limit}, {"holds_up_to", s.holds_up_to},
                           {"holds_up_to_kind", s.first_failure.r < 0 ? "lower bound: every r <= limit passes (exhaustive)"
                                                                      : "exact: exhaustive up to the first failure"},
                           {"first_failure", failure_json(s.first_failure)}, {"min_margin", s.min_margin},
                           {"probes", s.probed}, {"probe_window", s.probe_window},
                           {"first_probe_failure", failure_json(s.first_probe_failure)}});
  return j;
}

nlohmann::json to_json(const HeadConstruction& c) {
  nlohmann::json j = {{"construction", c.label}, {"spectrum", c.spectrum}, {"head", c.head}, {"K", c.K},
                      {"squared_norm", c.s}, {"N", c.N}};
  j["exact"] = nlohmann::json::array();
  for (size_t t = 0; t < c.dtypes.size(); ++t)
    j["exact"].push_back({{"dtype_of_inputs", dtype_name(c.dtypes[t])}, {"strict", static_cast<bool>(c.exact_strict[t])},
                          {"min_margin_lower", c.exact_margin_lower[t]}, {"min_margin_upper", c.exact_margin_upper[t]},
                          {"offset", c.exact_offset[t]}, {"kind", "certified (MPFI)"}});
  j["finite"] = nlohmann::json::array();
  for (const HeadStrictness& r : c.rows)
    j["finite"].push_back({{"rotator", rotator_name(r.rotator)}, {"dtype", dtype_name(r.dtype)}, {"strict", r.strict},
                           {"min_margin", r.min_margin}, {"row", r.min_row}, {"key", r.min_key},
                           {"a_target_hex", hex_float(r.a_target)}, {"a_other_hex", hex_float(r.a_other)}, {"failing_rows", r.failing_rows},
                           {"kind", "exhaustive over rows 1..N and keys j <= i"}});
  return j;
}

nlohmann::json to_json(const Cos710& c) {
  return {{"cos_710_lower", c.cos_lower}, {"cos_710_upper", c.cos_upper}, {"fl32_cos_710", hex_float(c.cos_f32)},
          {"kernel_f32_rotation_of_(1,0)_at_710", {hex_float(c.kernel_x), hex_float(c.kernel_y)}}};
}

nlohmann::json to_json(const ShiftInvariance& s) {
  nlohmann::json j = {{"construction", s.label}, {"spectrum", s.spectrum}, {"m", s.m}, {"n", s.n}, {"seed", s.seed},
                      {"inputs", "q, k: seeded dyadic vectors (uniform in [-1, 1), streams \"shift-q \", \"shift-k \"), rounded to the dtype"}};
  j["exact"] = nlohmann::json::array();
  for (size_t t = 0; t < s.dtypes.size(); ++t) j["exact"].push_back({{"dtype_of_inputs", dtype_name(s.dtypes[t])}, {"a", s.exact[t]}});
  j["series"] = nlohmann::json::array();
  for (const ShiftSeries& r : s.series) {
    nlohmann::json pts = nlohmann::json::array();
    for (const ShiftPoint& p : r.points)
      pts.push_back({{"log2_shift", p.log2_shift < 0 ? nlohmann::json(nullptr) : nlohmann::json(p.log2_shift)},
                     {"shift", p.shift}, {"a", p.a}, {"a_hex", hex_float(p.a)}, {"error", p.error}, {"error_vs_exact", p.error_vs_exact}});
    nlohmann::json row = {{"rotator", rotator_name(r.rotator)}, {"dtype", dtype_name(r.dtype)}, {"max_error", r.max_error}, {"points", pts}};
    if (r.bound >= 0) row["proved_bound"] = r.bound, row["within_bound"] = r.within_bound;
    j["series"].push_back(row);
  }
  return j;
}

}  // namespace ropecheck::finite
