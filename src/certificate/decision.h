// File: decision.h
// A verdict from its conjuncts, each a Decision (numeric/decision.h: certainly true, certainly
// false, or not decided). A check whose statement is a conjunction combines them with `combine`,
// so that an undecided part can never turn into a pass.
#pragma once

#include <initializer_list>
#include <string>

#include "certificate/certificate.h"
#include "numeric/decision.h"

namespace ropecheck {

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
