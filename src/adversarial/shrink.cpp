#include "adversarial/shrink.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ropecheck::adversarial {
namespace {

std::vector<std::vector<double>*> vectors_of(Head& h) {
  std::vector<std::vector<double>*> v = {&h.query, &h.target};
  for (auto& k : h.distractors) v.push_back(&k);
  if (h.bos) v.push_back(&*h.bos);
  return v;
}

// x rounded to `digits` significant decimal digits (then to the nearest binary64).
double round_decimal(double x, int digits) {
  if (x == 0 || !std::isfinite(x)) return x;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*e", digits - 1, x);
  return std::strtod(buf, nullptr);
}

// x rounded to the nearest power of two (sign kept); 0 stays 0.
double round_power_of_two(double x) {
  if (x == 0 || !std::isfinite(x)) return x;
  int e = 0;
  const double m = std::frexp(std::fabs(x), &e);  // |x| = m 2^e, m in [0.5, 1)
  const double p = m < 0.75 ? std::ldexp(1.0, e - 1) : std::ldexp(1.0, e);
  return x < 0 ? -p : p;
}

}  // namespace

ShrinkResult shrink(const Head& head, ScanResult found, long long max_context, int max_tries) {
  ShrinkResult r;
  r.head = head;
  r.scan = std::move(found);
  // Accepts `candidate` when it still breaks, certified, within max_context.
  auto attempt = [&](const Head& candidate) {
    if (r.tried >= max_tries || active_chunks(candidate).empty()) return false;
    ++r.tried;
    ScanResult s = scan_and_certify(candidate, max_context, false);
    if (!s.found) return false;
    r.head = candidate;
    r.scan = std::move(s);
    ++r.steps;
    return true;
  };
  // 1. Fewer non-zero chunks: drop one chunk at a time from every vector.
  for (bool progress = true; progress;) {
    progress = false;
    const std::vector<int> active = active_chunks(r.head);
    if (active.size() <= 1) break;
    for (int p : active) {
      Head c = r.head;
      for (auto* v : vectors_of(c)) (*v)[2 * p] = (*v)[2 * p + 1] = 0.0;
      if (attempt(c)) {
        progress = true;
        break;
      }
    }
  }
  // 2. Simpler numbers: every component to 1, 2, 3 significant digits (the first that still breaks),
  //    then each vector's components to powers of two.
  for (int digits = 1; digits <= 3; ++digits) {
    Head c = r.head;
    bool changed = false;
    for (auto* v : vectors_of(c))
      for (double& x : *v) {
        const double y = round_decimal(x, digits);
        changed = changed || y != x;
        x = y;
      }
    if (!changed || attempt(c)) break;
  }
  {
    Head c = r.head;
    for (auto* v : vectors_of(c)) {
      std::vector<double> old = *v;
      for (double& x : *v) x = round_power_of_two(x);
      if (*v == old) continue;
      if (!attempt(c)) c = r.head;
    }
  }
  return r;
}

}  // namespace ropecheck::adversarial
