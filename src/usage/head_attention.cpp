#include "usage/head_attention.h"

#include <algorithm>
#include <cmath>

namespace ropecheck::usage {

namespace {

// Columns of one band's matrix: 2 per pair, in pair order.
struct BandColumns {
  std::vector<int> fast, rest, slow;
};

BandColumns band_columns(const LayerPairs& lp) {
  BandColumns b;
  for (size_t i = 0; i < lp.pairs.size(); ++i) {
    const Band band = lp.pairs[i].band;
    (band == Band::fast ? b.fast : band == Band::slow ? b.slow : b.rest).push_back(static_cast<int>(i));
  }
  // rest: middle pairs first, then still ones (the products do not care; the order is fixed).
  std::stable_partition(b.rest.begin(), b.rest.end(), [&](int i) { return lp.pairs[static_cast<size_t>(i)].band == Band::middle; });
  return b;
}

// y = (c x_a - s x_b, s x_a + c x_b) with c, s from the table (a cos, a sin); a pass-through pair is
// copied; `still` = true writes the unrotated pair scaled by a instead.
void fill(RowMatrix& out, const std::vector<int>& which, const LayerPairs& lp, const kernel::SinCosTable* table, const double* x,
          long long tokens, int head_dim, bool still) {
  out.resize(tokens, 2 * static_cast<Eigen::Index>(which.size()));
  for (long long t = 0; t < tokens; ++t) {
    const double* row = x + t * head_dim;
    const double* c = table ? table->cos_row(t) : nullptr;
    const double* s = table ? table->sin_row(t) : nullptr;
    for (size_t j = 0; j < which.size(); ++j) {
      const HeadPair& p = lp.pairs[static_cast<size_t>(which[j])];
      const double xa = row[p.first], xb = row[p.second];
      double ya = xa, yb = xb;
      if (p.block >= 0 && still) {
        ya = lp.attention_factor * xa;
        yb = lp.attention_factor * xb;
      } else if (p.block >= 0) {
        ya = c[p.block] * xa - s[p.block] * xb;
        yb = s[p.block] * xa + c[p.block] * xb;
      }
      out(t, 2 * static_cast<Eigen::Index>(j)) = ya;
      out(t, 2 * static_cast<Eigen::Index>(j) + 1) = yb;
    }
  }
}

std::vector<int> every_pair(const LayerPairs& lp) {
  std::vector<int> every(lp.pairs.size());
  for (size_t i = 0; i < every.size(); ++i) every[i] = static_cast<int>(i);
  return every;
}

// out's rows [0, rn), columns [0, cn) = a[r0 .. r0 + rn) * keys[c0 .. c0 + cn)^T (detail/score_product.h;
// c0 a multiple of 8). `out` is allocated once per head (rows >= rn, columns >= cn): no allocation per block.
void product(RowMatrix& out, const RowMatrix& a, Eigen::Index r0, Eigen::Index rn, const detail::PackedKeys& keys, Eigen::Index c0,
             Eigen::Index cn, cpu::Path path) {
  detail::score_block(path, a.data() + r0 * a.cols(), static_cast<long>(a.cols()), static_cast<long>(rn), keys, static_cast<long>(c0),
                      static_cast<long>(cn), out.data(), static_cast<long>(out.cols()));
}

// The first key row i sees: 0, or i - W + 1 under a sliding window W.
Eigen::Index first_key(const AttentionSettings& st, Eigen::Index i) {
  return st.window ? std::max<Eigen::Index>(0, i - static_cast<Eigen::Index>(*st.window) + 1) : 0;
}

// The score products of query rows [i0, i0 + n) against keys [c0, c0 + cn): c0 the block's first
// visible key rounded down to a multiple of 8 (the packed panels' step), cn up to its last query.
struct KeyColumns {
  Eigen::Index c0, cn;
};
KeyColumns key_columns(const AttentionSettings& st, Eigen::Index i0, Eigen::Index n) {
  const Eigen::Index c0 = first_key(st, i0) / 8 * 8;
  return {c0, i0 + n - c0};
}

// In place: logits -> softmax of scale * logits (softcapped); top = the first argmax.
void softmax(Eigen::Ref<Eigen::ArrayXd> p, const AttentionSettings& st, Eigen::Index& top) {
  p *= st.scale;
  if (st.softcap) p = *st.softcap * (p / *st.softcap).tanh();
  const double m = p.maxCoeff(&top);
  p = (p - m).exp();
  p /= p.sum();
}

}  // namespace

void keep_match(std::vector<ContentMatch>& kept, const ContentMatch& m, int keep) {
  auto at = kept.begin();
  while (at != kept.end() && at->weight >= m.weight) ++at;
  if (at - kept.begin() >= keep) return;
  kept.insert(at, m);
  if (static_cast<int>(kept.size()) > keep) kept.pop_back();
}

void HeadAttention::add(const HeadAttention& o, int keep) {
  rows += o.rows;
  scores.add(o.scores);
  tv_slow_still += o.tv_slow_still;
  tv_fast_removed += o.tv_fast_removed;
  tv_slow_removed += o.tv_slow_removed;
  top1_slow_still += o.top1_slow_still;
  top1_fast_removed += o.top1_fast_removed;
  top1_slow_removed += o.top1_slow_removed;
  if (distance_logit.empty()) {
    distance_logit.assign(o.distance_logit.size(), 0.0);
    distance_free.assign(o.distance_free.size(), 0.0);
    distance_terms.assign(o.distance_terms.size(), 0);
  }
  for (size_t b = 0; b < o.distance_logit.size(); ++b) {
    distance_logit[b] += o.distance_logit[b];
    distance_free[b] += o.distance_free[b];
    distance_terms[b] += o.distance_terms[b];
  }
  same_mass += o.same_mass;
  same_expected += o.same_expected;
  same_rows += o.same_rows;
  position_free.add(o.position_free);
  for (const ContentMatch& m : o.matches) keep_match(matches, m, keep);
}

void rotate_head(const LayerPairs& lp, const kernel::SinCosTable* table, const double* x, long long tokens, int head_dim, RotatedHead& h) {
  const BandColumns b = band_columns(lp);
  fill(h.fast, b.fast, lp, table, x, tokens, head_dim, false);
  fill(h.rest, b.rest, lp, table, x, tokens, head_dim, false);
  fill(h.slow, b.slow, lp, table, x, tokens, head_dim, false);
  fill(h.slow_still, b.slow, lp, table, x, tokens, head_dim, true);
  fill(h.still, every_pair(lp), lp, table, x, tokens, head_dim, true);
}

RowMatrix pairs_in_order(const LayerPairs& lp, const kernel::SinCosTable* table, const double* x, long long tokens, int head_dim, bool still) {
  RowMatrix out;
  fill(out, every_pair(lp), lp, table, x, tokens, head_dim, still);
  return out;
}

RotatedHead rotate_head(const LayerPairs& lp, const kernel::SinCosTable* table, const double* x, long long tokens, int head_dim) {
  RotatedHead h;
  rotate_head(lp, table, x, tokens, head_dim, h);
  return h;
}

KeyPanels prepare_keys(const RotatedHead& k) {
  auto one = [](const RowMatrix& m) { return detail::pack_keys(m.data(), static_cast<long>(m.rows()), static_cast<long>(m.cols()), static_cast<long>(m.cols())); };
  KeyPanels out{one(k.fast), one(k.rest), one(k.slow), one(k.slow_still), one(k.still), {}};
  out.norm.resize(static_cast<size_t>(k.rest.rows()));
  for (Eigen::Index t = 0; t < k.rest.rows(); ++t)
    out.norm[static_cast<size_t>(t)] = std::sqrt(k.fast.row(t).squaredNorm() + k.rest.row(t).squaredNorm() + k.slow.row(t).squaredNorm());
  return out;
}

void accumulate_attention(const RotatedHead& q, const KeyPanels& kp, const AttentionSettings& st, long long sequence,
                          const InductionTargets& targets, HeadAttention& into, AttentionWorkspace& ws) {
  if (into.scores.offsets.empty()) into.scores.offsets.resize(static_cast<size_t>(st.max_offset) + 1);
  if (into.position_free.offsets.empty()) into.position_free.offsets.resize(static_cast<size_t>(st.max_offset) + 1);
  const int buckets = distance_buckets(q.rest.rows());
  if (into.distance_logit.empty()) {
    into.distance_logit.assign(static_cast<size_t>(buckets), 0.0);
    into.distance_free.assign(static_cast<size_t>(buckets), 0.0);
    into.distance_terms.assign(static_cast<size_t>(buckets), 0);
  }
  const Eigen::Index tokens = q.rest.rows();
  constexpr Eigen::Index kBlock = 128;
  const cpu::Path path = cpu::default_path();
  // Same-token attention (same_token.h): the head's distance profile on this sequence (profile[d]:
  // the sum over rows of the weight at distance d) and the same-token pairs per distance.
  Eigen::ArrayXd profile, same_at;
  double same_mass = 0;
  long long same_rows = 0;
  if (!targets.empty()) {
    profile = Eigen::ArrayXd::Zero(q.rest.rows());
    same_at = Eigen::ArrayXd::Zero(q.rest.rows());
  }
  for (RowMatrix* m : {&ws.s_fast, &ws.s_rest, &ws.s_slow, &ws.s_still, &ws.s_free})
    if (m->rows() < kBlock || m->cols() < tokens) m->resize(kBlock, tokens);
  for (Eigen::ArrayXd* a : {&ws.base, &ws.slow_still, &ws.fast_removed, &ws.slow_removed, &ws.position_free})
    if (a->size() < tokens) a->resize(tokens);
  RowMatrix &s_fast = ws.s_fast, &s_rest = ws.s_rest, &s_slow = ws.s_slow, &s_still = ws.s_still, &s_free = ws.s_free;
  Eigen::ArrayXd &base_buf = ws.base, &still_buf = ws.slow_still, &removed_buf = ws.fast_removed, &slow_removed_buf = ws.slow_removed,
                 &position_free_buf = ws.position_free;
  for (Eigen::Index i0 = 1; i0 < tokens; i0 += kBlock) {
    const Eigen::Index n = std::min(kBlock, tokens - i0);
    const auto [c0, cn] = key_columns(st, i0, n);
    product(s_fast, q.fast, i0, n, kp.fast, c0, cn, path);
    product(s_rest, q.rest, i0, n, kp.rest, c0, cn, path);
    product(s_slow, q.slow, i0, n, kp.slow, c0, cn, path);
    product(s_still, q.slow_still, i0, n, kp.slow_still, c0, cn, path);
    if (st.position_free) product(s_free, q.still, i0, n, kp.still, c0, cn, path);
    for (Eigen::Index r = 0; r < n; ++r) {
      const Eigen::Index i = i0 + r;
      const Eigen::Index lo = first_key(st, i);
      const Eigen::Index off = lo - c0, len = i - lo + 1;
      const auto f = s_fast.row(r).segment(off, len).array().transpose();
      const auto m = s_rest.row(r).segment(off, len).array().transpose();
      const auto w = s_slow.row(r).segment(off, len).array().transpose();
      const auto z = s_still.row(r).segment(off, len).array().transpose();
      auto base = base_buf.head(len);
      auto slow_still = still_buf.head(len);
      auto fast_removed = removed_buf.head(len);
      auto slow_removed = slow_removed_buf.head(len);
      auto position_free = position_free_buf.head(len);
      base = f + m + w;
      slow_still = f + m + z;
      fast_removed = m + w;
      slow_removed = f + m;
      if (st.position_free) position_free = s_free.row(r).segment(off, len).array().transpose();
      // Section 3: the raw scores summed per distance bucket (key j = lo + idx at distance len - 1 - idx).
      for (int b = 0; st.position_free && b < buckets; ++b) {
        const Eigen::Index d0 = b == 0 ? 0 : Eigen::Index{1} << (b - 1), d1 = b == 0 ? 1 : Eigen::Index{1} << b;  // [d0, d1)
        if (d0 >= len) break;
        const Eigen::Index first = len - std::min(d1, len), count = std::min(d1, len) - d0;  // idx in [first, first + count)
        into.distance_logit[static_cast<size_t>(b)] += base.segment(first, count).sum();
        into.distance_free[static_cast<size_t>(b)] += position_free.segment(first, count).sum();
        into.distance_terms[static_cast<size_t>(b)] += count;
      }
      // The runner-up: the highest score of the row other than the winner (first on ties).
      Eigen::Index winner = 0, runner = -1, top_still = 0, top_removed = 0, top_slow_removed = 0, top_free = 0;
      base.maxCoeff(&winner);
      for (Eigen::Index j = 0; j < len; ++j)
        if (j != winner && (runner < 0 || base[j] > base[runner])) runner = j;
      softmax(base, st, winner);
      softmax(slow_still, st, top_still);
      softmax(fast_removed, st, top_removed);
      softmax(slow_removed, st, top_slow_removed);
      if (st.position_free) softmax(position_free, st, top_free);

      into.rows += 1;
      const double uniform = 1.0 / static_cast<double>(len);
      for (Eigen::Index d = 0; d <= st.max_offset && d < len; ++d) {
        into.scores.offsets[static_cast<size_t>(d)].add_row(base[len - 1 - d], uniform);
        if (st.position_free) into.position_free.offsets[static_cast<size_t>(d)].add_row(position_free[len - 1 - d], uniform);
      }
      if (lo == 0) {
        into.scores.first.add_row(base[0], uniform);
        if (st.position_free) into.position_free.first.add_row(position_free[0], uniform);
      }
      if (!targets.empty()) {
        double mass = 0;
        long long count = 0;
        for (const long long* t = targets.begin(i); t != targets.end(i); ++t)
          if (*t >= lo) {
            mass += base[*t - lo];
            ++count;
          }
        if (count > 0) into.scores.induction.add_row(mass, static_cast<double>(count) * uniform);
        profile.head(len) += base.reverse();  // key lo + idx lies at distance len - 1 - idx
        double same = 0;
        long long pairs = 0;
        for (const long long* t = targets.same_begin(i); t != targets.same_end(i); ++t)
          if (*t >= lo) {
            same += base[*t - lo];
            same_at[i - *t] += 1;
            ++pairs;
          }
        if (pairs > 0) {
          same_mass += same;
          ++same_rows;
        }
      }
      into.tv_slow_still += 0.5 * (base - slow_still).abs().sum();
      into.tv_fast_removed += 0.5 * (base - fast_removed).abs().sum();
      into.tv_slow_removed += 0.5 * (base - slow_removed).abs().sum();
      into.top1_slow_still += top_still == winner;
      into.top1_fast_removed += top_removed == winner;
      into.top1_slow_removed += top_slow_removed == winner;
      const long long distance = static_cast<long long>(len - 1 - winner);
      if (distance >= st.content_distance && runner >= 0 && base[winner] >= st.strong_match) {
        // rho and its bound (ContentMatch): the other keys' weight over the runner-up's.
        double others = 0, max_key = 0;
        for (Eigen::Index j = 0; j < len; ++j) {
          if (j != winner) others += base[j];
          max_key = std::max(max_key, kp.norm[static_cast<size_t>(lo + j)]);
        }
        constexpr double u = 0x1p-53;
        const double rho = std::log(others / base[runner]);
        const double dims = static_cast<double>(q.fast.cols() + q.rest.cols() + q.slow.cols());
        const double q_norm = std::sqrt(q.fast.row(i).squaredNorm() + q.rest.row(i).squaredNorm() + q.slow.row(i).squaredNorm());
        const double lambda = std::fabs(st.scale) * q_norm * max_key * (1 + 1e-12);  // the norms' own rounding, generously
        const double c = (dims + 2.01) * u + 0x1p-49 * std::max(1.0, st.attention_factor * st.attention_factor) + 4 * u;
        const double error = 1.01 * (2 * lambda * c + (static_cast<double>(len) + 12) * u) + u * std::fabs(rho);
        keep_match(into.matches,
                   {base[winner], sequence, static_cast<long long>(i), static_cast<long long>(lo + winner), static_cast<long long>(lo + runner),
                    rho, error},
                   st.keep_matches);
      }
    }
  }
  if (same_rows > 0) {
    // Rows i in [1, tokens) see distance d when d <= i (and d < window): tokens - max(1, d) rows.
    double expected = 0;
    const Eigen::Index T = q.rest.rows();
    for (Eigen::Index d = 0; d < T; ++d) {
      if (same_at[d] == 0 || (st.window && d >= *st.window)) continue;
      expected += same_at[d] * profile[d] / static_cast<double>(T - std::max<Eigen::Index>(1, d));
    }
    into.same_mass += same_mass;
    into.same_expected += expected;
    into.same_rows += same_rows;
  }
}

RowMatrix attention_rows(const RotatedHead& q, const RotatedHead& k, const AttentionSettings& st, long long limit) {
  const Eigen::Index n = std::min<Eigen::Index>(q.rest.rows(), static_cast<Eigen::Index>(limit));
  RowMatrix out = RowMatrix::Zero(n, n);
  if (n == 0) return out;
  const cpu::Path path = cpu::default_path();
  const KeyPanels kp = prepare_keys(k);
  RowMatrix s_fast(n, n), s_rest(n, n), s_slow(n, n);
  product(s_fast, q.fast, 0, n, kp.fast, 0, n, path);
  product(s_rest, q.rest, 0, n, kp.rest, 0, n, path);
  product(s_slow, q.slow, 0, n, kp.slow, 0, n, path);
  Eigen::ArrayXd row(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::Index lo = first_key(st, i);
    const Eigen::Index len = i - lo + 1;
    auto p = row.head(len);
    p = (s_fast.row(i).segment(lo, len) + s_rest.row(i).segment(lo, len) + s_slow.row(i).segment(lo, len)).array().transpose();
    Eigen::Index top = 0;
    softmax(p, st, top);
    out.row(i).segment(lo, len) = p.matrix().transpose();
  }
  return out;
}

RowMatrix pooled_attention_rows(const RotatedHead& q, const RotatedHead& k, const AttentionSettings& st, long long cell_tokens) {
  const Eigen::Index T = q.rest.rows();
  const Eigen::Index cell = std::max<Eigen::Index>(1, static_cast<Eigen::Index>(cell_tokens));
  const Eigen::Index cells = (T + cell - 1) / cell;
  RowMatrix out = RowMatrix::Zero(cells, cells);
  if (T == 0) return out;
  const cpu::Path path = cpu::default_path();
  const KeyPanels kp = prepare_keys(k);
  constexpr Eigen::Index kBlock = 128;
  RowMatrix s_fast(kBlock, T), s_rest(kBlock, T), s_slow(kBlock, T);
  Eigen::ArrayXd row(T);
  for (Eigen::Index i0 = 0; i0 < T; i0 += kBlock) {
    const Eigen::Index n = std::min(kBlock, T - i0);
    const auto [c0, cn] = key_columns(st, i0, n);
    product(s_fast, q.fast, i0, n, kp.fast, c0, cn, path);
    product(s_rest, q.rest, i0, n, kp.rest, c0, cn, path);
    product(s_slow, q.slow, i0, n, kp.slow, c0, cn, path);
    for (Eigen::Index r = 0; r < n; ++r) {
      const Eigen::Index i = i0 + r;
      const Eigen::Index lo = first_key(st, i);
      const Eigen::Index off = lo - c0, len = i - lo + 1;
      auto p = row.head(len);
      p = (s_fast.row(r).segment(off, len) + s_rest.row(r).segment(off, len) + s_slow.row(r).segment(off, len)).array().transpose();
      Eigen::Index top = 0;
      softmax(p, st, top);
      const Eigen::Index I = i / cell;
      for (Eigen::Index j = 0; j < len; ++j) out(I, (lo + j) / cell) += p[j];
    }
  }
  for (Eigen::Index I = 0; I < cells; ++I) out.row(I) /= static_cast<double>(std::min(T, (I + 1) * cell) - I * cell);
  return out;
}

}  // namespace ropecheck::usage
