// File: rope_reference.h
// The MPFR reference of the RoPE kernel: the exact map of an input pair (float32 values; bfloat16
// and float16 values are float32 values), a (x_a cos(p g_k) - x_b sin(p g_k), x_a sin + x_b cos)
// with a the plan's attention factor (1 for a rotation), and its correctly rounded value in every
// kernel dtype, CORE-MATH style: an
// approximation with a rigorous error bound, a rounding test, and a slower, more precise pass
// only when the test fails. It shares no arithmetic with the kernel's own accurate path
// (kernel/exact_rotation.h: fixed-point turns) beyond the final rounding (numeric/round_to_binary.h).
// Attention factor: enclosed by attention_factor<Interval> at max_bits + 64 bits (midpoint a~,
// radius r_a); cos~ and sin~ are multiplied by a~ at P bits, and e becomes a e + r_a + a 2^-P.
//
// Exactness. g_k is enclosed by frequencies<Interval> (an MPFI enclosure of the real
// theta^(-e/D) with its scaling) at max_bits + 64 bits; its midpoint g~ has a rigorous radius r_k.
// The angle t~ = p * g~ is formed at precision(g~) + 64 bits, i.e. exactly (a 64-bit integer times
// a precision(g~)-bit number), then rounded once to P + 64 bits; so |t~ - p g_k| <= |p| r_k +
// |t~| 2^-(P+64). MPFR's sin_cos at P bits is correctly rounded (half an ulp <= 2^-(P+1), since
// |cos|, |sin| <= 1), so each of c~, s~ is within e = |p| r_k + |t~| 2^-(P+64) + 2^-(P+1) of the
// exact cos(p g_k), sin(p g_k). With |p| < 2^63 and P = 200 this is < 2^-136 absolute: the angle has
// more than 130 correct bits at any int64 position. The rotation y_a = x_a c~ - x_b s~ is formed
// with one rounding at P + 32 bits (x_b s~ is exact: 24 + P bits), so
//     |y~ - y| <= (|x_a| + |x_b|) e + |y~| 2^-(P+31) =: E   (evaluated upward in double in units
// of 2^-P, then scaled by 2^-P in MPFR: at P = 1024 and a subnormal input, E itself is below
// double's range).
//
// Rounding test. Round-to-nearest is monotone: if y~ - E and y~ + E round to the same float32
// (bfloat16), so does the exact y, and that value is the correctly rounded result. With
// E ~ ||x|| 2^-135 this fails only when y lies within E of a rounding boundary (a midpoint between
// two floats, or the overflow threshold). For a heuristically random y that happens with
// probability ~2^-135 / 2^-24 ulp = 2^-111 per output: never in any sweep this project runs; and
// y cannot sit exactly on a midpoint for any p != 0 with theta rational (x_a cos t - x_b sin t = m
// rational would make e^{it} algebraic for an algebraic t != 0, against Lindemann-Weierstrass).
// At angle 0 (p = 0, or g_k = 0 with a != 1) the map is a (x_a, x_b): with a stated decimal
// factor (a config's attention_factor) that can be an exact tie, so it is rounded exactly in
// rational arithmetic (numeric/round_to_binary.h) and `bits` is 0.
// When the test fails at P bits, the pair is recomputed at max_bits (default 1024). If it still
// fails, the component is reported as undecided (decided = false): never guessed. Callers count
// undecided components separately and exclude them from "correctly rounded" shares.
//
// Inputs must be finite (non-finite inputs have IEEE semantics, not an exact rotation: see
// cos_sin_double for the specials check). Identity pairs and pass-through elements are the
// identity: use exact_identity().
//
// Threads: construct one RopeReference on one thread (it reads Boost's process-wide precision
// once); copies share its frequencies and own their scratch, so each worker thread takes a copy.
// Every computation after construction uses raw mpfr_t with explicit precisions.
#pragma once

#include <mpfr.h>

#include <array>
#include <cstdint>
#include <memory>

#include "kernel/rope_plan.h"
#include "numeric/dtype.h"
#include "numeric/round_to_binary.h"

namespace ropecheck::accuracy {

struct RopeReferenceFactor;

inline constexpr unsigned kReferencePrecisionBits = 200;
inline constexpr unsigned kReferenceMaxPrecisionBits = 1024;

// One exact output component.
struct ExactComponent {
  double value = 0;  // the exact component rounded to nearest double (|error| <= E + 2^-53 |y|)
  // Per kernel dtype (kKernelDtypes' order): the correct rounding (RNE, subnormals, +-inf on
  // overflow; a value of that format, exact in double), and whether the rounding test decided it
  // (false: it failed even at max_bits, and rounded holds the rounding of y~).
  std::array<double, kKernelDtypes.size()> rounded{};
  std::array<bool, kKernelDtypes.size()> decided = filled(true);

  double in(Dtype t) const { return rounded[kernel_dtype_index(t)]; }
  bool decided_in(Dtype t) const { return decided[kernel_dtype_index(t)]; }
  bool all_decided() const;

 private:
  static constexpr std::array<bool, kKernelDtypes.size()> filled(bool v) {
    std::array<bool, kKernelDtypes.size()> a{};
    for (bool& b : a) b = v;
    return a;
  }
};

struct ExactPair {
  ExactComponent a, b;  // y_a = x_a cos - x_b sin, y_b = x_a sin + x_b cos
  double norm = 0;      // ||(x_a, x_b)|| in double (relative error <= 2^-52)
  unsigned bits = 0;    // the precision that decided (P, or max_bits after a failed test; 0: exact)
};

class RopeReference {
 public:
  // Throws InputError when precision_bits is outside [64, max_bits] or max_bits > 65536.
  explicit RopeReference(const kernel::RopePlan& plan, unsigned precision_bits = kReferencePrecisionBits,
                         unsigned max_bits = kReferenceMaxPrecisionBits);
  RopeReference(const RopeReference& other);  // shares the frequencies; own scratch (for a thread)
  RopeReference& operator=(const RopeReference&) = delete;
  ~RopeReference();

  unsigned precision_bits() const;
  unsigned max_bits() const;
  int block_pairs() const;

  // Computes cos and sin of p g_k at P bits for every rotating block pair.
  void set_position(std::int64_t p);
  std::int64_t position() const;

  // Returns: the exact rotation of (x_a, x_b) (finite) by the current position's angle for block
  // pair k, rounded as described above. Throws std::invalid_argument for non-finite inputs or an
  // identity pair.
  ExactPair rotate(int k, float x_a, float x_b);

  // Sets c, s = cos and sin of p g_k rounded to nearest double (identity pairs: 1, 0). Used to
  // build near-cancellation inputs and to evaluate the IEEE semantics of non-finite inputs.
  void cos_sin_double(int k, double& c, double& s) const;

  // Returns: the identity output of an element x (identity pairs, pass-through elements).
  static ExactComponent exact_identity(float x);

 private:
  struct Shared;
  struct Scratch;
  RopeReferenceFactor factor() const;
  std::shared_ptr<const Shared> shared_;
  std::unique_ptr<Scratch> scratch_;
};

// Returns: y rounded to nearest-even binary32 by MPFR's own mpfr_get_flt (NaN: the canonical NaN):
// the tests compare round_to_dtype (numeric/round_to_binary.h), which the reference uses, with it.
float round_to_f32(mpfr_srcptr y);
using ropecheck::round_to_binary;

}  // namespace ropecheck::accuracy
