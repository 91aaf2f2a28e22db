#include "usage/head_attention.h"

#include "usage/detail/score_product.h"

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

// out = a[r0 .. r0 + rn) * keys[c0 .. c0 + cn)^T (detail/score_product.h; c0 a multiple of 8).
void product(RowMatrix& out, const RowMatrix& a, Eigen::Index r0, Eigen::Index rn, const detail::PackedKeys& keys, Eigen::Index c0,
             Eigen::Index cn, cpu::Path path) {
  out.resize(rn, cn);
  detail::score_block(path, a.data() + r0 * a.cols(), static_cast<long>(a.cols()), static_cast<long>(rn), keys, static_cast<long>(c0),
                      static_cast<long>(cn), out.data(), static_cast<long>(cn));
}

struct PackedHead {
  detail::PackedKeys fast, rest, slow, slow_still;
};
PackedHead pack(const RotatedHead& k) {
  auto one = [](const RowMatrix& m) { return detail::pack_keys(m.data(), static_cast<long>(m.rows()), static_cast<long>(m.cols()), static_cast<long>(m.cols())); };
  return {one(k.fast), one(k.rest), one(k.slow), one(k.slow_still)};
}

struct Row {
  Eigen::ArrayXd p;
  Eigen::Index top = 0;
};

// Softmax of scale * logits (softcapped) into r.p; r.top = the first argmax.
void softmax(const Eigen::ArrayXd& logits, const AttentionSettings& st, Row& r) {
  r.p = logits * st.scale;
  if (st.softcap) r.p = *st.softcap * (r.p / *st.softcap).tanh();
  const double m = r.p.maxCoeff(&r.top);
  r.p = (r.p - m).exp();
  r.p /= r.p.sum();
}

}  // namespace

void HeadAttention::add(const HeadAttention& o) {
  rows += o.rows;
  diagonal += o.diagonal;
  previous += o.previous;
  first += o.first;
  tv_slow_still += o.tv_slow_still;
  tv_fast_removed += o.tv_fast_removed;
  top1_slow_still += o.top1_slow_still;
  top1_fast_removed += o.top1_fast_removed;
  if (o.match.weight > match.weight) match = o.match;
}

RotatedHead rotate_head(const LayerPairs& lp, const kernel::SinCosTable* table, const double* x, long long tokens, int head_dim) {
  const BandColumns b = band_columns(lp);
  RotatedHead h;
  fill(h.fast, b.fast, lp, table, x, tokens, head_dim, false);
  fill(h.rest, b.rest, lp, table, x, tokens, head_dim, false);
  fill(h.slow, b.slow, lp, table, x, tokens, head_dim, false);
  fill(h.slow_still, b.slow, lp, table, x, tokens, head_dim, true);
  return h;
}

void accumulate_attention(const RotatedHead& q, const RotatedHead& k, const AttentionSettings& st, long long sequence, HeadAttention& into) {
  const Eigen::Index tokens = q.rest.rows();
  constexpr Eigen::Index kBlock = 128;
  const cpu::Path path = cpu::default_path();
  const PackedHead kp = pack(k);
  RowMatrix s_fast, s_rest, s_slow, s_still;
  Eigen::ArrayXd logits;
  Row base, slow_still, fast_removed;
  for (Eigen::Index i0 = 1; i0 < tokens; i0 += kBlock) {
    const Eigen::Index n = std::min(kBlock, tokens - i0);
    // Keys from c0 (a multiple of 8 at or below the block's first key) to the block's last query.
    const Eigen::Index c0 = (st.window ? std::max<Eigen::Index>(0, i0 - static_cast<Eigen::Index>(*st.window) + 1) : 0) / 8 * 8;
    const Eigen::Index cn = i0 + n - c0;
    product(s_fast, q.fast, i0, n, kp.fast, c0, cn, path);
    product(s_rest, q.rest, i0, n, kp.rest, c0, cn, path);
    product(s_slow, q.slow, i0, n, kp.slow, c0, cn, path);
    product(s_still, q.slow_still, i0, n, kp.slow_still, c0, cn, path);
    for (Eigen::Index r = 0; r < n; ++r) {
      const Eigen::Index i = i0 + r;
      const Eigen::Index lo = st.window ? std::max<Eigen::Index>(0, i - static_cast<Eigen::Index>(*st.window) + 1) : 0;
      const Eigen::Index off = lo - c0, len = i - lo + 1;
      const auto f = s_fast.row(r).segment(off, len).array();
      const auto m = s_rest.row(r).segment(off, len).array();
      const auto w = s_slow.row(r).segment(off, len).array();
      const auto z = s_still.row(r).segment(off, len).array();
      logits = f + m + w;
      softmax(logits, st, base);
      const Eigen::Index winner = base.top;
      // The runner-up: the highest score of the row other than the winner (first on ties).
      Eigen::Index runner = -1;
      for (Eigen::Index j = 0; j < len; ++j)
        if (j != winner && (runner < 0 || logits[j] > logits[runner])) runner = j;
      logits = f + m + z;
      softmax(logits, st, slow_still);
      logits = m + w;
      softmax(logits, st, fast_removed);

      into.rows += 1;
      into.diagonal += base.p[len - 1];
      if (i - 1 >= lo) into.previous += base.p[len - 2];
      if (lo == 0) into.first += base.p[0];
      into.tv_slow_still += 0.5 * (base.p - slow_still.p).abs().sum();
      into.tv_fast_removed += 0.5 * (base.p - fast_removed.p).abs().sum();
      into.top1_slow_still += slow_still.top == winner;
      into.top1_fast_removed += fast_removed.top == winner;
      const long long distance = static_cast<long long>(len - 1 - winner);
      if (distance >= st.content_distance && runner >= 0 && base.p[winner] > into.match.weight)
        into.match = {base.p[winner], sequence, static_cast<long long>(i), static_cast<long long>(lo + winner),
                      static_cast<long long>(lo + runner)};
    }
  }
}

RowMatrix attention_rows(const RotatedHead& q, const RotatedHead& k, const AttentionSettings& st, long long limit) {
  const Eigen::Index n = std::min<Eigen::Index>(q.rest.rows(), static_cast<Eigen::Index>(limit));
  RowMatrix out = RowMatrix::Zero(n, n);
  if (n == 0) return out;
  RowMatrix s_fast, s_rest, s_slow;
  const cpu::Path path = cpu::default_path();
  const PackedHead kp = pack(k);
  product(s_fast, q.fast, 0, n, kp.fast, 0, n, path);
  product(s_rest, q.rest, 0, n, kp.rest, 0, n, path);
  product(s_slow, q.slow, 0, n, kp.slow, 0, n, path);
  Eigen::ArrayXd logits;
  Row row;
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::Index lo = st.window ? std::max<Eigen::Index>(0, i - static_cast<Eigen::Index>(*st.window) + 1) : 0;
    const Eigen::Index len = i - lo + 1;
    logits = s_fast.row(i).segment(lo, len).array() + s_rest.row(i).segment(lo, len).array() + s_slow.row(i).segment(lo, len).array();
    softmax(logits, st, row);
    out.row(i).segment(lo, len) = row.p.matrix().transpose();
  }
  return out;
}

}  // namespace ropecheck::usage
