#include "usage/usage.h"

#include <mpfr.h>

#include <boost/math/special_functions/beta.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <cmath>
#include <map>
#include <span>

#include "cpu/split_tokens.h"
#include "cpu/thread_count.h"
#include "io/input_error.h"
#include "usage/detail/layer_settings.h"
#include "usage/gaussian_capture.h"

namespace ropecheck::usage {

namespace {

// Per (layer, head) running state across sequences.
struct HeadState {
  std::vector<double> q_norm_sum;  // per pair, sum over tokens and sequences of the chunk norm
  double q_squares = 0;            // sum of squares of every entry (the null's RMS)
  HeadAttention attention;
  std::vector<MatchVectors> kept;  // attention.matches' vectors, in its order
  std::vector<SequenceOffsets> per_sequence;  // in sequence order (the capture's blocks are)
  std::vector<SequenceDistanceLogits> per_sequence_distance;
  std::vector<SequenceSameToken> per_sequence_same;  // with token ids
  PairAttribution attribution;
};

// One sequence's mean scaled logits per distance bucket (NaN where a bucket holds no term).
SequenceDistanceLogits sequence_distance(const HeadAttention& a, double scale) {
  SequenceDistanceLogits s;
  for (size_t b = 0; b < a.distance_terms.size(); ++b) {
    const double n = static_cast<double>(a.distance_terms[b]);
    s.logit.push_back(n > 0 ? scale * a.distance_logit[b] / n : std::nan(""));
    s.position_free.push_back(n > 0 ? scale * a.distance_free[b] / n : std::nan(""));
  }
  return s;
}

// One sequence's mean offset masses, as trained and position-free (NaN where no row saw the key).
SequenceOffsets sequence_offsets(const HeadAttention& a) {
  SequenceOffsets s;
  for (size_t d = 0; d < a.scores.offsets.size(); ++d) {
    const ScoreSums& m = a.scores.offsets[d];
    const ScoreSums& f = a.position_free.offsets[d];
    s.mass.push_back(m.rows > 0 ? m.w / static_cast<double>(m.rows) : std::nan(""));
    s.position_free.push_back(f.rows > 0 ? f.w / static_cast<double>(f.rows) : std::nan(""));
  }
  return s;
}

// Chunk norms as sqrt(a^2 + b^2) (within 2 ulp; no overflow for values from float32 or float16),
// summed over tokens in order; `squares` += every entry squared.
void add_norms(const LayerPairs& lp, const double* x, long long tokens, int head_dim, std::vector<double>& sums, double& squares) {
  sums.resize(lp.pairs.size(), 0.0);
  for (long long t = 0; t < tokens; ++t)
    for (size_t p = 0; p < lp.pairs.size(); ++p) {
      const double a = x[t * head_dim + lp.pairs[p].first], b = x[t * head_dim + lp.pairs[p].second];
      sums[p] += std::sqrt(a * a + b * b);
      squares += a * a + b * b;
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


// Everything one pass over a capture sums.
struct Scan {
  std::vector<std::vector<HeadState>> heads;                // [layer][head]
  std::vector<std::vector<std::vector<double>>> k_norm_sum;  // [layer][kv head][pair]
  std::vector<std::vector<double>> k_squares;                // [layer][kv head]
};

// One pass: norms, scores, ablations, (measure) the position-free attention, per-sequence effects
// and pair attributions, and (keep_vectors) the strong matches' vectors. kv heads in
// rounds of `threads`: each round rotates and packs its kv heads, then runs their query heads, so
// at most `threads` packed kv heads exist at once.
Scan scan(const ModelDescription& model, CaptureSource& capture, const UsageOptions& o, const std::vector<const LayerType*>& type_of,
          const std::map<const LayerType*, LayerPairs>& pairs_of, bool keep_vectors, bool measure = true) {
  const CaptureGeometry& g = capture.geometry();
  const int H = static_cast<int>(g.heads), KV = static_cast<int>(g.kv_heads), D = static_cast<int>(g.head_dim);
  const long long T = g.tokens;
  const int group = H / KV;
  Scan sc;
  sc.heads.assign(static_cast<size_t>(g.layers), std::vector<HeadState>(static_cast<size_t>(H)));
  sc.k_norm_sum.assign(static_cast<size_t>(g.layers), std::vector<std::vector<double>>(static_cast<size_t>(KV)));
  sc.k_squares.assign(static_cast<size_t>(g.layers), std::vector<double>(static_cast<size_t>(KV), 0.0));
  std::map<const LayerType*, std::unique_ptr<kernel::SinCosTable>> tables;
  long long table_sequence = -1;
  InductionTargets targets;
  // Buffers reused from block to block: raw and packed kv heads, and per worker thread a query
  // head, its rotation and the score workspace (no allocation per head).
  struct Worker {
    std::vector<double> x, k;  // a head's vectors in binary64; k: a kv head, when a match is kept
    RotatedHead q;
    AttentionWorkspace workspace;
  };
  std::vector<Worker> workers(static_cast<size_t>(std::max(1, o.threads)));
  std::vector<KeyPanels> k_panels(static_cast<size_t>(std::max(1, o.threads)));
  std::vector<std::vector<double>> k_raw(static_cast<size_t>(std::max(1, o.threads)));  // the round's kv heads as captured
  CaptureBlock block;
  while (capture.next(block)) {
    const LayerType* lt = type_of[static_cast<size_t>(block.layer)];
    const LayerPairs& lp = pairs_of.at(lt);
    const std::vector<long long>& positions = capture.positions(block.sequence);
    if (block.sequence != table_sequence) {
      tables.clear();
      table_sequence = block.sequence;
      const std::vector<long long>* tokens = capture.token_ids(block.sequence);
      targets = tokens ? InductionTargets(*tokens) : InductionTargets();
    }
    if (lp.plan && !tables.count(lt)) {
      const std::vector<std::int64_t> pos(positions.begin(), positions.end());
      tables[lt] = std::make_unique<kernel::SinCosTable>(*lp.plan, std::span<const std::int64_t>(pos));
    }
    const kernel::SinCosTable* table = lp.plan ? tables.at(lt).get() : nullptr;
    AttentionSettings st = detail::settings_of(model, *lt, o);
    st.position_free = measure;
    st.attention_factor = lp.attention_factor;
    const size_t layer = static_cast<size_t>(block.layer);

    const int round = std::max(1, o.threads);
    for (int kv0 = 0; kv0 < KV; kv0 += round) {
      const int kvn = std::min(round, KV - kv0);
      for_each_index(kvn, o.threads, [&](int i, int worker) {
        const int kv = kv0 + i;
        std::vector<double>& x = workers[static_cast<size_t>(worker)].x;
        x.resize(static_cast<size_t>(T * D));
        block.k_head(kv, x.data());
        add_norms(lp, x.data(), T, D, sc.k_norm_sum[layer][static_cast<size_t>(kv)], sc.k_squares[layer][static_cast<size_t>(kv)]);
        rotate_head(lp, table, x.data(), T, D, workers[static_cast<size_t>(worker)].q);
        k_panels[static_cast<size_t>(i)] = prepare_keys(workers[static_cast<size_t>(worker)].q);
        if (measure) k_raw[static_cast<size_t>(i)] = x;
      });
      for_each_index(kvn * group, o.threads, [&](int i, int worker) {
        const int h = kv0 * group + i;
        Worker& wk = workers[static_cast<size_t>(worker)];
        std::vector<double>& x = wk.x;
        x.resize(static_cast<size_t>(T * D));
        block.q_head(h, x.data());
        HeadState& s = sc.heads[layer][static_cast<size_t>(h)];
        add_norms(lp, x.data(), T, D, s.q_norm_sum, s.q_squares);
        rotate_head(lp, table, x.data(), T, D, wk.q);
        HeadAttention here;
        accumulate_attention(wk.q, k_panels[static_cast<size_t>(h / group - kv0)], st, block.sequence, targets, here, wk.workspace);
        s.attention.add(here, o.break_rows);
        if (measure) {
          s.per_sequence.push_back(sequence_offsets(here));
          s.per_sequence_distance.push_back(sequence_distance(here, st.scale));
          if (!targets.empty()) {
            const double n = static_cast<double>(std::max(1LL, here.same_rows));
            s.per_sequence_same.push_back({here.same_mass / n, here.same_expected / n, here.same_rows});
          }
          accumulate_pair_attribution(lp, table, x.data(), k_raw[static_cast<size_t>(h / group - kv0)].data(), T, D, lt->window, st.max_offset,
                                      s.attribution);
        }
        if (!keep_vectors || here.matches.empty()) return;
        // The kept matches' vectors: those of earlier blocks carried over, this block's read now.
        std::vector<MatchVectors> kept;
        std::vector<double>& kx = wk.k;
        for (const ContentMatch& m : s.attention.matches) {
          auto old = std::find_if(s.kept.begin(), s.kept.end(),
                                  [&](const MatchVectors& v) { return v.match.sequence == m.sequence && v.match.query == m.query; });
          if (old != s.kept.end()) {
            kept.push_back(std::move(*old));
            continue;
          }
          if (kx.size() != static_cast<size_t>(T * D)) {
            kx.resize(static_cast<size_t>(T * D));
            block.k_head(h / group, kx.data());
          }
          MatchVectors v;
          v.match = m;
          v.query.assign(x.begin() + m.query * D, x.begin() + (m.query + 1) * D);
          v.key.assign(kx.begin() + m.key * D, kx.begin() + (m.key + 1) * D);
          v.runner.assign(kx.begin() + m.runner * D, kx.begin() + (m.runner + 1) * D);
          v.query_position = positions[static_cast<size_t>(m.query)];
          v.key_position = positions[static_cast<size_t>(m.key)];
          v.runner_position = positions[static_cast<size_t>(m.runner)];
          kept.push_back(std::move(v));
        }
        kx.clear();
        s.kept = std::move(kept);
      });
    }
  }
  return sc;
}

// The Gaussian null's spec: the real capture's shapes (its first `sequences`), positions, token ids
// and per-head RMS.
GaussianCaptureSpec null_spec(const CaptureSource& capture, const Scan& real, long long sequences, std::uint64_t seed) {
  const CaptureGeometry& g = capture.geometry();
  GaussianCaptureSpec spec;
  spec.geometry = g;
  spec.geometry.sequences = sequences;
  spec.seed = seed;
  const double entries = static_cast<double>(g.sequences) * static_cast<double>(g.tokens) * static_cast<double>(g.head_dim);
  for (long long l = 0; l < g.layers; ++l) {
    for (long long h = 0; h < g.heads; ++h) spec.q_rms.push_back(std::sqrt(real.heads[static_cast<size_t>(l)][static_cast<size_t>(h)].q_squares / entries));
    for (long long h = 0; h < g.kv_heads; ++h) spec.k_rms.push_back(std::sqrt(real.k_squares[static_cast<size_t>(l)][static_cast<size_t>(h)] / entries));
  }
  for (long long s = 0; s < sequences; ++s) {
    spec.positions.push_back(capture.positions(s));
    if (const std::vector<long long>* t = capture.token_ids(s)) spec.token_ids.push_back(*t);
  }
  return spec;
}

// One-sided 95% Clopper-Pearson upper bound of a binomial rate, k of n.
double clopper_pearson_upper(long long k, long long n) {
  if (n <= 0) return 1;
  if (k >= n) return 1;
  return boost::math::ibeta_inv(static_cast<double>(k + 1), static_cast<double>(n - k), 0.95);
}

}  // namespace

UsageResult analyse_usage(const ModelDescription& model, CaptureSource& capture, const UsageOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  cpu::check_thread_count(o.threads, "threads");
  if (o.content_distance < 1) throw InputError("content_distance", "an integer >= 1", std::to_string(o.content_distance));
  if (o.break_limit < 1 || o.break_limit > (1LL << 40)) throw InputError("break_limit", "an integer in [1, 2^40]", std::to_string(o.break_limit));
  if (!(o.strong_match > 0 && o.strong_match <= 1)) throw InputError("strong_match", "a number in (0, 1]", std::to_string(o.strong_match));
  if (!(o.channel_epsilon > 0 && o.channel_epsilon < 1))
    throw InputError("channel_epsilon", "a number in (0, 1)", std::to_string(o.channel_epsilon));
  if (o.break_rows < 1 || o.break_rows > 1024) throw InputError("break_rows", "an integer in [1, 1024]", std::to_string(o.break_rows));
  const KindRule& rule = o.kind_rule;
  if (rule.max_offset < 1 || rule.max_offset > 4096) throw InputError("max_offset", "an integer in [1, 4096]", std::to_string(rule.max_offset));
  if (!(rule.lift > 1) || !std::isfinite(rule.lift)) throw InputError("lift", "a number > 1", std::to_string(rule.lift));
  if (!(rule.min_mass > 0 && rule.min_mass <= 1)) throw InputError("min_mass", "a number in (0, 1]", std::to_string(rule.min_mass));
  if (!(rule.alpha > 0 && rule.alpha < 1)) throw InputError("alpha", "a number in (0, 1)", std::to_string(rule.alpha));
  const CaptureGeometry& g = capture.geometry();
  if (o.null_sequences < -1 || o.null_sequences > g.sequences)
    throw InputError("null_sequences", "-1 (all), 0 (none) or a count up to the capture's " + std::to_string(g.sequences) + " sequences",
                     std::to_string(o.null_sequences));
  if (o.null_repeats < 1 || o.null_repeats > 1000) throw InputError("null_repeats", "an integer in [1, 1000]", std::to_string(o.null_repeats));
  const std::vector<const LayerType*> type_of = detail::layer_types_of(model, g);
  const int H = static_cast<int>(g.heads), KV = static_cast<int>(g.kv_heads);
  const int group = H / KV;

  UsageResult out;
  out.model = model.name;
  out.capture = capture.describe();
  out.geometry = g;
  out.q_dtype = dtype_long_name(capture.q_dtype());
  out.k_dtype = dtype_long_name(capture.k_dtype());
  out.scale_text = model.attention.scale_text;
  out.softcap = model.attention.softcap;
  out.options = o;

  std::map<const LayerType*, LayerPairs> pairs_of;
  for (const LayerType& lt : model.layer_types) {
    pairs_of.emplace(&lt, layer_pairs(lt));
    const LayerPairs& lp = pairs_of.at(&lt);
    LayerTypePairs info{lt.name, lp.attention_factor, lt.span(), {}};
    for (size_t i = 0; i < lp.pairs.size(); ++i)
      info.pairs.push_back({static_cast<int>(i), lp.pairs[i].first, lp.pairs[i].second, band_name(lp.pairs[i].band), lp.pairs[i].frequency});
    out.layer_types.push_back(info);
  }

  const Scan sc = scan(model, capture, o, type_of, pairs_of, o.certify_breaks);
  const bool with_induction = capture.has_token_ids();
  out.scores_tested = static_cast<long long>(g.layers) * H * scores_per_head(rule, with_induction);
  out.z_critical = kind_critical_z(rule, out.scores_tested);
  const long long component_family = static_cast<long long>(g.layers) * H * (rule.max_offset + 1);
  const double component_t = component_t_critical(rule.alpha, component_family, g.sequences);
  const long long same_family = static_cast<long long>(g.layers) * H;  // one same-token test per head

  // Per layer and head: means, kinds, shares.
  const double q_count = static_cast<double>(g.sequences) * static_cast<double>(g.tokens);
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
      for (size_t p = 0; p < P; ++p) lu.k_norm[p] += sc.k_norm_sum[static_cast<size_t>(l)][static_cast<size_t>(kv)][p] / (q_count * KV);
    for (int h = 0; h < H; ++h) {
      const HeadState& s = sc.heads[static_cast<size_t>(l)][static_cast<size_t>(h)];
      HeadUsage hu;
      hu.head = h;
      hu.kv_head = h / group;
      for (size_t p = 0; p < P; ++p) {
        hu.q_norm.push_back(s.q_norm_sum[p] / q_count);
        hu.k_norm.push_back(sc.k_norm_sum[static_cast<size_t>(l)][static_cast<size_t>(hu.kv_head)][p] / q_count);
        lu.q_norm[p] += s.q_norm_sum[p] / (q_count * H);
      }
      const HeadAttention& a = s.attention;
      hu.rows = a.rows;
      const double rows = static_cast<double>(std::max(1LL, a.rows));
      hu.scores = classify_head(a.scores, with_induction, rule, out.z_critical);
      hu.diagonal = hu.scores.offsets[0].mass;
      hu.previous_token = hu.scores.offsets[1].mass;
      hu.first_token = hu.scores.first.mass;
      hu.strong_matches = static_cast<long long>(a.matches.size());
      hu.component = head_component(s.per_sequence, 1 - rule.alpha / static_cast<double>(component_family), rule.min_mass);
      hu.attribution = head_attribution(s.attribution, hu.component.offset);
      hu.distance = distance_logits(s.per_sequence_distance);
      if (with_induction) hu.same_token = same_token_test(s.per_sequence_same, 1 - rule.alpha / static_cast<double>(same_family));
      if (lp.quarter > 0) {
        double fast = 0, all = 0, q_fast = 0, q_all = 0;
        for (size_t p = 0; p < P; ++p) {
          all += hu.q_norm[p] + hu.k_norm[p];
          q_all += hu.q_norm[p];
          if (lp.pairs[p].band == Band::fast) {
            fast += hu.q_norm[p] + hu.k_norm[p];
            q_fast += hu.q_norm[p];
          }
        }
        if (all > 0) hu.high_frequency_share = fast / all;
        if (q_all > 0) hu.query_fast_share = q_fast / q_all;
        hu.slow_still = Ablation{a.tv_slow_still / rows, static_cast<double>(a.top1_slow_still) / rows};
        hu.fast_removed = Ablation{a.tv_fast_removed / rows, static_cast<double>(a.top1_fast_removed) / rows};
        hu.slow_removed = Ablation{a.tv_slow_removed / rows, static_cast<double>(a.top1_slow_removed) / rows};
      }
      lu.heads.push_back(std::move(hu));
    }
    out.layers.push_back(std::move(lu));
  }
  // The semantic head (same_token.h): the largest simultaneous lower bound above 0 (the first on a tie).
  out.same_token_family = with_induction ? same_family : 0;
  for (const LayerUsage& lu : out.layers)
    for (const HeadUsage& hu : lu.heads)
      if (hu.same_token && hu.same_token->lo > 0 && (!out.semantic_head || hu.same_token->lo > out.semantic_head->test.lo))
        out.semantic_head = SemanticHead{lu.layer, hu.head, *hu.same_token};

  // The rule on Gaussian captures of the same shapes: its false-positive rate.
  if (o.null_sequences != 0) {
    const long long n = o.null_sequences < 0 ? g.sequences : o.null_sequences;
    UsageOptions no = o;
    no.certify_breaks = false;
    NullCheck& nc = out.null;
    nc.run = true;
    nc.seed = o.null_seed;
    nc.sequences = n;
    nc.repeats = o.null_repeats;
    std::map<HeadKind, long long> counts;
    for (int rep = 0; rep < o.null_repeats; ++rep) {
      auto null = gaussian_capture(null_spec(capture, sc, n, o.null_seed + static_cast<std::uint64_t>(rep)));
      if (rep == 0) nc.capture = null->describe();
      const Scan ns = scan(model, *null, no, type_of, pairs_of, false, false);  // the row rule's scores only
      for (const auto& layer : ns.heads)
        for (const HeadState& s : layer) {
          const HeadClass c = classify_head(s.attention.scores, with_induction, rule, out.z_critical);
          nc.heads += 1;
          if (c.kind != HeadKind::other) {
            nc.flagged += 1;
            counts[c.kind] += 1;
          }
        }
    }
    for (HeadKind k : kHeadKinds)
      if (counts.count(k)) nc.kinds.push_back({head_kind_name(k), counts[k]});
    nc.rate = nc.heads ? static_cast<double>(nc.flagged) / static_cast<double>(nc.heads) : 0;
    nc.upper95 = clopper_pearson_upper(nc.flagged, nc.heads);
  }

  // Section 5: do the positional heads rank highest by their high-frequency share?
  std::vector<RankedHead> ranked;
  for (const LayerUsage& lu : out.layers)
    for (const HeadUsage& hu : lu.heads)
      if (hu.high_frequency_share) ranked.push_back({lu.layer, hu.head, *hu.high_frequency_share, is_positional(hu.kind())});
  for (LayerUsage& lu : out.layers)
    for (HeadUsage& hu : lu.heads)
      if (hu.high_frequency_share)
        hu.share_rank = 1 + static_cast<int>(std::count_if(ranked.begin(), ranked.end(), [&](const RankedHead& r) { return r.share > *hu.high_frequency_share; }));
  out.ranking = rank_across_heads(ranked);
  out.within_layers = rank_within_layers(ranked);

  // The positional-component test and Section 5 with its labels, interventions first.
  {
    std::vector<const HeadComponent*> components;
    for (const LayerUsage& lu : out.layers)
      for (const HeadUsage& hu : lu.heads) components.push_back(&hu.component);
    out.components = component_curve(components, rule.min_mass, rule.alpha, component_family, g.sequences, component_t);
    for (const LayerType& lt : model.layer_types) {
      std::vector<const HeadComponent*> of_type;
      for (const LayerUsage& lu : out.layers)
        if (lu.layer_type == lt.name)
          for (const HeadUsage& hu : lu.heads) of_type.push_back(&hu.component);
      if (!of_type.empty())
        out.components_by_layer_type.push_back({lt.name, component_curve(of_type, rule.min_mass, rule.alpha, component_family, g.sequences, component_t)});
    }
    std::vector<RankedHead> by_fast, by_slow, by_share, by_query_share;
    for (const LayerUsage& lu : out.layers)
      for (const HeadUsage& hu : lu.heads) {
        if (!hu.high_frequency_share) continue;
        const bool label = hu.component.offset.has_value();
        by_fast.push_back({lu.layer, hu.head, hu.fast_removed->tv, label, hu.kv_head});
        by_slow.push_back({lu.layer, hu.head, hu.slow_removed->tv, label, hu.kv_head});
        by_share.push_back({lu.layer, hu.head, *hu.high_frequency_share, label, hu.kv_head});
        if (hu.query_fast_share) by_query_share.push_back({lu.layer, hu.head, *hu.query_fast_share, label, hu.kv_head});
      }
    const std::string label = "positional-component";
    Section5& s5 = out.section5;
    s5.fast_removed = rank_across_heads(by_fast, {"attention change (tv) under removal of the fast quarter", label});
    s5.fast_removed_layers = rank_within_layers(by_fast, {"attention change (tv) under removal of the fast quarter", label});
    s5.fast_removed_kv_groups = rank_within_kv_groups(by_fast, {"attention change (tv) under removal of the fast quarter", label});
    s5.slow_removed = rank_across_heads(by_slow, {"attention change (tv) under removal of the slow quarter", label});
    s5.slow_removed_layers = rank_within_layers(by_slow, {"attention change (tv) under removal of the slow quarter", label});
    s5.share = rank_across_heads(by_share, {"fast-quarter share of q + k norm", label});
    s5.share_layers = rank_within_layers(by_share, {"fast-quarter share of q + k norm", label});
    s5.query_share_kv_groups = rank_within_kv_groups(by_query_share, {"fast-quarter share of the query's norm", label});
    s5.share_even_spread = misclassified_at(by_share, 0.25);
    s5.share_best = best_cut(by_share);
    s5.fast_removed_best = best_cut(by_fast);
  }

  // Appendix E and Section 3 over the heads.
  {
    std::vector<AttributedHead> attributed;
    for (const LayerUsage& lu : out.layers)
      for (const HeadUsage& hu : lu.heads)
        attributed.push_back({&hu.attribution, &pairs_of.at(type_of[static_cast<size_t>(lu.layer)]), hu.kind() == HeadKind::first_token});
    out.appendix_e = appendix_e(attributed);
    for (const LayerType& lt : model.layer_types) {
      std::vector<const std::vector<SequenceDistanceLogits>*> of_type;
      for (const LayerUsage& lu : out.layers)
        if (lu.layer_type == lt.name)
          for (int h = 0; h < H; ++h) of_type.push_back(&sc.heads[static_cast<size_t>(lu.layer)][static_cast<size_t>(h)].per_sequence_distance);
      if (!of_type.empty()) out.distance_by_layer_type.push_back({lt.name, distance_logits(mean_over_heads(of_type))});
    }
  }

  // Theorem 6.1 on every kept strong match of the content heads.
  if (o.certify_breaks) {
    struct Item {
      int layer, head;
      size_t row;
    };
    std::vector<Item> todo;
    for (const LayerUsage& lu : out.layers)
      for (const HeadUsage& hu : lu.heads)
        if (is_content(hu.kind()) && pairs_of.at(type_of[static_cast<size_t>(lu.layer)]).plan) {
          const HeadState& s = sc.heads[static_cast<size_t>(lu.layer)][static_cast<size_t>(hu.head)];
          for (size_t r = 0; r < s.kept.size(); ++r) todo.push_back({lu.layer, hu.head, r});
        }
    std::optional<ChannelRule> channel;
    if (o.certify_channel) channel = ChannelRule{o.channel_epsilon, model.attention.scale, model.attention.softcap.has_value()};
    std::vector<ContentBreak> done(todo.size());
    for_each_index(static_cast<int>(todo.size()), o.threads, [&](int i, int) {
      const Item& it = todo[static_cast<size_t>(i)];
      const LayerType* lt = type_of[static_cast<size_t>(it.layer)];
      done[static_cast<size_t>(i)] = certify_content_break(pairs_of.at(lt), sc.heads[static_cast<size_t>(it.layer)][static_cast<size_t>(it.head)].kept[it.row],
                                                           lt->span(), o.break_limit, o.break_mechanisms, channel);
    });
    for (size_t i = 0; i < todo.size(); ++i)
      out.layers[static_cast<size_t>(todo[i].layer)].heads[static_cast<size_t>(todo[i].head)].breaks.push_back(done[i]);
    std::vector<std::vector<ContentBreak>> per_head;
    for (const LayerUsage& lu : out.layers)
      for (const HeadUsage& hu : lu.heads) per_head.push_back(hu.breaks);
    out.breaks = break_distribution(per_head);
    if (o.break_mechanisms) {
      out.breaks_slow_only = break_distribution(per_head, BreakMechanism::slow_only);
      out.breaks_slow_still = break_distribution(per_head, BreakMechanism::slow_still);
    }
    if (channel && !channel->softcap) out.breaks_channel = channel_break_distribution(per_head);
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace ropecheck::usage
