// File: angle_sweep.h
// Enclosures of cos(r g_k) and sin(r g_k) for every integer distance r in 0..r_max and every
// frequency g_k: what a check needs when it sweeps every distance of a context (cosine sums,
// Frobenius norms, partial sums of e^(i r g_k)).
//
// Why not one sin_cos per (r, k): at 257 bits that is ~2.7 us, and a sweep of 8193 distances x 128
// pairs would take ~3 s. Writing r = B m + j (B = ceil(sqrt(r_max + 1)), 0 <= j < B), the sweep keeps
// two small tables, cos/sin(j g_k) and cos/sin(B m g_k), each entry one sin_cos (numeric/scalar.h),
// and forms every (r, k) from the addition formulas
//   cos((Bm + j) g) = cos(Bm g) cos(j g) - sin(Bm g) sin(j g),
//   sin((Bm + j) g) = sin(Bm g) cos(j g) + cos(Bm g) sin(j g),
// four interval products (~8x cheaper). The formulas are identities for every real g, and both
// table entries enclose their function at every g in the enclosure g_k, so each result encloses
// cos(r g), sin(r g) for every g in g_k: as rigorous as direct evaluation. Unlike a rotation
// recurrence (which wraps intervals and doubles widths every few steps) nothing is iterated, so
// the width does not grow with r beyond the r * rad(g_k) that direct evaluation has too.
#pragma once

#include <cstddef>
#include <vector>

#include "numeric/scalar.h"

namespace ropecheck {

class AngleSweep {
 public:
  // g: enclosures of the frequencies (0 for unrotated pairs: then cos = 1 and sin = 0 exactly),
  // all at the current precision p, which every entry is computed and returned at.
  // Preconditions: r_max >= 0, r_max < 2^52 (exact integer angles), g non-empty.
  AngleSweep(const std::vector<Interval>& g, long long r_max);

  long long r_max() const { return r_max_; }
  std::size_t pairs() const { return pairs_; }

  // Sets c[k] to an enclosure of cos(r g_k) and s[k] of sin(r g_k) for every real g_k in its
  // enclosure (resizing c and s to pairs()). Preconditions: 0 <= r <= r_max.
  void row(long long r, std::vector<Interval>& c, std::vector<Interval>& s) const;
  // The same for cos only, or sin only (two products per entry instead of four).
  void cos_row(long long r, std::vector<Interval>& c) const;
  void sin_row(long long r, std::vector<Interval>& s) const;

  // Returns: an a-priori bound on the width (upper - lower) of every entry row() and cos_row()
  // return, from the input widths only (so a check can bound its output widths before it runs):
  //   W = 6 (2 rho + 8 e) + 12 e,  rho = r_max max_k rad(g_k) + 4 r_max max_k |g_k| e + e,  e = 2^-p.
  // Derivation: an angle x = n g_k (n <= r_max) has rad(x) <= n rad(g_k) + 2 |x| e (MPFI rounds each
  // endpoint outward by <= ulp(|x|) <= 2 |x| e); sin_cos measures the radius from the midpoint, rounded
  // to nearest (another <= 2 |x| e) and rounds it up (<= e): at most rho. Its sin/cos have width
  // <= 2 (rho + e) (1-Lipschitz, plus MPFR's error <= one ulp of a value <= 1) + 2e (outward rounding
  // of both endpoints): ws <= 2 rho + 8e. A product of two table entries (both within [-1, 1]) has
  // width <= 2 ws + 2e <= 3 ws + 4e; the difference (or sum) of two products adds their widths and
  // <= 4e of rounding (|value| <= 2): <= 6 ws + 12e. (Wide angles, rad > 1/8, go to MPFI's endpoint
  // analysis, whose width is also <= 2 rad(x) + rounding, so the bound holds there too.)
  Real width_bound() const { return width_bound_; }

 private:
  long long r_max_;
  long long block_;
  std::size_t pairs_;
  std::vector<Interval> small_c_, small_s_;  // cos/sin(j g_k), index j * pairs + k, 0 <= j < block
  std::vector<Interval> big_c_, big_s_;      // cos/sin(block m g_k), index m * pairs + k
  Real width_bound_;
};

}  // namespace ropecheck
