// File: ulp_error.h
// The error metric of the kernel's accuracy goal, and an accumulator for sweeps over many outputs.
//
// Metric ("ulp floored at 2^-24 x pair norm"): an output component `got` of the exact rotation y of
// the pair (x_a, x_b) has the error
//     err = |got - y| / max(ulp(y), floor * ||(x_a, x_b)||),   floor = 2^-p (p the format's significand bits: 24 f32, 8 bf16, 11 f16),
// where ulp(y) = 2^(e-p+1) for |y| in [2^e, 2^(e+1)) and 2^(emin-p+1) below 2^emin (f32: 2^(e-23)
// and 2^-149 below 2^-126; bf16: 2^(e-7) and 2^-133; f16: 2^(e-10) and 2^-24 below 2^-14). The floor measures cancellation fairly: a component that nearly cancels (|y| << ||x||)
// inherits an absolute error of order ulp(||x||) from any rounding of cos and sin, which no
// float32 kernel can avoid; its error is counted relative to the pair, not to its own tiny value.
// An output equal (as a value: -0 == +0) to the correctly rounded one is "correctly rounded"; when
// that value is an infinity (a correctly rounded overflow), |got - y| is infinite but the output
// is right: its error is recorded as 0.5 ulp and its absolute error as 0. A NaN is expected
// exactly when the output should be NaN (only non-finite inputs: counted as "specials", outside
// the ulp statistics).
//
// Numbers: y is the reference value rounded to double (rope_reference.h), so each figure carries a
// relative error below 2^-52 (|got - y| and ulp are computed in double from exact float inputs):
// an ulp figure is exact to about 2^-28 ulp, far below the 0.001 ulp margin of the 0.501 goal.
//
// Formats: the kernel dtypes (numeric/dtype.h). Every function here taking a Dtype,
// and ErrorAccumulator's constructor, throws std::invalid_argument for f64 (not a kernel output).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "numeric/dtype.h"

namespace ropecheck::accuracy {

// Returns: the ulp of the format at y (unfloored; |y| beyond the largest finite value uses the top
// binade's ulp). format_floor: 2^-24 or 2^-8.
double format_ulp(double y, Dtype f);
double format_floor(Dtype f);
// Returns: max(format_ulp(y), format_floor(f) * norm).
double metric_ulp(double y, double norm, Dtype f);

// The text every printed table states.
std::string metric_definition(Dtype f);

struct ComponentError {
  double ulps = 0;  // the metric above (infinity for a NaN or an infinity that should be finite)
  double abs = 0;   // |got - y|
  // |got - y| / ||(x_a, x_b)||: the absolute error at unit pair norm (scale-free), for pairs of
  // norm >= 2^-126 only (NaN below: there the fixed subnormal quantum, not the kernel, dominates).
  double rel = 0;
  bool correctly_rounded = false;
};

// got: the output value; exact: y rounded to double; correctly_rounded: the correctly rounded
// value in the format (infinite after overflow); norm: ||(x_a, x_b)||. All finite-input cases.
ComponentError component_error(double got, double exact, double correctly_rounded, double norm, Dtype f);

// Returns: the angle in radians between the vectors (got_a, got_b) and (exact_a, exact_b), in
// [0, pi]; NaN when either vector is zero or not finite (undefined: not counted).
double phase_error(double got_a, double got_b, double exact_a, double exact_b);

// Returns: the decade of |p|: 0 for [0, 10), 1 for [10, 100), ..., 18 for [1e18, 2^63].
int position_decade(std::int64_t p);
inline constexpr int kDecades = 19;
// Returns: "[0, 10)", "[10, 100)", ..., "[1e18, 2^63]".
std::string decade_label(int decade);

// Everything about one output element that a report may print.
struct ElementRecord {
  std::int64_t position = 0;
  std::int64_t token = 0;  // row of the (flattened) token axis
  std::int64_t head = 0;
  int pair = -1;           // block pair k, or -1 for a pass-through element
  int component = 0;       // 0: y_a = x_a cos - x_b sin; 1: y_b = x_a sin + x_b cos
  std::uint32_t in_bits[2] = {0, 0};  // raw input bits (the format's), pair (x_a, x_b)
  double in[2] = {0, 0};
  std::uint32_t got_bits = 0;
  double got = 0, exact = 0, correctly_rounded = 0;
  double norm = 0;
  ComponentError error;
};

// Returns: one line, inputs and outputs as hex floats with raw bits, e.g.
// "position 4096 token 3 head 0 pair 5 y_a: x_a = 0x1.8p+0 (0x3fc00000), ...".
std::string describe(const ElementRecord& r, Dtype f);

struct DecadeStats {
  std::uint64_t elements = 0, correctly_rounded = 0;
  double max_ulps = 0, max_abs = 0, max_rel = 0, max_phase = 0;
};

// Accumulates the errors of one implementation in one format. Deterministic: every statistic is a
// count, a maximum or a histogram, and the worst element is the first one (in the order of add
// calls, then of merges) attaining the maximum, so merging per-chunk partials in token order gives
// the same result for any split.
class ErrorAccumulator {
 public:
  explicit ErrorAccumulator(Dtype f);

  // Adds one finite-input output element (its record's error is computed here).
  void add(ElementRecord r, bool decided);
  // Adds the phase error of one rotated pair at position p (NaN: not counted).
  void add_phase(std::int64_t p, double phase);
  // Adds a non-finite-input element: matches when NaN-ness agrees and non-NaN values are equal.
  void add_special(bool matches);
  // Adds a pass-through element (outside the rotary part: pair -1, in_bits[0] the input's bits).
  // It must be the input bit for bit: one whose bits differ is not correctly rounded and counts as
  // a pass-through mismatch, even when the values are equal (-0 for +0: 0 ulp, yet not a copy).
  void add_pass_through(ElementRecord r);
  // Adds a pass-through element whose input is not finite: a special that matches only when the
  // output's bits are the input's (NaN payload included).
  void add_pass_through_special(bool identical);
  // Appends `later` (elements after this one's in token order).
  void merge(const ErrorAccumulator& later);

  Dtype format() const { return format_; }
  std::uint64_t elements() const { return elements_; }
  std::uint64_t correctly_rounded() const { return correctly_rounded_; }
  std::uint64_t undecided() const { return undecided_; }
  std::uint64_t specials() const { return specials_; }
  std::uint64_t special_mismatches() const { return special_mismatches_; }
  std::uint64_t pass_through() const { return pass_through_; }
  std::uint64_t pass_through_mismatches() const { return pass_through_mismatches_; }
  // Share correctly rounded among decided elements (undecided ones excluded); 1 when empty.
  double share_correctly_rounded() const;
  double max_ulps() const { return worst_.error.ulps; }
  double max_abs() const { return max_abs_; }
  double max_rel() const { return max_rel_; }  // max |got - y| / ||(x_a, x_b)||
  double max_phase() const { return max_phase_; }
  const ElementRecord& worst() const { return worst_; }
  // The lower median of the ulp errors, from a histogram (not the exact order statistic): bins of
  // width 2^-13 ulp below 2 ulp, 16 per octave above. Returns the bin's midpoint;
  // median_resolution() its half-width (2^-14 ulp below 2 ulp).
  double median_ulps() const;
  double median_resolution() const;
  const DecadeStats& decade(int i) const { return decades_[static_cast<size_t>(i)]; }

  nlohmann::json to_json() const;

 private:
  static std::size_t bin_of(double ulps);
  static double bin_low(std::size_t bin);
  static double bin_high(std::size_t bin);

  Dtype format_;
  std::uint64_t elements_ = 0, correctly_rounded_ = 0, undecided_ = 0, specials_ = 0, special_mismatches_ = 0;
  std::uint64_t pass_through_ = 0, pass_through_mismatches_ = 0;
  double max_abs_ = 0, max_rel_ = 0, max_phase_ = 0;
  bool have_worst_ = false;
  ElementRecord worst_;
  std::vector<std::uint64_t> histogram_;
  std::vector<DecadeStats> decades_;
};

}  // namespace ropecheck::accuracy
