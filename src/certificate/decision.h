// File: decision.h
// One conjunct of a verdict, as the enclosures decided it: certainly true, certainly false, or not
// decided. A check whose statement is a conjunction combines them with `combine`, so that an
// undecided part can never turn into a pass.
#pragma once

#include <initializer_list>
#include <string>

#include "certificate/certificate.h"

namespace ropecheck {

enum class Decision { yes, no, undecided };

// Returns: "yes", "no", "undecided".
inline std::string decision_name(Decision d) { return d == Decision::yes ? "yes" : d == Decision::no ? "no" : "undecided"; }

// Returns: yes when every point of a is below every point of b, no when every point of a is at or
// above every point of b, undecided when the enclosures overlap (endpoints only, see scalar.h).
inline Decision decide_less(const Real& a_lower, const Real& a_upper, const Real& b_lower, const Real& b_upper) {
  return a_upper < b_lower ? Decision::yes : a_lower >= b_upper ? Decision::no : Decision::undecided;
}
inline Decision decide_less(const Interval& a, const Interval& b) { return decide_less(lower_of(a), upper_of(a), lower_of(b), upper_of(b)); }

// Returns: `if_false` when some part is certainly false, `if_true` when every part is certainly
// true, inconclusive otherwise (a decided "no" outranks an undecided part: it settles the conjunction).
inline Verdict combine(std::initializer_list<Decision> parts, Verdict if_true = Verdict::holds, Verdict if_false = Verdict::fails) {
  bool all_yes = true;
  for (Decision d : parts) {
    if (d == Decision::no) return if_false;
    all_yes = all_yes && d == Decision::yes;
  }
  return all_yes ? if_true : Verdict::inconclusive;
}

}  // namespace ropecheck
