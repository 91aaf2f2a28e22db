// File: adversarial_generators.h
// RapidCheck generators for the adversarial search's model (issue 6): heads, spectra, sequences
// and swaps (src/adversarial/head.h, sequence.h), built on the scalar generators of generators.h.
//
// Every vector component is a binary64 value built from a chosen decimal, a bit pattern or an
// exact construction (never RapidCheck's float generator). Edge values are weighted in:
//   - channels at the lowest frequencies (adversarial::lowest_pairs of a generated rope spectrum),
//   - phases near +-pi/2: 2-vectors (r cos t, r sin t) with cos t = delta a small dyadic or decimal
//     and sin t = +-sqrt(1 - delta^2), each component rounded once to binary64 (sqrt and * are
//     correctly rounded, so the vector is a deterministic function of the chosen r and delta),
//   - norms from 1 to 1e3, contexts from 2 to max (weighted short, generators.h contexts()).
// Shrinking goes toward short sequences, few non-zero chunks, few swaps and simple numbers (0, 1,
// -1, 1/2): every alternative list starts with its simplest member, and RapidCheck shrinks
// weightedOneOf/element toward earlier members and inRange toward its lower end.
#pragma once

#include <rapidcheck.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "adversarial/head.h"
#include "adversarial/presets.h"
#include "adversarial/sequence.h"
#include "generators.h"
#include "io/printf_string.h"
#include "numeric/precision.h"
#include "proofs/semantic-channel.h"
#include "random/counter_rng.h"
#include "random/uniform_below.h"
#include "spectrum/frequencies.h"
#include "spectrum/request.h"

namespace ropecheck::gen {

using Vec2 = std::array<double, 2>;

// Returns: a norm in [1, 1e3]: 1 first, round values, quarters, and bit patterns with exponents
// 0..9 clamped to 1e3. Shrinks toward 1.
inline rc::Gen<double> norms() {
  return rc::gen::weightedOneOf<double>({
      {3, rc::gen::element<double>(1.0, 2.0, 4.0, 10.0, 100.0, 1000.0, 3.0, 0.5 * 3.0)},
      {2, rc::gen::map(rc::gen::inRange(4, 4001), [](int k) { return k / 4.0; })},
      {1, rc::gen::map(binary64_with_exponents(0, 9), [](double x) { return std::min(std::fabs(x), 1000.0); })},
  });
}

// Returns: delta = cos t for t near +-pi/2: 0, +-2^-k (k = 1..60), or +-k/1000 (k = 1..100, the
// correctly rounded binary64 of the decimal). Shrinks toward 0.
inline rc::Gen<double> near_zero_cosines() {
  return rc::gen::weightedOneOf<double>({
      {2, rc::gen::just(0.0)},
      {2, rc::gen::map(rc::gen::tuple(rc::gen::inRange(1, 61), rc::gen::arbitrary<bool>()),
                       [](const auto& t) { return (std::get<1>(t) ? -1.0 : 1.0) * std::ldexp(1.0, -std::get<0>(t)); })},
      {1, rc::gen::map(rc::gen::inRange(-100, 101), [](int k) { return k / 1000.0; })},
  });
}

// Returns: a 2-vector of a channel (one chunk of a query or key), never RapidCheck's floats:
//   simple        both components from simple_doubles() (shrinks toward (0, 0));
//   near +-pi/2   (r delta, +-r sqrt(1 - delta^2)), each rounded once to binary64, r from norms();
//   scaled        r (a, b) with a, b bit patterns of magnitude in [2^-10, 2) (norm up to ~2.8e3).
inline rc::Gen<Vec2> channel_vectors() {
  return rc::gen::weightedOneOf<Vec2>({
      {3, rc::gen::map(rc::gen::tuple(simple_doubles(), simple_doubles()), [](const auto& t) { return Vec2{std::get<0>(t), std::get<1>(t)}; })},
      {2, rc::gen::map(rc::gen::tuple(norms(), near_zero_cosines(), rc::gen::arbitrary<bool>()),
                       [](const auto& t) {
                         const auto& [r, delta, down] = t;
                         const double sine = std::sqrt(1.0 - delta * delta);  // t = +-acos(delta): sin t = +-sqrt(1 - delta^2)
                         return Vec2{r * delta, (down ? -r : r) * sine};
                       })},
      {2, rc::gen::map(rc::gen::tuple(norms(), binary64_with_exponents(-10, 0), binary64_with_exponents(-10, 0)),
                       [](const auto& t) { return Vec2{std::get<0>(t) * std::get<1>(t), std::get<0>(t) * std::get<2>(t)}; })},
  });
}

// Returns: a channel 2-vector that is not (0, 0) (an active query chunk needs one).
inline rc::Gen<Vec2> nonzero_channel_vectors() {
  return rc::gen::suchThat(channel_vectors(), [](const Vec2& v) { return v[0] != 0 || v[1] != 0; });
}

namespace detail {

inline Spectrum spectrum_of(const SpectrumRequest& r) { return resolve(r).spectrum; }

inline void put(std::vector<double>& v, int chunk, const Vec2& x) {
  v[static_cast<size_t>(2 * chunk)] = x[0];
  v[static_cast<size_t>(2 * chunk + 1)] = x[1];
}

// A head on `request` with every vector zero and `distractors` distractor types.
inline adversarial::Head empty_head(const SpectrumRequest& request, int distractors, bool bos) {
  adversarial::Head h;
  h.spectrum_request = request;
  h.spectrum = spectrum_of(request);
  const auto d = static_cast<size_t>(h.spectrum.dim());
  h.query.assign(d, 0.0);
  h.target.assign(d, 0.0);
  h.distractors.assign(static_cast<size_t>(distractors), std::vector<double>(d, 0.0));
  if (bos) h.bos = std::vector<double>(d, 0.0);
  return h;
}

// The k lowest-frequency rotating pairs, ascending indices (presets.h).
inline std::vector<int> lowest(const Spectrum& s, int k) { return ropecheck::lowest_pairs(s, std::min(k, s.rotated_pairs())); }

}  // namespace detail

// Returns: a small rope spectrum request for a single low-frequency channel: d in {2, 4, 6, 8},
// theta from bases whose lowest frequency keeps the thm-6.1 bound small (10000 at d = 8 gives
// g ~ 1e-3, a bound of ~12600), no scaling or linear 2. Shrinks toward d = 2, theta 10000 (g = 1).
inline rc::Gen<SpectrumRequest> small_rope_requests() {
  return rc::gen::map(rc::gen::tuple(dimensions(8), rc::gen::element<std::string>("10000", "100", "2", "500", "1.5", "37"),
                                     rc::gen::element<std::string>("none", "linear:2")),
                      [](const auto& t) {
                        SpectrumRequest r;
                        r.dim = std::get<0>(t);
                        r.theta = std::get<1>(t);
                        r.variant = Variant::rope;
                        r.scaling = parse_scaling(std::get<2>(t));
                        return r;
                      });
}

// Returns: a request naming a released model (gemma-7b, llama-3.1-8b): their lowest pairs need
// contexts of ~1e5 (gemma-7b) to ~1e7 (llama-3.1-8b with its llama3 scaling).
inline rc::Gen<SpectrumRequest> model_requests() {
  return rc::gen::map(rc::gen::element<std::string>("gemma-7b", "llama-3.1-8b"), [](const std::string& name) {
    SpectrumRequest r;
    r.config = name;
    return r;
  });
}

// Returns: the thm-6.1 (Lemma A.3) context bound of a rotating pair, certified in MPFI at 128 bits
// (proofs/semantic-channel.h). Pure function of the spectrum: no libm, the same on every machine.
inline long long channel_context_bound(const Spectrum& spectrum, int pair) {
  ScopedPrecision p(128);
  return proofs::lemma_a3_context_bound(frequencies<Interval>(spectrum)[static_cast<size_t>(pair)]);
}

// Returns: heads whose only active chunk is one of the k (1..8) lowest-frequency rotating pairs of
// a rope spectrum: query, target and one distractor 2-vectors in that chunk (the query non-zero),
// every other component 0; no BOS, notion attention, epsilon 0.1, break_at 1/2 (Lemma A.3's). Only
// heads whose thm-6.1 bound is <= max_bound are produced. Spectra: small_rope_requests(), and with
// weight model_weight (out of 100) a released model's (model_requests()).
inline rc::Gen<adversarial::Head> low_frequency_channel_heads(long long max_bound, int model_weight = 0) {
  const auto requests = model_weight > 0 ? rc::gen::weightedOneOf<SpectrumRequest>({{static_cast<std::size_t>(100 - model_weight), small_rope_requests()},
                                                                                     {static_cast<std::size_t>(model_weight), model_requests()}})
                                         : small_rope_requests();
  const auto heads = rc::gen::mapcat(requests, [](const SpectrumRequest& request) {
    const Spectrum spectrum = detail::spectrum_of(request);
    const int kmax = std::min(8, spectrum.rotated_pairs());
    return rc::gen::map(rc::gen::tuple(rc::gen::inRange(0, kmax), nonzero_channel_vectors(), channel_vectors(), channel_vectors()),
                        [=](const auto& t) {
                          const auto& [rank, q, kt, ko] = t;
                          // rank 0 = the lowest frequency; shrinking moves toward it. In a rope
                          // spectrum (scaled or not) the frequency decreases with the pair index.
                          std::vector<int> low = detail::lowest(spectrum, kmax);
                          std::sort(low.begin(), low.end(), [](int a, int b) { return a > b; });
                          adversarial::Head h = detail::empty_head(request, 1, false);
                          const int chunk = low[static_cast<size_t>(rank)];
                          detail::put(h.query, chunk, q);
                          detail::put(h.target, chunk, kt);
                          detail::put(h.distractors[0], chunk, ko);
                          return h;
                        });
  });
  // A channel needs a non-zero key in its chunk (A_t + A_o > 0 in Lemma A.3's terms).
  return rc::gen::suchThat(heads, [=](const adversarial::Head& h) {
    const std::vector<int> a = adversarial::active_chunks(h);
    return a.size() == 1 && channel_context_bound(h.spectrum, a[0]) <= max_bound;
  });
}

// Returns: band heads: 2..8 of the lowest rotating pairs of a small rope spectrum (d 4..16) each
// carry their own query, target and distractor 2-vectors; one distractor type, no BOS.
inline rc::Gen<adversarial::Head> band_heads() {
  const auto requests = rc::gen::map(rc::gen::tuple(rc::gen::inRange(2, 9), rc::gen::element<std::string>("10000", "100", "2")), [](const auto& t) {
    SpectrumRequest r;
    r.dim = 2 * std::get<0>(t);
    r.theta = std::get<1>(t);
    return r;
  });
  return rc::gen::mapcat(requests, [](const SpectrumRequest& request) {
    const Spectrum spectrum = detail::spectrum_of(request);
    const int kmax = std::min(8, spectrum.rotated_pairs());
    return rc::gen::mapcat(rc::gen::inRange(2, kmax + 1), [=](int band) {
      const auto triple = rc::gen::tuple(channel_vectors(), channel_vectors(), channel_vectors());
      return rc::gen::map(rc::gen::container<std::vector<std::tuple<Vec2, Vec2, Vec2>>>(static_cast<size_t>(band), triple),
                          [=](const std::vector<std::tuple<Vec2, Vec2, Vec2>>& vs) {
                            adversarial::Head h = detail::empty_head(request, 1, false);
                            const std::vector<int> low = detail::lowest(spectrum, band);
                            for (size_t i = 0; i < vs.size(); ++i) {
                              detail::put(h.query, low[i], std::get<0>(vs[i]));
                              detail::put(h.target, low[i], std::get<1>(vs[i]));
                              detail::put(h.distractors[0], low[i], std::get<2>(vs[i]));
                            }
                            return h;
                          });
    });
  });
}

// Returns: the head's criterion: notion attention (3 in 4) or argmax, epsilon from {0.1, 0.01,
// 0.25, 0.4}, break_at 1/2 (1 - epsilon > 1/2 always, as validate() requires).
inline rc::Gen<std::tuple<adversarial::Notion, std::string>> criteria() {
  return rc::gen::tuple(rc::gen::weightedElement<adversarial::Notion>({{3, adversarial::Notion::attention}, {1, adversarial::Notion::argmax}}),
                        rc::gen::element<std::string>("0.1", "0.01", "0.25", "0.4"));
}

namespace detail {

// Fills every type's chunk `c` (query, target, distractors, BOS) from `vs` in that order.
inline void fill_chunk(adversarial::Head& h, int c, const std::vector<Vec2>& vs) {
  size_t i = 0;
  put(h.query, c, vs[i++]);
  put(h.target, c, vs[i++]);
  for (auto& d : h.distractors) put(d, c, vs[i++]);
  if (h.bos) put(*h.bos, c, vs[i++]);
}

inline size_t vectors_per_chunk(int distractors, bool bos) { return static_cast<size_t>(2 + distractors + (bos ? 1 : 0)); }

}  // namespace detail

// Returns: p-RoPE heads whose active chunks all lie in the removed band (g = 0): d in 4..16,
// p-rope fraction with at least one removed pair, 1..3 distractor types, BOS sometimes. Every
// removed chunk carries generated vectors for every type (the query there may be zero: then no
// chunk is active, the trivial edge). Every rotating chunk has either a zero query and generated
// keys, or a generated query and zero keys, so it is never active: position-freeness must come from
// g = 0 and from exact zeros only.
inline rc::Gen<adversarial::Head> p_rope_unrotated_heads() {
  const auto shapes = rc::gen::tuple(rc::gen::inRange(2, 9), rc::gen::element<std::string>("0.75", "0.5", "0.25", "0", "0.3", "0.9"),
                                     rc::gen::element<std::string>("10000", "500000", "2"), rc::gen::inRange(1, 4), rc::gen::arbitrary<bool>(), criteria());
  return rc::gen::mapcat(shapes, [](const auto& t) {
    const int half = std::get<0>(t), distractors = std::get<3>(t);
    const bool bos = std::get<4>(t);
    const auto criterion = std::get<5>(t);
    const std::string fraction = std::get<1>(t), theta = std::get<2>(t);
    SpectrumRequest request;
    request.dim = 2 * half;
    request.theta = theta;
    request.variant = Variant::p_rope;
    request.fraction = fraction;
    const Spectrum spectrum = detail::spectrum_of(request);
    const size_t per_chunk = detail::vectors_per_chunk(distractors, bos);
    const auto chunk_vectors = rc::gen::container<std::vector<Vec2>>(per_chunk, channel_vectors());
    return rc::gen::map(rc::gen::tuple(rc::gen::container<std::vector<std::vector<Vec2>>>(static_cast<size_t>(spectrum.pairs()), chunk_vectors),
                                       rc::gen::container<std::vector<int>>(static_cast<size_t>(spectrum.pairs()), rc::gen::inRange(0, 2))),
                        [=](const auto& u) {
                          const auto& [vs, query_side] = u;
                          adversarial::Head h = detail::empty_head(request, distractors, bos);
                          h.notion = std::get<0>(criterion);
                          h.epsilon = std::get<1>(criterion);
                          for (int c = 0; c < spectrum.pairs(); ++c) {
                            std::vector<Vec2> v = vs[static_cast<size_t>(c)];
                            if (spectrum.rotated(c)) {
                              // Rotating chunk: zero the query or every key, never neither.
                              if (query_side[static_cast<size_t>(c)]) std::fill(v.begin() + 1, v.end(), Vec2{0.0, 0.0});
                              else v[0] = Vec2{0.0, 0.0};
                            }
                            detail::fill_chunk(h, c, v);
                          }
                          return h;
                        });
  });
}

// Returns: NoPE heads (every g = 0): d in 2..8, 1..3 distractor types, BOS sometimes, every chunk
// of every type generated.
inline rc::Gen<adversarial::Head> nope_heads() {
  const auto shapes = rc::gen::tuple(rc::gen::inRange(1, 5), rc::gen::inRange(1, 4), rc::gen::arbitrary<bool>(), criteria(), thetas());
  return rc::gen::mapcat(shapes, [](const auto& t) {
    const int half = std::get<0>(t), distractors = std::get<1>(t);
    const bool bos = std::get<2>(t);
    const auto criterion = std::get<3>(t);
    SpectrumRequest request;
    request.dim = 2 * half;
    request.theta = std::get<4>(t);
    request.variant = Variant::nope;
    const size_t per_chunk = detail::vectors_per_chunk(distractors, bos);
    return rc::gen::map(rc::gen::container<std::vector<std::vector<Vec2>>>(static_cast<size_t>(half),
                                                                           rc::gen::container<std::vector<Vec2>>(per_chunk, channel_vectors())),
                        [=](const std::vector<std::vector<Vec2>>& vs) {
                          adversarial::Head h = detail::empty_head(request, distractors, bos);
                          h.notion = std::get<0>(criterion);
                          h.epsilon = std::get<1>(criterion);
                          for (int c = 0; c < half; ++c) detail::fill_chunk(h, c, vs[static_cast<size_t>(c)]);
                          return h;
                        });
  });
}

// Returns: the types of a head other than the target and BOS: d0, d1, ...
inline std::vector<adversarial::TypeId> distractor_types(const adversarial::Head& h) {
  std::vector<adversarial::TypeId> t;
  for (size_t i = 0; i < h.distractors.size(); ++i) t.push_back(adversarial::distractor(static_cast<int>(i)));
  return t;
}

// Returns: a position in [lo, hi]: lo, hi and uniform ones; shrinks toward lo.
inline rc::Gen<long long> positions_in(long long lo, long long hi) {
  return rc::gen::weightedOneOf<long long>({{3, rc::gen::inRange<long long>(lo, hi + 1)}, {1, rc::gen::elementOf(std::vector<long long>{lo, hi})}});
}

// Returns: sequences for `head` with length in [3, max_length] (context 2..max_length-1, weighted
// short): a fill distractor type, BOS at 0 when the head has one, a unique target at a generated
// position (never the query's, never 0 under a BOS), and 0..4 other distractor tokens at generated
// positions (the query's included: its key is its type's). Preconditions: max_length >= 3.
inline rc::Gen<adversarial::Sequence> sequences(const adversarial::Head& head, long long max_length) {
  const std::vector<adversarial::TypeId> types = distractor_types(head);
  const bool bos = head.bos.has_value();
  return rc::gen::mapcat(rc::gen::tuple(contexts(max_length - 1), rc::gen::elementOf(types)), [=](const auto& t) {
    const long long length = std::get<0>(t) + 1;
    const adversarial::TypeId fill = std::get<1>(t);
    const long long first = bos ? 1 : 0;
    const auto others = rc::gen::container<std::vector<std::pair<long long, adversarial::TypeId>>>(
        rc::gen::pair(positions_in(first, length - 1), rc::gen::elementOf(types)));
    return rc::gen::map(rc::gen::tuple(positions_in(first, length - 2), rc::gen::resize(4, others)), [=](const auto& u) {
      const auto& [target, extra] = u;
      adversarial::Sequence s;
      s.length = length;
      s.fill = fill;
      if (bos) s.set(0, adversarial::kBos);
      for (const auto& [p, type] : extra)
        if (p != target) s.set(p, type);
      s.set(target, adversarial::kTarget);
      return s;
    });
  });
}

// The positions swaps may move: not the query (length - 1), not a BOS at 0.
inline std::pair<long long, long long> movable_range(const adversarial::Sequence& s, const adversarial::Head& h) {
  return {h.bos ? 1 : 0, s.length - 2};
}

// Returns: 0..max_swaps transpositions of movable positions (a position may be swapped with
// itself: the identity, a legal swap). Shrinks toward no swap.
inline rc::Gen<std::vector<adversarial::Swap>> swaps(const adversarial::Sequence& s, const adversarial::Head& h, int max_swaps = 4) {
  const auto [lo, hi] = movable_range(s, h);
  const auto one = rc::gen::pair(positions_in(lo, hi), positions_in(lo, hi));
  return rc::gen::resize(max_swaps, rc::gen::container<std::vector<adversarial::Swap>>(one));
}

// Returns: a permutation of the movable positions written as swaps: either a few random
// transpositions (shrinks toward none) or, when at most 4096 positions move, a uniform random
// permutation (Fisher-Yates on CounterRng words from a generated seed, Lemire's unbiased bounded
// integers) decomposed into its at most n - 1 transpositions.
inline rc::Gen<std::vector<adversarial::Swap>> permutation_swaps(const adversarial::Sequence& s, const adversarial::Head& h) {
  const auto [lo, hi] = movable_range(s, h);
  const long long n = hi - lo + 1;
  const auto few = swaps(s, h, 8);
  if (n > 4096) return few;
  const long long first = lo;
  const auto full = rc::gen::map(rc::gen::arbitrary<std::uint64_t>(), [first, n](std::uint64_t seed) {
    const CounterRng rng(seed, 0x5e9);
    std::uint64_t word = 0;
    std::vector<adversarial::Swap> out;
    for (long long i = n - 1; i > 0; --i) {
      const auto j = static_cast<long long>(uniform_below<std::uint64_t, unsigned __int128>(static_cast<std::uint64_t>(i + 1), [&] { return rng.bits(word++); }));
      if (j != i) out.emplace_back(first + i, first + j);
    }
    return out;
  });
  return rc::gen::weightedOneOf<std::vector<adversarial::Swap>>({{2, few}, {1, full}});
}

}  // namespace ropecheck::gen

namespace ropecheck::adversarial {

// RapidCheck's printers (found by argument-dependent lookup) for the counterexamples it reports:
// every component as %a, so a printed case is the exact case.
inline void showValue(const Head& h, std::ostream& os) {
  auto vec = [&](const char* name, const std::vector<double>& v) {
    os << "; " << name << " (";
    for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << hex_double(v[i]);
    os << ")";
  };
  os << "head{" << h.spectrum.describe() << "; notion " << notion_name(h.notion) << ", epsilon " << h.epsilon << ", break_at " << h.break_at;
  vec("query", h.query);
  vec("target", h.target);
  for (size_t i = 0; i < h.distractors.size(); ++i) vec(type_name(distractor(static_cast<int>(i))).c_str(), h.distractors[i]);
  if (h.bos) vec("bos", *h.bos);
  os << "}";
}

inline void showValue(const Sequence& q, std::ostream& os) {
  os << "sequence{length " << q.length << ", fill " << type_name(q.fill) << ", tokens";
  for (const auto& [p, t] : q.tokens) os << " " << p << ":" << type_name(t);
  os << "}";
}

}  // namespace ropecheck::adversarial
