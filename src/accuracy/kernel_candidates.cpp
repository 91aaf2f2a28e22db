#include "accuracy/kernel_candidates.h"

#include <algorithm>
#include <limits>

#include "io/input_error.h"
#include "numeric/small_floats.h"
#include "accuracy/sample_values.h"
#include "random/counter_rng.h"

namespace ropecheck::accuracy {
namespace {

using u128 = unsigned __int128;

// Streams of CounterRng(seed, stream): block words at index 4 b + j, candidate words at 8 i + j.
constexpr std::uint64_t kBlockStream = 11, kCandidateStream = 12;

constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

// The fixed edge positions: powers of two where fixed-point turn arithmetic changes limbs, the
// int64 extremes (|INT64_MIN| = 2^63 has no int64 negation), and the near-returns of g = 1
// (44 ~ 7 * 2pi, 710 ~ 113 * 2pi, 103993 ~ 16551 * 2pi, 104348 ~ 16607.5 * 2pi: pi's convergents).
constexpr std::int64_t kEdgePositions[] = {0,     1,      -1,     std::int64_t{1} << 24, std::int64_t{1} << 31, std::int64_t{1} << 40,
                                           kInt64Min, kInt64Max, 44, -44, 710, -710, 103993, -103993, 104348, -104348};

constexpr std::uint32_t kNonFiniteF32[] = {0x7F800000u, 0xFF800000u, 0x7FC00000u, 0x7FA00001u, 0xFFC00001u};
constexpr std::uint16_t kNonFiniteBf16[] = {0x7F80, 0xFF80, 0x7FC0, 0x7FA1, 0xFFC1};
constexpr std::uint16_t kNonFiniteF16[] = {0x7C00, 0xFC00, 0x7E00, 0x7D01, 0xFE01};
constexpr std::size_t kNonFinite = 5;

// Appends the convergent denominators (< 2^63) of N / 2^128, 0 < N < 2^128.
void convergents(u128 n, std::vector<std::int64_t>& out) {
  if (n == 0) return;
  // First partial quotient of 2^128 / N from (2^128 - 1) = q N + r: 2^128 = q N + (r + 1).
  const u128 all = ~u128{0};
  u128 a = all / n, r = all % n + 1;
  if (r == n) {
    ++a;
    r = 0;
  }
  const u128 limit = static_cast<u128>(kInt64Max);
  u128 q_prev = 1, q = a;  // q_0 = 1 (denominator of [0;] = 0/1), q_1 = a_1
  u128 prev = n;
  if (q > limit) return;
  out.push_back(static_cast<std::int64_t>(q));
  while (r != 0) {
    const u128 next = prev / r, rem = prev % r;
    prev = r;
    r = rem;
    // q_{n+1} = a q_n + q_{n-1}; stop before it leaves [1, 2^63) (also guards the u128 product).
    if (next > limit || q > (limit - q_prev) / next) return;
    const u128 q_next = next * q + q_prev;
    q_prev = q;
    q = q_next;
    out.push_back(static_cast<std::int64_t>(q));
  }
}

}  // namespace

std::string input_kind_name(KernelInputKind kind) {
  switch (kind) {
    case KernelInputKind::bit_patterns: return "bit patterns";
    case KernelInputKind::moderate: return "moderate";
    case KernelInputKind::near_cancellation: return "near cancellation";
    case KernelInputKind::edge_values: return "edge values";
    case KernelInputKind::axis: return "axis";
    case KernelInputKind::zeros: return "zeros";
    case KernelInputKind::specials: return "specials";
  }
  return "";
}

u128 plan_turns(const kernel::RopePlan& plan, int k) {
  u128 g = 0;
  for (int i = 3; i >= 0; --i) g = (g << 32) | plan.limb(i)[k];
  return g;
}

std::vector<std::int64_t> near_returns(u128 turns) {
  std::vector<std::int64_t> out;
  // G < 2^126 (rope_plan.h), so 4 G < 2^128 and m G is frac(m G / 2^128) * 2^128 exactly.
  for (unsigned m : {1u, 2u, 4u}) convergents(turns * m, out);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

KernelCandidates::KernelCandidates(std::uint64_t seed, int block_pairs, std::vector<std::vector<std::int64_t>> returns, int subjects)
    : seed_(seed), block_pairs_(block_pairs), near_returns_(std::move(returns)), subjects_(subjects) {
  if (block_pairs < 1) throw InputError("block pairs", "an integer >= 1", std::to_string(block_pairs));
  if (subjects < 1) throw InputError("subjects", "an integer >= 1", std::to_string(subjects));
  for (std::size_t k = 0; k < near_returns_.size(); ++k)
    if (!near_returns_[k].empty()) pairs_with_returns_.push_back(static_cast<int>(k));
}

KernelBlock KernelCandidates::block(long long b) const {
  const CounterRng rng(seed_, kBlockStream);
  const auto w = [&](std::uint64_t j) { return rng.bits(static_cast<std::uint64_t>(b) * 4 + j); };
  KernelBlock out;
  // Modulo of a 64-bit word: a bias below 100 / 2^64, irrelevant to a search (no statistic is drawn).
  const std::uint64_t w0 = w(0);
  const std::uint64_t sel = w0 % 100;
  // Subjects beyond 0 (the configuration's variants) take one block in eight.
  if (subjects_ > 1 && (w0 >> 32) % 8 == 7) out.subject = 1 + static_cast<int>((w0 >> 40) % static_cast<std::uint64_t>(subjects_ - 1));
  if (sel < 15) {
    out.position = static_cast<std::int64_t>(w(1));
    out.origin = "bit pattern";
  } else if (sel < 70 && sel >= 45) {
    const std::uint64_t w1 = w(1), w2 = w(2);
    if (w1 % 2 == 0) {
      out.position = kEdgePositions[w2 % std::size(kEdgePositions)];
    } else {
      const int k = 1 + static_cast<int>(w2 % 62);  // 2^1 .. 2^62
      const std::int64_t d = static_cast<std::int64_t>((w2 >> 8) % 3) - 1;
      const std::int64_t p = (std::int64_t{1} << k) + d;
      out.position = (w2 >> 16) % 2 ? -p : p;
    }
    out.origin = "edge";
  } else if (sel >= 70 && !pairs_with_returns_.empty()) {
    const std::uint64_t w1 = w(1), w2 = w(2), w3 = w(3);
    const int k = pairs_with_returns_[w1 % pairs_with_returns_.size()];
    const std::vector<std::int64_t>& list = near_returns_[static_cast<std::size_t>(k)];
    const std::int64_t q = list[w2 % list.size()];
    std::int64_t d = static_cast<std::int64_t>(w3 % 3) - 1;
    if (q == kInt64Max && d == 1) d = 0;
    const std::int64_t p = q + d;
    out.position = (w3 >> 8) % 2 ? -p : p;
    out.origin = "near-return of pair " + std::to_string(k);
  } else {
    // Log-uniform: a bit length L in [0, 63], then a uniform L-bit magnitude, then a sign.
    const std::uint64_t w1 = w(1), w2 = w(2);
    const int bits = static_cast<int>(w1 % 64);
    std::int64_t p = 0;
    if (bits > 0) {
      const std::uint64_t top = std::uint64_t{1} << (bits - 1);
      p = static_cast<std::int64_t>(top | (w2 & (top - 1)));
    }
    out.position = (w1 >> 8) % 2 ? -p : p;
    out.origin = "log-uniform";
  }
  return out;
}

KernelCandidate KernelCandidates::candidate(long long index, const CosSin& cos_sin, std::optional<Dtype> format) const {
  using accuracy::kEdgeValues;
  using accuracy::moderate_f32;
  const KernelBlock b = block(block_of(index));
  KernelCandidate c;
  c.index = index;
  c.position = b.position;
  c.subject = b.subject;
  c.pair = static_cast<int>(index % block_pairs_);
  const CounterRng rng(seed_, kCandidateStream);
  const auto w = [&](std::uint64_t j) { return rng.bits(static_cast<std::uint64_t>(index) * 8 + j); };
  const std::uint64_t w0 = w(0);
  c.format = format ? *format : kKernelDtypes[(w0 >> 8) % kKernelDtypes.size()];
  c.layout = (w0 >> 9) % 2 ? kernel::Layout::half : kernel::Layout::interleaved;
  const std::uint64_t sel = (w0 >> 16) % 100;
  const Dtype f = c.format;
  // A float value in the candidate's format (rounded to nearest even).
  const auto value = [&](float x) -> std::uint32_t { return bits_of_value(f, x); };
  const auto pattern = [&](std::uint64_t bits) -> std::uint32_t {
    return with_storage(f, [&](auto e) { return bits_of(accuracy::finite_pattern<decltype(e)>(bits)); });
  };
  const auto edge = [&](std::uint64_t i) -> std::uint32_t {
    return with_storage(f, [&](auto e) { return bits_of(accuracy::edge_value<decltype(e)>(i % kEdgeValues)); });
  };
  const auto non_finite = [&](std::uint64_t i) -> std::uint32_t {
    switch (f) {
      case Dtype::f32: return kNonFiniteF32[i % kNonFinite];
      case Dtype::bf16: return kNonFiniteBf16[i % kNonFinite];
      case Dtype::f16: return kNonFiniteF16[i % kNonFinite];
      case Dtype::f64: break;
    }
    require_kernel_dtype(f, "KernelCandidates::candidate");
    return 0;
  };
  const auto zero = [&](bool negative) -> std::uint32_t { return negative ? std::uint32_t{1} << (8 * dtype_info(f).bytes - 1) : 0u; };
  if (sel < 22) {
    c.kind = KernelInputKind::bit_patterns;
    c.input[0] = pattern(w(1));
    c.input[1] = pattern(w(2));
  } else if (sel < 42) {
    c.kind = KernelInputKind::moderate;
    c.input[0] = value(moderate_f32(w(1)));
    c.input[1] = value(moderate_f32(w(2)));
  } else if (sel < 62) {
    c.kind = KernelInputKind::near_cancellation;
    double co = 1, si = 0;
    cos_sin(c.pair, co, si);
    const double s0 = moderate_f32(w(1));
    const bool on_b = w(2) % 2 == 1;
    // (s sin t, s cos t) cancels y_a = x_a cos - x_b sin; (s cos t, -s sin t) cancels y_b.
    c.input[0] = value(static_cast<float>(on_b ? s0 * co : s0 * si));
    c.input[1] = value(static_cast<float>(on_b ? -s0 * si : s0 * co));
  } else if (sel < 76) {
    c.kind = KernelInputKind::edge_values;
    for (int j = 0; j < 2; ++j) {
      const std::uint64_t a = w(static_cast<std::uint64_t>(1 + 2 * j)), v = w(static_cast<std::uint64_t>(2 + 2 * j));
      c.input[j] = a % 4 != 0 ? edge(v) : pattern(v);
    }
  } else if (sel < 86) {
    c.kind = KernelInputKind::axis;
    const std::uint64_t w1 = w(1), w2 = w(2);
    const int z = static_cast<int>(w1 % 2);
    c.input[z] = zero((w1 >> 1) % 2 == 1);
    c.input[1 - z] = (w1 >> 2) % 2 ? value(moderate_f32(w2)) : pattern(w2);
  } else if (sel < 92) {
    c.kind = KernelInputKind::zeros;
    const std::uint64_t w1 = w(1);
    c.input[0] = zero(w1 % 2 == 1);
    c.input[1] = zero((w1 >> 1) % 2 == 1);
  } else {
    c.kind = KernelInputKind::specials;
    const std::uint64_t w1 = w(1), w2 = w(2);
    bool any = false;
    for (int j = 0; j < 2; ++j) {
      const std::uint64_t sel_j = (w1 >> (8 * j)) % 2;
      const std::uint64_t v = w(static_cast<std::uint64_t>(3 + j));
      if (sel_j == 0) {
        c.input[j] = non_finite(v);
        any = true;
      } else {
        c.input[j] = value(moderate_f32(v));
      }
    }
    if (!any) c.input[w2 % 2] = non_finite(w2 >> 1);
  }
  return c;
}

}  // namespace ropecheck::accuracy
