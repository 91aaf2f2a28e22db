// File: detail/thresholds.h
// A head's decimal thresholds enclosed exactly in MPFI, shared by the MPFI certificates
// (certify.cpp) and the binary64 ones (bounded_scan.cpp, bounded_attention.cpp).
#pragma once

#include "adversarial/head.h"
#include "numeric/scalar.h"

namespace ropecheck::adversarial::detail {

struct Thresholds {
  Interval one_minus_eps, break_at;
  Interval works_ratio;   // eps / (1 - eps): works at distance s iff E_t(s) eps/(1-eps) + E_o(s) > S_L
  Interval breaks_ratio;  // (1 - b) / b: breaks iff E_t(s) (1-b)/b + E_o(s) <= S_L (set when b > 0 certainly)
  bool break_possible = true;  // break_at > 0 possibly (b = 0: alpha > 0 always, nothing breaks)
};

// Returns: the enclosures at `bits` of precision (the caller's ScopedPrecision is not used).
Thresholds thresholds(const Head& head, unsigned bits);

// A positive real enclosed by an MPFI interval, as a binary64 value v and a relative radius rel:
// the real lies in [v (1 - rel), v (1 + rel)]. Returns rel < 0 when the interval is not positive
// or not within [2^-100, 2^100] (the range the binary64 certificates accept).
struct RelativeEnclosure {
  double value = 0;
  double rel = -1;
};
RelativeEnclosure relative_enclosure(const Interval& x);

}  // namespace ropecheck::adversarial::detail
