// File: shift_invariance.h
// Shift invariance in finite precision: does an activation stay put when query and key positions
// shift together, through each rotator and dtype (finite_arithmetic.h: inputs, dtypes, layout,
// what is measured and what is certified)?
//
// a(m, n) = (R^m q) . (R^n k) through a rotator and dot_f32_sequential (numeric/float32_dot.h),
// q and k seeded dyadic vectors rounded to the dtype; error(s) = |a(m + s, n + s) - a(m, n)| for
// s = 0 and 2^e, e = 0..max (baselines up to 2^31). Kernel rows carry the bound proved from the
// kernel's ulp contract (accuracy/shift_invariance_bound.h).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "cpu/path.h"
#include "finite/finite_arithmetic.h"
#include "spectrum/spectrum.h"

namespace ropecheck::finite {

struct ShiftPoint {
  int log2_shift = -1;         // -1: s = 0
  std::int64_t shift = 0;
  float a = 0;                 // a(m + s, n + s)
  double error = 0;            // |a(m+s, n+s) - a(m, n)|
  double error_vs_exact = 0;   // |a(m+s, n+s) - A|, A the exact activation of the rounded inputs
};

struct ShiftSeries {
  Implementation rotator = Implementation::kernel;
  Dtype dtype = Dtype::f32;
  std::vector<ShiftPoint> points;
  double bound = -1;           // kernel only: proved bound on every error (shift_invariance_bound); -1 otherwise
  bool within_bound = true;
  double max_error = 0;
};

struct ShiftInvariance {
  std::string label, spectrum;
  std::int64_t m = 10, n = 3;
  std::uint64_t seed = 0;
  std::vector<double> exact;   // A per dtype (nearest double)
  std::vector<Dtype> dtypes;
  std::vector<ShiftSeries> series;
};

struct ShiftSettings {
  int max_shift_log2 = 40;     // kernel; baselines up to min(this, 31)
  std::int64_t m = 10, n = 3;
  std::uint64_t seed = 1;
};

// Throws InputError: dtypes empty or f64 (--dtype), max_shift_log2 outside [0, 40]
// (--max-shift-log2), |m| or |n| > 2^40.
ShiftInvariance shift_invariance(const std::string& label, const Spectrum& spectrum, const std::vector<Dtype>& dtypes,
                                 const ShiftSettings& settings, cpu::Path path);

nlohmann::json to_json(const ShiftInvariance& s);

}  // namespace ropecheck::finite
