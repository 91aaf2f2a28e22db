#include "usage/usage_compare.h"

#include <cmath>
#include <limits>

#include "io/input_error.h"
#include "io/printf_string.h"

namespace ropecheck::usage {

namespace {

// Pearson's r of two equal-length samples (two-pass: means first); NaN when either is constant.
double pearson(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx == 0 || syy == 0) return std::numeric_limits<double>::quiet_NaN();
  return sxy / std::sqrt(sxx * syy);
}

std::vector<LayerNorms> norms_of(const UsageResult& r) {
  std::vector<LayerNorms> out;
  for (const LayerUsage& lu : r.layers) {
    LayerNorms n{lu.q_norm, lu.k_norm, {}};
    for (const HeadUsage& h : lu.heads) n.kinds.push_back(h.kind());
    out.push_back(std::move(n));
  }
  return out;
}

}  // namespace

std::vector<std::vector<double>> usage_shares(const std::vector<LayerNorms>& layers) {
  std::vector<std::vector<double>> out;
  for (const LayerNorms& l : layers) {
    std::vector<double> u(l.q_norm.size());
    double all = 0;
    for (size_t p = 0; p < u.size(); ++p) all += (u[p] = l.q_norm[p] + l.k_norm[p]);
    for (double& v : u) v = all > 0 ? v / all : 0;
    out.push_back(std::move(u));
  }
  return out;
}

UsageSimilarity compare_usage(const std::vector<LayerNorms>& a, const std::vector<LayerNorms>& b) {
  if (a.size() != b.size())
    throw InputError("b", "a capture of " + std::to_string(a.size()) + " layers (the first capture's)", std::to_string(b.size()) + " layers");
  if (a.empty()) throw InputError("a", "a capture of at least one layer", "none");
  for (size_t l = 0; l < a.size(); ++l)
    if (a[l].q_norm.size() != b[l].q_norm.size() || a[l].k_norm.size() != a[l].q_norm.size() || b[l].k_norm.size() != b[l].q_norm.size())
      throw InputError("b", "layer " + std::to_string(l) + " with " + std::to_string(a[l].q_norm.size()) + " pairs (the first capture's)",
                       std::to_string(b[l].q_norm.size()) + " pairs");
  const auto ua = usage_shares(a), ub = usage_shares(b);
  UsageSimilarity s;
  std::vector<double> xa, xb;
  for (size_t l = 0; l < ua.size(); ++l) {
    s.per_layer.push_back(pearson(ua[l], ub[l]));
    for (size_t p = 0; p < ua[l].size(); ++p) {
      xa.push_back(ua[l][p]);
      xb.push_back(ub[l][p]);
      s.max_difference = std::max(s.max_difference, std::fabs(ua[l][p] - ub[l][p]));
    }
  }
  s.points = static_cast<long long>(xa.size());
  s.correlation = pearson(xa, xb);
  s.statement = printf_string("measured: per-pair usage shares over %lld (layer, pair) points correlate with r = %.4f (largest share difference %.4f)",
                              s.points, s.correlation, s.max_difference);
  long long same = 0, heads = 0;
  bool classified = true;
  for (size_t l = 0; l < a.size(); ++l) {
    classified = classified && !a[l].kinds.empty() && a[l].kinds.size() == b[l].kinds.size();
    for (size_t h = 0; classified && h < a[l].kinds.size(); ++h) {
      ++heads;
      same += a[l].kinds[h] == b[l].kinds[h];
    }
  }
  if (classified && heads > 0) {
    s.kinds_agree = static_cast<double>(same) / static_cast<double>(heads);
    s.statement += printf_string("; %lld of %lld heads of the same kind", same, heads);
  }
  return s;
}

UsageSimilarity compare_usage(const UsageResult& a, const UsageResult& b) {
  UsageSimilarity s = compare_usage(norms_of(a), norms_of(b));
  s.statement += "; " + a.capture + " vs " + b.capture;
  return s;
}

}  // namespace ropecheck::usage
