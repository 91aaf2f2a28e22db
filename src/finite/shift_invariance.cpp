#include "finite/shift_invariance.h"

#include <algorithm>
#include <cmath>

#include "accuracy/shift_invariance_bound.h"
#include "attention/activation.h"
#include "finite/detail/construction_inputs.h"
#include "io/input_error.h"
#include "io/printf_string.h"
#include "numeric/float32_dot.h"
#include "numeric/precision.h"
#include "random/dyadic_vector.h"
#include "spectrum/frequencies.h"

namespace ropecheck::finite {

using detail::kExactBits;
using detail::tile;

namespace {

// Stream ids of the shift-invariance vectors: ASCII "shift-q " and "shift-k ".
constexpr std::uint64_t kShiftQStream = 0x73686966742d7120ULL;
constexpr std::uint64_t kShiftKStream = 0x73686966742d6b20ULL;

}  // namespace

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
  for (Implementation rot : accuracy::all_implementations())
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
      for (std::int64_t i = 0; i < T; ++i) points[static_cast<size_t>(i)].a = dot_f32_sequential(Q.data() + i * d, K.data() + i * d, d);
      const double a0 = points[0].a;
      for (ShiftPoint& p : points) {
        p.error = std::abs(static_cast<double>(p.a) - a0);
        p.error_vs_exact = std::abs(static_cast<double>(p.a) - out.exact[t]);
        series.max_error = std::max(series.max_error, p.error);
      }
      if (rot == Implementation::kernel) {
        series.bound = accuracy::shift_invariance_bound(dtypes[t], q[t], k[t]);
        series.within_bound = series.max_error <= series.bound;
      }
      series.points = std::move(points);
      out.series.push_back(std::move(series));
    }
  return out;
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
    nlohmann::json row = {{"rotator", accuracy::implementation_name(r.rotator)}, {"dtype", dtype_name(r.dtype)}, {"max_error", r.max_error}, {"points", pts}};
    if (r.bound >= 0) row["proved_bound"] = r.bound, row["within_bound"] = r.within_bound;
    j["series"].push_back(row);
  }
  return j;
}

}  // namespace ropecheck::finite
