#include "finite/argmax_at_distance.h"

#include <algorithm>
#include <limits>

#include "finite/detail/construction_inputs.h"
#include "io/input_error.h"
#include "io/printf_string.h"
#include "numeric/float32_dot.h"
#include "numeric/precision.h"
#include "proofs/prop-3.1.h"
#include "random/dyadic_vector.h"
#include "rotation/angle_sweep.h"
#include "spectrum/frequencies.h"

namespace ropecheck::finite {

using detail::exact_rotation;
using detail::iota_positions;
using detail::kExactBits;
using detail::real_down;
using detail::real_up;
using detail::round_certified;
using detail::round_vector;
using detail::tile;

namespace {

// One context r: the query rotated at r against the keys (content k_r) rotated at `positions`
// (positions[0] == 0 is the target). Updates `failure` (if unset) and `min_margin`.
void judge_context(long long r, const float* query, const std::vector<const float*>& keys,
                   const std::vector<std::int64_t>& positions, int d, ArgmaxFailure& failure, double* min_margin) {
  const float target = dot_f32_sequential(query, keys[0], d);
  long long worst = -1;
  float worst_a = -std::numeric_limits<float>::infinity();
  for (size_t p = 1; p < keys.size(); ++p) {
    const float a = dot_f32_sequential(query, keys[p], d);
    if (!(a <= worst_a)) worst_a = a, worst = positions[p];
  }
  if (worst < 0) return;
  if (min_margin) *min_margin = std::min(*min_margin, static_cast<double>(target) - static_cast<double>(worst_a));
  if (!(worst_a < target) && failure.r < 0) failure = ArgmaxFailure{r, worst, target, worst_a};
}

nlohmann::json failure_json(const ArgmaxFailure& f) {
  if (f.r < 0) return nullptr;
  return {{"r", f.r}, {"key_position", f.position}, {"distance", f.r - f.position},
          {"a_target", f.a_target}, {"a_other", f.a_other}, {"a_target_hex", hex_float(f.a_target)}, {"a_other_hex", hex_float(f.a_other)}};
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
  for (Implementation rot : accuracy::all_implementations())
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
    j["finite"].push_back({{"rotator", accuracy::implementation_name(s.rotator)}, {"dtype", dtype_name(s.dtype)},
                           {"exhaustive_limit", s.exhaustive_limit}, {"holds_up_to", s.holds_up_to},
                           {"holds_up_to_kind", s.first_failure.r < 0 ? "lower bound: every r <= limit passes (exhaustive)"
                                                                      : "exact: exhaustive up to the first failure"},
                           {"first_failure", failure_json(s.first_failure)}, {"min_margin", s.min_margin},
                           {"probes", s.probed}, {"probe_window", s.probe_window},
                           {"first_probe_failure", failure_json(s.first_probe_failure)}});
  return j;
}

}  // namespace ropecheck::finite
