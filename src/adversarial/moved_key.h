// File: moved_key.h
// Theorem 6.1 on a captured head: how far can the key a query matches best be moved before the
// row's runner-up key beats it? The query q, the winning key k and the runner-up key k' are real
// vectors (a capture's), the runner-up stays at its distance d', and the winning key is moved back
// from where it is, to distance t = d, d + 1, ... (d = from_distance) with the same vectors and the
// exact rotation: the longer context Theorem 6.1 speaks of. It loses at t when
//   a(t) = q^T R^(-t) k  <  a' = q^T R^(-d') k'        (activations of head.h: rotation only),
// i.e. the runner-up wins the row's argmax (and, by monotonicity, its softmax ranking: the scale and
// a softcap do not change an order). Channels outside the rotary part add the same constant to
// every distance (the pass-through dot products).
// With a MARGIN m (default 0) it loses at t when a(t) < a' + m: the theorem's own notion, a key that
// must hold a share of the row above 1 - epsilon, is such a threshold (usage/content_breaks.h derives
// m from the row's other keys). m is known only to lie in [margin_low, margin_high]: a distance counts
// as losing only when a(t) - a' < margin_low certainly, as winning only when a(t) - a' > margin_high.
//
// Certified: one pass over t in [from_distance, max_distance] with the bounded scan's binary64 activations and
// their proved error budget (detail/float_activations.h: |a^ - a| <= E), the pass-through dots and
// the final subtraction with their own rounding bounds; a distance that budget cannot decide is
// evaluated in MPFI (128 bits, then 256 and 512) before it counts as undecided. The first distance
// that certainly loses is returned with the certificate that every shorter distance certainly wins
// (its minimality), or the certificate that no distance up to max_distance loses.
#pragma once

#include <string>
#include <vector>

#include "spectrum/spectrum.h"

namespace ropecheck::adversarial {

struct MovedKey {
  Spectrum spectrum{2, "10000"};  // the rotary part's spectrum; chunk p is (x[2p], x[2p+1])
  std::vector<double> query, key, runner;                  // rotary components, spectrum.dim() each
  std::vector<double> query_pass, key_pass, runner_pass;   // unrotated channels, equal lengths (may be empty)
  long long runner_distance = 0;                           // d' >= 0
  long long from_distance = 0;                             // d: where the key is now, >= 0
  double margin_low = 0, margin_high = 0;                  // the threshold m over a', finite, low <= high
};

struct MovedKeyBreak {
  enum class Outcome {
    found,      // `distance`: certainly loses there; every t < distance certainly wins
    none,       // every t in [from_distance, max_distance] certainly wins
    undecided,  // `distance`: the first t neither budget nor MPFI at 512 bits decided (all shorter win)
  };
  Outcome outcome = Outcome::undecided;
  long long distance = 0;
  long long max_distance = 0;
  long long mpfi_distances = 0;  // distances the binary64 budget left to MPFI
  double runner_activation = 0;  // a' (binary64 estimate)
  std::string method;            // "binary64 with proved error bounds" [+ ", MPFI at N bits at M distances"]
};

std::string outcome_name(MovedKeyBreak::Outcome o);  // "found", "none", "undecided"

// Returns: the certified shortest losing distance, as above. Throws InputError for vectors of the
// wrong length, NaN or infinite components or margins, margin_low > margin_high, runner_distance or
// from_distance < 0, or max_distance
// outside [from_distance, 2^40]. Cost: (max_distance + 1) x (rotating chunks) kernel sin/cos, ~1 s per 10^6 distances
// at 64 chunks.
MovedKeyBreak certify_moved_key_break(const MovedKey& m, long long max_distance);

}  // namespace ropecheck::adversarial
