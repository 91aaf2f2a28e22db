#include "usage/positional_component.h"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "statistics/inference.h"
#include "statistics/moments.h"

namespace ropecheck::usage {

double component_t_critical(double alpha, long long family, long long sequences) {
  if (sequences < 2 || family < 1) return std::numeric_limits<double>::infinity();
  const boost::math::students_t_distribution<double> t(static_cast<double>(sequences - 1));
  return boost::math::quantile(boost::math::complement(t, alpha / (2.0 * static_cast<double>(family))));
}

HeadComponent head_component(const std::vector<SequenceOffsets>& per_sequence, double level, double cut) {
  HeadComponent c;
  const size_t offsets = per_sequence.empty() ? 0 : per_sequence.front().mass.size();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  for (size_t d = 0; d < offsets; ++d) {
    OffsetEffect e;
    e.offset = static_cast<int>(d);
    statistics::Moments mass, free, effect;  // exact sums (statistics/moments.h): any order, the same bits
    for (const SequenceOffsets& s : per_sequence) {
      if (std::isnan(s.mass[d])) continue;
      mass.add(s.mass[d]);
      free.add(s.position_free[d]);
      effect.add(s.mass[d] - s.position_free[d]);
    }
    e.sequences = effect.n;
    e.lo = -kInf;
    e.hi = kInf;
    if (e.sequences > 0) {
      e.mass = statistics::summarize(mass).mean;
      e.position_free = statistics::summarize(free).mean;
      const statistics::Summary s = statistics::summarize(effect);
      e.effect = s.mean;
      if (e.sequences >= 2) {
        const statistics::Interval2 i = statistics::mean_interval(s, level);  // Student t, the project's one
        e.lo = i.lo;
        e.hi = i.hi;
      }
    }
    c.offsets.push_back(e);
  }
  for (const OffsetEffect& e : c.offsets)
    if (e.lo >= cut && (!c.offset || e.effect > c.offsets[static_cast<size_t>(*c.offset)].effect)) c.offset = e.offset;
  return c;
}

ComponentTest component_curve(const std::vector<const HeadComponent*>& heads, double cut, double alpha, long long family,
                              long long sequences, double t_critical) {
  ComponentTest t;
  t.cut = cut;
  t.alpha = alpha;
  t.family = family;
  t.sequences = sequences;
  t.t_critical = t_critical;
  t.heads = static_cast<long long>(heads.size());
  for (const HeadComponent* h : heads) t.with_component += h->offset.has_value();
  for (double c : {0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5}) {
    ComponentCurvePoint p;
    p.cut = c;
    for (const HeadComponent* h : heads) {
      double best = -1, best_lo = -1, best_hi = -1;
      for (const OffsetEffect& e : h->offsets) {
        best = std::max(best, e.effect);
        best_lo = std::max(best_lo, e.lo);
        best_hi = std::max(best_hi, e.hi);
      }
      p.count += best >= c;
      p.lo += best_lo >= c;
      p.hi += best_hi >= c;
    }
    t.curve.push_back(p);
  }
  char line[400];
  if (std::isfinite(t_critical))
    std::snprintf(line, sizeof line,
                  "measured over %lld sequences: %lld of %lld heads have a positional component (offset mass the rotation adds over the "
                  "position-free null, simultaneous lower bound >= %.3g; t %.3g, family %lld, alpha %.3g)",
                  sequences, t.with_component, t.heads, cut, t_critical, family, alpha);
  else
    std::snprintf(line, sizeof line, "%lld sequence(s): the positional-component test needs at least 2 sequences; nothing decided", sequences);
  t.statement = line;
  return t;
}

}  // namespace ropecheck::usage
