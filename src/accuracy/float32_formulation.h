// File: float32_formulation.h
// What the standard float32 formulation of RoPE can produce for one output element: the bound
// check_rope holds anyone's RoPE to by default (element_check.h, Bound::formulation).
//
// The formulation, as production code writes it (transformers, vLLM's table builder, llama.cpp,
// TransformerEngine, torchtune; ../shared/notes/peer-rope-implementations.md):
//   g^   = the pair's frequency evaluated in float32 from the config (theta^(-e/D) by powf, or by
//          ggml's recurrence g_k = g_{k-1} * powf(theta, -2/D); then the scaling rule in float32);
//   t^   = fl32(fl32(p) g^)                          (the position converted, one product);
//   c^, s^ = cos t^, sin t^ within 2 ulp each (glibc, SLEEF u10, NumPy, CUDA's cosf/sinf);
//   c', s' = fl32(fl32(a) c^), fl32(fl32(a) s^)      (a the attention factor, when not 1);
//   y^   = fl32(fl32(x_a c') - fl32(x_b s')), ...   (or with an FMA), then ONE rounding to the
//          output dtype: RN_d(y^).
// Error analysis (u = 2^-24; proofs in float32_formulation.cpp beside each term):
//   frequency  |g^ - g| <= eps_f g, eps_f from frequency_error(): the larger of the powf path
//              ((|ln theta'| e + e + 3) u, e = 2i/D, the exponent's rounding magnified by ln theta')
//              and the recurrence path (k (3 + 2 |ln theta'| / D) + 1) u, plus the rule's own term
//              (linear u; llama3 and yarn (F - 1)-fold amplification of their blend's error; longrope
//              3u; dynamic 7 e u for theta' in float32).
//   angle      |t^ - p g| <= delta = |p| g ((1 + eps_f)(1 + u)^2 - 1): grows with |p|, and for
//              delta >= pi every angle is reachable (at 2^40 a float32 angle is noise).
//   cos, sin   {c^} = {cos t : |t - p g| <= delta} widened by 2 ulp <= 4u relative.
//   output     the exact a R(p g) x rotated by any tau in [-delta, delta] (the range of each
//              component over tau computed exactly: endpoints and the interior extremum), widened
//              by E = a (|x_a| C + |x_b| S) gamma + 2^-146, C, S the largest |cos|, |sin| over the
//              angle interval, gamma = (1 + 4u)(1 + 5u)(1 + u)^3 - 1 (libm, the factor's float32
//              value and product, the two products and the sum; each term only where the operation
//              is inexact: at p = 0 and a = 1 the formulation is exact) and a relative 2^-48 for
//              this computation's own binary64 arithmetic.
// Accepted: every value of the output format between RN_d(RN32(lo)) and RN_d(RN32(hi)) (rounding is
// monotone, so this contains every output the formulation can produce; it exceeds them by at most
// the slack above), +-inf when an intermediate float32 product can overflow though the result is
// finite (a near the format's maximum with a > 1), and NaN when both can. Non-finite inputs and two
// signed zeros: every IEEE result of the formula over the signs cos and sin can take on the angle
// interval (sin is exactly 0 only at p = 0; a float32 cos is never 0).
// Tables::dtype widens the formulation to cos and sin rounded to the output dtype after the
// float32 steps above (c_d = RN_d(c'), s_d = RN_d(s')), with the products and the sum either in
// float32 (vLLM's cos_sin_cache in the model dtype, upcast for the FMA) or each rounded to the dtype
// (transformers' apply_rotary_pos_emb: cos.to(x.dtype), q * cos + rotate_half(q) * sin in bf16):
// c_d and s_d range independently over the roundings of their float32 ranges, each product over
// its interval (exact in binary64: at most 24 + 24 bits) and its rounding to the dtype, the sum over
// the difference of the product intervals, widened by one float32 rounding; the accepted range is
// the hull of that and the float32 tables' (float32 tables stay accepted). For float32 output the
// two are the same formulation.
// Certified: the bound is an enclosure (the frequency from binary64 with relative error below
// 2^-50, absorbed in the 2^-48), never a sampled figure. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "accuracy/rope_reference.h"
#include "kernel/rope_plan.h"
#include "numeric/dtype.h"

namespace ropecheck::accuracy {

// Where the formulation's cos and sin live: float32 (the standard formulation) or rounded to the
// output dtype (the tables transformers and vLLM build). The one list: names, parsing and Python's
// tables= keyword follow it.
enum class Tables { float32 = 0, dtype = 1 };
inline constexpr Tables kTables[] = {Tables::float32, Tables::dtype};
// Returns: "float32", "dtype".
const char* tables_name(Tables t);
// Returns: the Tables called `name`, or nullopt.
std::optional<Tables> parse_tables(std::string_view name);

// The accepted outputs of one component.
struct ComponentReach {
  double lo = 0, hi = 0;       // the accepted values of the format (inclusive; may be -inf / +inf)
  bool infinities = false;     // +-inf accepted besides (an intermediate product may overflow)
  bool nan = false;            // a NaN accepted besides (both products may overflow)
  // Returns: whether the format value v (a double) is accepted.
  bool accepts(double v) const;
};

// The accepted outputs of a special component (non-finite inputs, two signed zeros): up to six
// values (+-0, +-inf, NaN), compared as values except that zeros compare by sign.
struct SpecialReach {
  double values[6] = {0, 0, 0, 0, 0, 0};
  int count = 0;
  bool accepts(double v) const;
};

class Float32Formulation {
 public:
  explicit Float32Formulation(const kernel::RopePlan& plan, Tables tables = Tables::float32);

  // Returns: eps_f, the relative error bound of pair k's float32 frequency (block pair k).
  double frequency_error(int k) const;
  // Returns: delta, the bound of the float32 angle's error at position p, in radians (+inf when
  // it would overflow a double).
  double angle_error(int k, std::int64_t p) const;
  // The accepted outputs of block pair k at position p (the plan's rotating pairs: identity pairs
  // are copies, not rotations) for finite inputs (xa, xb), not both zero. exact: the reference's
  // rotation of them; (c, s): a cos and a sin of the exact angle, a the attention factor
  // (RopeReference::cos_sin_double).
  // Returns: the angle bound delta it used (angle_error(k, p)).
  double reach(int k, std::int64_t p, double xa, double xb, const ExactPair& exact, double c, double s, Dtype f,
               ComponentReach out[2]) const;
  // The accepted outputs for inputs with an infinity or a NaN, or two signed zeros.
  void special_reach(int k, std::int64_t p, double xa, double xb, double c, double s, Dtype f, SpecialReach out[2]) const;

 private:
  std::vector<double> frequency_;  // g_k in binary64 (relative error <= 2^-50)
  std::vector<double> error_;      // eps_f per block pair
  double factor_ = 1;
  Tables tables_ = Tables::float32;
  // The ranges of cos and sin over [t - delta, t + delta], from cos t and sin t (c, s).
  static void cos_sin_ranges(double c, double s, double delta, double& clo, double& chi, double& slo, double& shi);
  // Those ranges widened to what c' = fl32(fl32(a) cos^) and s' can be (inclusive).
  void table_ranges(std::int64_t p, double& clo, double& chi, double& slo, double& shi) const;
  void dtype_tables_reach(std::int64_t p, double xa, double xb, double clo, double chi, double slo, double shi, Dtype f,
                          ComponentReach out[2]) const;
};

}  // namespace ropecheck::accuracy
