#include "usage/pair_attribution.h"

#include "usage/head_attention.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace ropecheck::usage {

namespace {

void add_to(std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty()) a.assign(b.size(), 0.0);
  for (size_t i = 0; i < b.size(); ++i) a[i] += b[i];
}

}  // namespace

void PairAttribution::add(const PairAttribution& o) {
  if (offset_rows.empty()) {
    offset_rows.assign(o.offset_rows.size(), 0);
    offset_logit.assign(o.offset_logit.size(), {});
    offset_bound.assign(o.offset_bound.size(), {});
  }
  for (size_t d = 0; d < o.offset_rows.size(); ++d) {
    offset_rows[d] += o.offset_rows[d];
    add_to(offset_logit[d], o.offset_logit[d]);
    add_to(offset_bound[d], o.offset_bound[d]);
  }
  first_rows += o.first_rows;
  add_to(first_logit, o.first_logit);
  add_to(first_bound, o.first_bound);
  add_to(mean_logit, o.mean_logit);
  tokens += o.tokens;
  add_to(q_sum_a, o.q_sum_a);
  add_to(q_sum_b, o.q_sum_b);
  add_to(q_norm, o.q_norm);
}

void accumulate_pair_attribution(const LayerPairs& lp, const kernel::SinCosTable* table, const double* x_q, const double* x_k,
                                 long long tokens, int head_dim, std::optional<long long> window, int max_offset, PairAttribution& into) {
  const size_t P = lp.pairs.size();
  PairAttribution a;
  a.offset_rows.assign(static_cast<size_t>(max_offset) + 1, 0);
  a.offset_logit.assign(static_cast<size_t>(max_offset) + 1, std::vector<double>(P, 0.0));
  a.offset_bound = a.offset_logit;
  a.first_logit.assign(P, 0.0);
  a.first_bound.assign(P, 0.0);
  a.mean_logit.assign(P, 0.0);
  a.q_sum_a.assign(P, 0.0);
  a.q_sum_b.assign(P, 0.0);
  a.q_norm.assign(P, 0.0);
  // Row t of each: every pair's rotated chunk in pair order (head_attention.h's rotation).
  const RowMatrix q = pairs_in_order(lp, table, x_q, tokens, head_dim, false);
  const RowMatrix k = pairs_in_order(lp, table, x_k, tokens, head_dim, false);
  // Prefix sums of the rotated key chunks: the mean contribution over a row's visible keys is
  // <q_p(i), sum_j k_p(j)> / len.
  std::vector<double> prefix((static_cast<size_t>(tokens) + 1) * P * 2, 0.0);
  for (long long t = 0; t < tokens; ++t)
    for (size_t c = 0; c < P * 2; ++c) prefix[(static_cast<size_t>(t) + 1) * P * 2 + c] = prefix[static_cast<size_t>(t) * P * 2 + c] + k.data()[static_cast<size_t>(t) * P * 2 + c];
  // The table's c and s hold a: |R q| = a |q|, so products and bounds carry a^2 as the scores do.
  auto chunk = [&](const RowMatrix& v, long long t, size_t p) { return v.data() + (static_cast<size_t>(t) * P + p) * 2; };
  for (long long t = 0; t < tokens; ++t)
    for (size_t p = 0; p < P; ++p) {
      const double qa = x_q[t * head_dim + lp.pairs[p].first], qb = x_q[t * head_dim + lp.pairs[p].second];
      a.q_sum_a[p] += qa;
      a.q_sum_b[p] += qb;
      a.q_norm[p] += std::hypot(qa, qb);
    }
  a.tokens = tokens;
  for (long long i = 1; i < tokens; ++i) {
    const long long lo = window ? std::max(0LL, i - *window + 1) : 0;
    const long long len = i - lo + 1;
    for (int d = 0; d <= max_offset && d < len; ++d) {
      const long long j = i - d;
      a.offset_rows[static_cast<size_t>(d)] += 1;
      for (size_t p = 0; p < P; ++p) {
        const double* qi = chunk(q, i, p);
        const double* kj = chunk(k, j, p);
        a.offset_logit[static_cast<size_t>(d)][p] += qi[0] * kj[0] + qi[1] * kj[1];
        a.offset_bound[static_cast<size_t>(d)][p] += std::hypot(qi[0], qi[1]) * std::hypot(kj[0], kj[1]);
      }
    }
    if (lo == 0) {  // the rows that see the first token (all of them without a window)
      a.first_rows += 1;
      for (size_t p = 0; p < P; ++p) {
        const double* qi = chunk(q, i, p);
        const double* k0 = chunk(k, 0, p);
        const double* sum = &prefix[(static_cast<size_t>(i) + 1) * P * 2 + p * 2];
        a.mean_logit[p] += (qi[0] * sum[0] + qi[1] * sum[1]) / static_cast<double>(len);
        a.first_logit[p] += qi[0] * k0[0] + qi[1] * k0[1];
        a.first_bound[p] += std::hypot(qi[0], qi[1]) * std::hypot(k0[0], k0[1]);
      }
    }
  }
  into.add(a);
}

HeadAttribution head_attribution(const PairAttribution& a, std::optional<int> offset) {
  HeadAttribution h;
  const size_t P = a.first_logit.size();
  if (offset && *offset < static_cast<int>(a.offset_rows.size()) && a.offset_rows[static_cast<size_t>(*offset)] > 0) {
    h.offset = offset;
    const double n = static_cast<double>(a.offset_rows[static_cast<size_t>(*offset)]);
    for (size_t p = 0; p < P; ++p) {
      h.offset_logit.push_back(a.offset_logit[static_cast<size_t>(*offset)][p] / n);
      h.offset_bound.push_back(a.offset_bound[static_cast<size_t>(*offset)][p] / n);
    }
  }
  const double rows = static_cast<double>(std::max(1LL, a.first_rows));
  for (size_t p = 0; p < P; ++p) {
    h.first_logit.push_back(a.first_logit[p] / rows);
    h.first_advantage.push_back((a.first_logit[p] - a.mean_logit[p]) / rows);  // over the rows that see the first token
    h.q_constancy.push_back(a.q_norm[p] > 0 ? std::hypot(a.q_sum_a[p], a.q_sum_b[p]) / a.q_norm[p] : 0.0);
  }
  return h;
}

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::vector<std::pair<std::string, long long>> band_counts(const std::vector<Band>& bands) {
  std::vector<std::pair<std::string, long long>> out;
  for (Band b : {Band::fast, Band::middle, Band::slow, Band::still}) {
    const long long n = std::count(bands.begin(), bands.end(), b);
    if (n) out.push_back({band_name(b), n});
  }
  return out;
}

std::string counts_text(const std::vector<std::pair<std::string, long long>>& c) {
  std::string s;
  for (const auto& [band, n] : c) s += (s.empty() ? "" : ", ") + band + " " + std::to_string(n);
  return s.empty() ? "none" : s;
}

}  // namespace

AppendixE appendix_e(const std::vector<AttributedHead>& heads) {
  AppendixE e;
  std::vector<Band> pos_bands, sink_bands;
  std::vector<double> alignment, share, constancy;
  for (const AttributedHead& h : heads) {
    const HeadAttribution& a = *h.attribution;
    if (a.offset && !a.offset_logit.empty()) {
      const size_t top = static_cast<size_t>(std::max_element(a.offset_logit.begin(), a.offset_logit.end()) - a.offset_logit.begin());
      e.positional_heads += 1;
      pos_bands.push_back(h.pairs->pairs[top].band);
      if (a.offset_bound[top] > 0) alignment.push_back(a.offset_logit[top] / a.offset_bound[top]);
    }
    if (h.sink && !a.first_advantage.empty()) {
      const size_t top = static_cast<size_t>(std::max_element(a.first_advantage.begin(), a.first_advantage.end()) - a.first_advantage.begin());
      double positive = 0;
      for (double v : a.first_advantage) positive += std::max(0.0, v);
      e.sink_heads += 1;
      sink_bands.push_back(h.pairs->pairs[top].band);
      if (positive > 0) share.push_back(a.first_advantage[top] / positive);
      constancy.push_back(a.q_constancy[top]);
    }
  }
  e.positional_top_band = band_counts(pos_bands);
  e.sink_top_band = band_counts(sink_bands);
  e.positional_alignment_median = median(alignment);
  e.sink_top_share_median = median(share);
  e.sink_constancy_median = median(constancy);
  char line[600];
  std::snprintf(line, sizeof line,
                "measured: %lld heads with a positional offset, the pair carrying most of their logit there by band: %s (its contribution over "
                "its Cauchy-Schwarz bound, median %.3g; 1 is q = R k exactly); %lld first-token heads, the pair carrying most of their "
                "first-token advantage by band: %s (its share of the positive advantage, median %.3g; its query's constancy, median %.3g)",
                e.positional_heads, counts_text(e.positional_top_band).c_str(), e.positional_alignment_median, e.sink_heads,
                counts_text(e.sink_top_band).c_str(), e.sink_top_share_median, e.sink_constancy_median);
  e.statement = line;
  return e;
}

}  // namespace ropecheck::usage
