#include "usage/distance_logits.h"

#include <cmath>
#include <limits>

#include "statistics/inference.h"
#include "statistics/moments.h"

namespace ropecheck::usage {

namespace {

MeanWithInterval interval_of(const std::vector<double>& v) {
  statistics::Moments m;  // exact sums (statistics/moments.h)
  for (double x : v)
    if (!std::isnan(x)) m.add(x);
  MeanWithInterval out;
  out.n = m.n;
  out.lo = -std::numeric_limits<double>::infinity();
  out.hi = std::numeric_limits<double>::infinity();
  if (m.n == 0) return out;
  const statistics::Summary s = statistics::summarize(m);
  out.mean = s.mean;
  if (m.n >= 2) {
    const statistics::Interval2 i = statistics::mean_interval(s, 0.95);  // two-sided 95% Student t
    out.lo = i.lo;
    out.hi = i.hi;
  }
  return out;
}

}  // namespace

std::vector<DistanceBucket> distance_logits(const std::vector<SequenceDistanceLogits>& per_sequence) {
  std::vector<DistanceBucket> out;
  const size_t buckets = per_sequence.empty() ? 0 : per_sequence.front().logit.size();
  for (size_t b = 0; b < buckets; ++b) {
    DistanceBucket d;
    d.from = b == 0 ? 0 : 1LL << (b - 1);
    d.to = b == 0 ? 1 : 1LL << b;
    std::vector<double> logit, free, diff;
    for (const SequenceDistanceLogits& s : per_sequence) {
      logit.push_back(s.logit[b]);
      free.push_back(s.position_free[b]);
      diff.push_back(s.logit[b] - s.position_free[b]);
    }
    d.logit = interval_of(logit);
    d.position_free = interval_of(free);
    d.difference = interval_of(diff);
    out.push_back(d);
  }
  return out;
}

std::vector<SequenceDistanceLogits> mean_over_heads(const std::vector<const std::vector<SequenceDistanceLogits>*>& heads) {
  std::vector<SequenceDistanceLogits> out;
  if (heads.empty()) return out;
  const size_t sequences = heads.front()->size();
  for (size_t s = 0; s < sequences; ++s) {
    SequenceDistanceLogits m;
    const size_t buckets = (*heads.front())[s].logit.size();
    m.logit.assign(buckets, 0.0);
    m.position_free.assign(buckets, 0.0);
    for (const auto* h : heads)
      for (size_t b = 0; b < buckets; ++b) {
        m.logit[b] += (*h)[s].logit[b] / static_cast<double>(heads.size());
        m.position_free[b] += (*h)[s].position_free[b] / static_cast<double>(heads.size());
      }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace ropecheck::usage
