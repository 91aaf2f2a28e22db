#include "finite/head_strictness.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "finite/detail/construction_inputs.h"
#include "io/input_error.h"
#include "io/printf_string.h"
#include "numeric/float32_dot.h"
#include "numeric/precision.h"
#include "proofs/positional-heads.h"
#include "spectrum/frequencies.h"

namespace ropecheck::finite {

using detail::exact_rotation;
using detail::iota_positions;
using detail::kExactBits;
using detail::real_down;
using detail::real_up;
using detail::round_vector;
using detail::tile;

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
      // w^_k = ||psi^_k||^2 (positional-heads.h's reduction, exact for the rounded psi and the exact key R psi^).
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
  for (Implementation rot : accuracy::all_implementations())
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
            throw std::logic_error("thm-5.3 finite: " + accuracy::implementation_name(rot) + " rotated a zero chunk to a non-zero value");
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
        const float at = dot_f32_sequential(qi, k.data() + (target - 1) * n, n);
        bool fails = false;
        for (long long j = 1; j <= i; ++j) {
          if (j == target) continue;
          const float a = dot_f32_sequential(qi, k.data() + (j - 1) * n, n);
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
    j["finite"].push_back({{"rotator", accuracy::implementation_name(r.rotator)}, {"dtype", dtype_name(r.dtype)}, {"strict", r.strict},
                           {"min_margin", r.min_margin}, {"row", r.min_row}, {"key", r.min_key},
                           {"a_target_hex", hex_float(r.a_target)}, {"a_other_hex", hex_float(r.a_other)}, {"failing_rows", r.failing_rows},
                           {"kind", "exhaustive over rows 1..N and keys j <= i"}});
  return j;
}

}  // namespace ropecheck::finite
