#include "usage/usage.h"

#include <mpfr.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <cmath>
#include <map>
#include <span>

#include "adversarial/moved_key.h"
#include "cpu/split_tokens.h"
#include "cpu/thread_count.h"
#include "io/input_error.h"
#include "statistics/rank_sum.h"

namespace ropecheck::usage {

namespace {

// The layer type of every layer, checked against the capture.
std::vector<const LayerType*> layer_types_of(const ModelDescription& model, const CaptureGeometry& g) {
  if (g.layers != model.layers)
    throw InputError("q", "a capture of the model's " + std::to_string(model.layers) + " layers (axis 1)", std::to_string(g.layers) + " layers");
  if (g.heads != model.attention.heads)
    throw InputError("q", "the model's " + std::to_string(model.attention.heads) + " query heads (axis 2)", std::to_string(g.heads));
  if (g.kv_heads != model.attention.kv_heads)
    throw InputError("k", "the model's " + std::to_string(model.attention.kv_heads) + " key/value heads (axis 2)", std::to_string(g.kv_heads));
  std::vector<const LayerType*> of(static_cast<size_t>(model.layers), nullptr);
  for (const LayerType& lt : model.layer_types) {
    if (g.head_dim != lt.head_dim)
      throw InputError("q", "head_dim " + std::to_string(lt.head_dim) + " (axis 4, the model's " + lt.name + " layers)", std::to_string(g.head_dim));
    for (int l : lt.layers) of[static_cast<size_t>(l)] = &lt;
  }
  return of;
}

// Per (layer, head) running state across sequences.
struct HeadState {
  std::vector<double> q_norm_sum;  // per pair, sum over tokens and sequences of the chunk norm
  HeadAttention attention;
  std::vector<double> q_row, key_row, runner_row;  // the match's vectors (head_dim each)
  std::vector<long long> match_positions;          // query, key, runner positions
};

// Chunk norms as sqrt(a^2 + b^2) (within 2 ulp; no overflow for values from float32 or float16),
// summed over tokens in order.
void add_norms(const LayerPairs& lp, const double* x, long long tokens, int head_dim, std::vector<double>& sums) {
  sums.resize(lp.pairs.size(), 0.0);
  for (long long t = 0; t < tokens; ++t)
    for (size_t p = 0; p < lp.pairs.size(); ++p) {
      const double a = x[t * head_dim + lp.pairs[p].first], b = x[t * head_dim + lp.pairs[p].second];
      sums[p] += std::sqrt(a * a + b * b);
    }
}

// Runs f(i, worker) for i in [0, n) over at most `threads` workers (cpu/split_tokens.h: contiguous
// ranges, worker 0 on the calling thread, exceptions rethrown here). A worker thread frees its
// MPFR caches before it ends (the certificates run MPFR and MPFI: the kernel plan's turns, interval
// frequencies), or they leak; the calling thread keeps its own.
template <class F>
void for_each_index(int n, int threads, F&& f) {
  cpu::split_tokens(n, std::max(1, std::min(threads, n)), [&](std::int64_t i0, std::int64_t i1, std::int64_t worker) {
    struct ReleaseCaches {
      bool worker_thread;
      ~ReleaseCaches() {
        if (worker_thread) mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);
      }
    } release{worker != 0};
    for (std::int64_t i = i0; i < i1; ++i) f(static_cast<int>(i), static_cast<int>(worker));
  });
}

// The attention settings of a layer type: the model's scale and softcap, the layer's window.
AttentionSettings settings_of(const ModelDescription& model, const LayerType& lt, long long content_distance) {
  return AttentionSettings{model.attention.scale, model.attention.softcap, lt.window, content_distance};
}

ContentBreak certify_break(const LayerPairs& lp, const HeadState& s, long long span, const UsageOptions& o) {
  const HeadAttention::Match& m = s.attention.match;
  ContentBreak b;
  b.sequence = m.sequence;
  b.query = m.query;
  b.key = m.key;
  b.runner = m.runner;
  b.key_distance = s.match_positions[0] - s.match_positions[1];
  b.runner_distance = s.match_positions[0] - s.match_positions[2];
  b.weight = m.weight;
  b.span = span;
  adversarial::MovedKey mk;
  mk.spectrum = lp.plan->spectrum();
  const int blocks = lp.plan->block_pairs();
  mk.query.assign(static_cast<size_t>(2 * blocks), 0.0);
  mk.key = mk.runner = mk.query;
  const double a2 = lp.attention_factor * lp.attention_factor;  // RN(a^2) q: the head certified is these numbers
  for (const HeadPair& p : lp.pairs) {
    if (p.block < 0) {
      for (int c : {p.first, p.second}) {
        mk.query_pass.push_back(s.q_row[static_cast<size_t>(c)]);
        mk.key_pass.push_back(s.key_row[static_cast<size_t>(c)]);
        mk.runner_pass.push_back(s.runner_row[static_cast<size_t>(c)]);
      }
      continue;
    }
    const size_t i = static_cast<size_t>(2 * p.block);
    mk.query[i] = a2 * s.q_row[static_cast<size_t>(p.first)];
    mk.query[i + 1] = a2 * s.q_row[static_cast<size_t>(p.second)];
    mk.key[i] = s.key_row[static_cast<size_t>(p.first)];
    mk.key[i + 1] = s.key_row[static_cast<size_t>(p.second)];
    mk.runner[i] = s.runner_row[static_cast<size_t>(p.first)];
    mk.runner[i + 1] = s.runner_row[static_cast<size_t>(p.second)];
  }
  mk.runner_distance = b.runner_distance;
  mk.from_distance = b.key_distance;
  const adversarial::MovedKeyBreak r = adversarial::certify_moved_key_break(mk, std::max(o.break_limit, b.key_distance));
  b.outcome = adversarial::outcome_name(r.outcome);
  b.distance = r.distance;
  b.limit = r.max_distance;
  b.method = r.method;
  return b;
}

}  // namespace

UsageResult analyse_usage(const ModelDescription& model, CaptureSource& capture, const UsageOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  cpu::check_thread_count(o.threads, "threads");
  if (o.content_distance < 1) throw InputError("content_distance", "an integer >= 1", std::to_string(o.content_distance));
  if (o.break_limit < 1 || o.break_limit > (1LL << 40)) throw InputError("break_limit", "an integer in [1, 2^40]", std::to_string(o.break_limit));
  const CaptureGeometry& g = capture.geometry();
  const std::vector<const LayerType*> type_of = layer_types_of(model, g);
  const int H = static_cast<int>(g.heads), KV = static_cast<int>(g.kv_heads), D = static_cast<int>(g.head_dim);
  const long long T = g.tokens;
  const int group = H / KV;

  UsageResult out;
  out.model = model.name;
  out.capture = capture.describe();
  out.geometry = g;
  out.q_dtype = capture_dtype_name(capture.q_dtype());
  out.k_dtype = capture_dtype_name(capture.k_dtype());
  out.scale_text = model.attention.scale_text;
  out.softcap = model.attention.softcap;
  out.options = o;

  std::map<const LayerType*, LayerPairs> pairs_of;
  for (const LayerType& lt : model.layer_types) {
    pairs_of.emplace(&lt, layer_pairs(lt));
    const LayerPairs& lp = pairs_of.at(&lt);
    LayerTypePairs info{lt.name, lp.attention_factor, {}};
    for (size_t i = 0; i < lp.pairs.size(); ++i)
      info.pairs.push_back({static_cast<int>(i), lp.pairs[i].first, lp.pairs[i].second, band_name(lp.pairs[i].band), lp.pairs[i].frequency});
    out.layer_types.push_back(info);
  }

  std::vector<std::vector<HeadState>> state(static_cast<size_t>(g.layers), std::vector<HeadState>(static_cast<size_t>(H)));
  std::vector<std::vector<std::vector<double>>> k_norm_sum(static_cast<size_t>(g.layers), std::vector<std::vector<double>>(static_cast<size_t>(KV)));
  std::map<const LayerType*, std::unique_ptr<kernel::SinCosTable>> tables;
  long long table_sequence = -1;
  // Buffers reused from block to block: raw and packed kv heads, and per worker thread a query
  // head, its rotation and the score workspace (no allocation per head).
  struct Worker {
    std::vector<double> x, k;  // a head's vectors in binary64; k: a kv head, when a match is kept
    RotatedHead q;
    AttentionWorkspace workspace;
  };
  std::vector<Worker> workers(static_cast<size_t>(std::max(1, o.threads)));
  std::vector<KeyPanels> k_panels(static_cast<size_t>(std::max(1, o.threads)));
  CaptureBlock block;
  while (capture.next(block)) {
    const LayerType* lt = type_of[static_cast<size_t>(block.layer)];
    const LayerPairs& lp = pairs_of.at(lt);
    if (block.sequence != table_sequence) {
      tables.clear();
      table_sequence = block.sequence;
    }
    const std::vector<long long>& positions = capture.positions(block.sequence);
    if (lp.plan && !tables.count(lt)) {
      const std::vector<std::int64_t> pos(positions.begin(), positions.end());
      tables[lt] = std::make_unique<kernel::SinCosTable>(*lp.plan, std::span<const std::int64_t>(pos));
    }
    const kernel::SinCosTable* table = lp.plan ? tables.at(lt).get() : nullptr;
    const AttentionSettings st = settings_of(model, *lt, o.content_distance);

    // kv heads in rounds of `threads`: each round rotates and packs its kv heads, then runs their
    // query heads, so at most `threads` packed kv heads exist at once.
    const int round = std::max(1, o.threads);
    for (int kv0 = 0; kv0 < KV; kv0 += round) {
      const int kvn = std::min(round, KV - kv0);
      for_each_index(kvn, o.threads, [&](int i, int worker) {
        const int kv = kv0 + i;
        std::vector<double>& x = workers[static_cast<size_t>(worker)].x;
        x.resize(static_cast<size_t>(T * D));
        block.k_head(kv, x.data());
        add_norms(lp, x.data(), T, D, k_norm_sum[static_cast<size_t>(block.layer)][static_cast<size_t>(kv)]);
        rotate_head(lp, table, x.data(), T, D, workers[static_cast<size_t>(worker)].q);
        k_panels[static_cast<size_t>(i)] = prepare_keys(workers[static_cast<size_t>(worker)].q);
      });
      for_each_index(kvn * group, o.threads, [&](int i, int worker) {
        const int h = kv0 * group + i;
        Worker& wk = workers[static_cast<size_t>(worker)];
        std::vector<double>& x = wk.x;
        x.resize(static_cast<size_t>(T * D));
        block.q_head(h, x.data());
        HeadState& s = state[static_cast<size_t>(block.layer)][static_cast<size_t>(h)];
        add_norms(lp, x.data(), T, D, s.q_norm_sum);
        rotate_head(lp, table, x.data(), T, D, wk.q);
        HeadAttention here;
        accumulate_attention(wk.q, k_panels[static_cast<size_t>(h / group - kv0)], st, block.sequence, here, wk.workspace);
        const double before = s.attention.match.weight;
        s.attention.add(here);
        if (s.attention.match.weight != before) {  // the match is in this block: keep its vectors
          const HeadAttention::Match& m = s.attention.match;
          s.q_row.assign(x.begin() + m.query * D, x.begin() + (m.query + 1) * D);
          std::vector<double>& kx = wk.k;
          kx.resize(static_cast<size_t>(T * D));
          block.k_head(h / group, kx.data());
          s.key_row.assign(kx.begin() + m.key * D, kx.begin() + (m.key + 1) * D);
          s.runner_row.assign(kx.begin() + m.runner * D, kx.begin() + (m.runner + 1) * D);
          s.match_positions = {positions[static_cast<size_t>(m.query)], positions[static_cast<size_t>(m.key)], positions[static_cast<size_t>(m.runner)]};
        }
      });
    }
  }

  // Per layer and head: means, kinds, shares.
  const double q_count = static_cast<double>(g.sequences) * static_cast<double>(T);
  for (int l = 0; l < g.layers; ++l) {
    const LayerType* lt = type_of[static_cast<size_t>(l)];
    const LayerPairs& lp = pairs_of.at(lt);
    LayerUsage lu;
    lu.layer = l;
    lu.layer_type = lt->name;
    const size_t P = lp.pairs.size();
    lu.q_norm.assign(P, 0.0);
    lu.k_norm.assign(P, 0.0);
    for (int kv = 0; kv < KV; ++kv)
      for (size_t p = 0; p < P; ++p) lu.k_norm[p] += k_norm_sum[static_cast<size_t>(l)][static_cast<size_t>(kv)][p] / (q_count * KV);
    for (int h = 0; h < H; ++h) {
      const HeadState& s = state[static_cast<size_t>(l)][static_cast<size_t>(h)];
      HeadUsage hu;
      hu.head = h;
      hu.kv_head = h / group;
      for (size_t p = 0; p < P; ++p) {
        hu.q_norm.push_back(s.q_norm_sum[p] / q_count);
        hu.k_norm.push_back(k_norm_sum[static_cast<size_t>(l)][static_cast<size_t>(hu.kv_head)][p] / q_count);
        lu.q_norm[p] += s.q_norm_sum[p] / (q_count * H);
      }
      const HeadAttention& a = s.attention;
      hu.rows = a.rows;
      const double rows = static_cast<double>(std::max(1LL, a.rows));
      hu.diagonal = a.diagonal / rows;
      hu.previous_token = a.previous / rows;
      hu.first_token = a.first / rows;
      double best = kKindThreshold;
      hu.kind = "other";
      const std::pair<double, const char*> kinds[] = {{hu.diagonal, "diagonal"}, {hu.previous_token, "previous-token"}, {hu.first_token, "first-token"}};
      for (const auto& [score, name] : kinds)
        if (score >= best) {
          best = score;
          hu.kind = name;
        }
      if (lp.quarter > 0) {
        double fast = 0, all = 0;
        for (size_t p = 0; p < P; ++p) {
          all += hu.q_norm[p] + hu.k_norm[p];
          if (lp.pairs[p].band == Band::fast) fast += hu.q_norm[p] + hu.k_norm[p];
        }
        if (all > 0) hu.high_frequency_share = fast / all;
        hu.slow_still = Ablation{a.tv_slow_still / rows, static_cast<double>(a.top1_slow_still) / rows};
        hu.fast_removed = Ablation{a.tv_fast_removed / rows, static_cast<double>(a.top1_fast_removed) / rows};
      }
      lu.heads.push_back(std::move(hu));
    }
    out.layers.push_back(std::move(lu));
  }

  // Section 5: do the positional heads rank highest by their high-frequency share?
  std::vector<double> positional, others, every;
  for (const LayerUsage& lu : out.layers)
    for (const HeadUsage& hu : lu.heads)
      if (hu.high_frequency_share) {
        every.push_back(*hu.high_frequency_share);
        (hu.kind == "diagonal" || hu.kind == "previous-token" ? positional : others).push_back(*hu.high_frequency_share);
      }
  for (LayerUsage& lu : out.layers)
    for (HeadUsage& hu : lu.heads)
      if (hu.high_frequency_share)
        hu.share_rank = 1 + static_cast<int>(std::count_if(every.begin(), every.end(), [&](double v) { return v > *hu.high_frequency_share; }));
  PositionalRanking& r = out.ranking;
  r.ranked = static_cast<int>(every.size());
  r.positional = static_cast<int>(positional.size());
  if (!positional.empty() && !others.empty()) {
    const RankSumTest t = rank_sum_test(positional, others);
    r.auc = t.auc;
    r.p_value = t.p_value;
    r.p_method = t.method;
    char line[256];
    std::snprintf(line, sizeof line, "measured on %d heads (%d positional): AUC %.3f that a positional head has the larger fast-quarter share, one-sided p = %.3g (%s)",
                  r.ranked, r.positional, t.auc, t.p_value, t.method.c_str());
    r.statement = line;
  } else {
    r.statement = "measured on " + std::to_string(r.ranked) + " heads: " +
                  (positional.empty() ? "no positional head (diagonal or previous-token) found" : "every ranked head is positional") + "; no AUC";
  }

  // Theorem 6.1 on the `other` heads with a content match.
  if (o.certify_breaks) {
    std::vector<std::pair<int, int>> todo;
    for (const LayerUsage& lu : out.layers)
      for (const HeadUsage& hu : lu.heads)
        if (hu.kind == "other" && pairs_of.at(type_of[static_cast<size_t>(lu.layer)]).plan &&
            state[static_cast<size_t>(lu.layer)][static_cast<size_t>(hu.head)].attention.match.weight >= 0)
          todo.push_back({lu.layer, hu.head});
    for_each_index(static_cast<int>(todo.size()), o.threads, [&](int i, int) {
      const auto [l, h] = todo[static_cast<size_t>(i)];
      const LayerType* lt = type_of[static_cast<size_t>(l)];
      out.layers[static_cast<size_t>(l)].heads[static_cast<size_t>(h)].breaking =
          certify_break(pairs_of.at(lt), state[static_cast<size_t>(l)][static_cast<size_t>(h)], lt->span(), o);
    });
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace ropecheck::usage

namespace ropecheck::usage {

namespace {

// The base attention of the query heads [first, last) of (layer, sequence): the block read once,
// each kv head rotated once (heads in order, so a head's matrix does not depend on the range).
std::vector<RowMatrix> attention_of_heads(const ModelDescription& model, CaptureSource& capture, int layer, int first, int last,
                                          long long sequence, long long limit) {
  const CaptureGeometry& g = capture.geometry();
  const std::vector<const LayerType*> type_of = layer_types_of(model, g);
  if (layer < 0 || layer >= g.layers) throw InputError("layer", "an integer in [0, " + std::to_string(g.layers - 1) + "]", std::to_string(layer));
  if (sequence < 0 || sequence >= g.sequences)
    throw InputError("sequence", "an integer in [0, " + std::to_string(g.sequences - 1) + "]", std::to_string(sequence));
  const LayerType* lt = type_of[static_cast<size_t>(layer)];
  const LayerPairs lp = layer_pairs(*lt);
  const int D = static_cast<int>(g.head_dim);
  const long long T = g.tokens;
  const int group = static_cast<int>(g.heads / g.kv_heads);
  const AttentionSettings st = settings_of(model, *lt, 1);
  CaptureBlock block;
  while (capture.next(block)) {
    if (block.sequence != sequence || block.layer != layer) continue;
    const std::vector<long long>& positions = capture.positions(sequence);
    const std::vector<std::int64_t> pos(positions.begin(), positions.end());
    std::unique_ptr<kernel::SinCosTable> table;
    if (lp.plan) table = std::make_unique<kernel::SinCosTable>(*lp.plan, std::span<const std::int64_t>(pos));
    std::vector<double> x(static_cast<size_t>(T * D));
    std::vector<RowMatrix> out;
    out.reserve(static_cast<size_t>(last - first));
    int kv_rotated = -1;
    RotatedHead k, q;
    for (int head = first; head < last; ++head) {
      if (head / group != kv_rotated) {
        kv_rotated = head / group;
        block.k_head(kv_rotated, x.data());
        rotate_head(lp, table.get(), x.data(), T, D, k);
      }
      block.q_head(head, x.data());
      rotate_head(lp, table.get(), x.data(), T, D, q);
      out.push_back(attention_rows(q, k, st, limit));
    }
    return out;
  }
  throw InputError("sequence", "a block present in the capture", std::to_string(sequence));
}

}  // namespace

RowMatrix attention_map(const ModelDescription& model, CaptureSource& capture, int layer, int head, long long sequence, long long limit) {
  const CaptureGeometry& g = capture.geometry();
  layer_types_of(model, g);  // the capture's fit to the model, then layer, head, sequence
  if (layer < 0 || layer >= g.layers) throw InputError("layer", "an integer in [0, " + std::to_string(g.layers - 1) + "]", std::to_string(layer));
  if (head < 0 || head >= g.heads) throw InputError("head", "an integer in [0, " + std::to_string(g.heads - 1) + "]", std::to_string(head));
  return std::move(attention_of_heads(model, capture, layer, head, head + 1, sequence, limit).front());
}

std::vector<RowMatrix> attention_maps(const ModelDescription& model, CaptureSource& capture, int layer, long long sequence,
                                      long long limit) {
  return attention_of_heads(model, capture, layer, 0, static_cast<int>(capture.geometry().heads), sequence, limit);
}

}  // namespace ropecheck::usage
