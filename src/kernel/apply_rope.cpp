#include "kernel/apply_rope.h"

#include <mpfr.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <memory>
#include <vector>

#include "io/input_error.h"
#include "kernel/detail/apply_with_ops.h"
#include "cpu/float_environment.h"
#include "kernel/detail/ops.h"
#include "cpu/split_tokens.h"
#include "cpu/thread_count.h"

namespace ropecheck::kernel {
namespace {

// Ordinary stores throughout. Non-temporal stores skip the read-for-ownership of every output
// line and were used from 16 MiB on, but measured by bench/kernel_bench.cpp (memcpy between its
// own buffers, seeded order, medians of 5) on this machine (AMD EPYC, Zen 5, AVX-512) ordinary
// stores were faster at every size it runs: ratio_to_memcpy 0.58-0.84 with non-temporal stores
// against 0.78-1.0 without, at 32 to 512 MiB, f32 and bf16, both layouts. Measured again after
// bf16's binary32 level (2026-11-26): non-temporal stores slowed the kernel itself (bf16 half,
// 4096 tokens: 3.6 -> 5.9 ms), and rotating a token into a cache-resident buffer then streaming
// it out whole did not gain either.

struct Aligned {
  void operator()(double* p) const { std::free(p); }
};

template <typename E>
std::pair<const unsigned char*, const unsigned char*> byte_range(const TensorView<E>& v, int dim) {
  if (v.tokens == 0 || v.heads == 0) return {nullptr, nullptr};
  const auto* base = reinterpret_cast<const unsigned char*>(v.data);
  const std::int64_t last = (v.tokens - 1) * v.token_stride + (v.heads - 1) * v.head_stride + dim;
  return {base, base + last * static_cast<std::int64_t>(sizeof(E))};
}

template <typename E>
void validate(int dim, std::int64_t positions, const TensorView<const E>& in, const TensorView<E>& out, int threads) {
  auto check_view = [&](const auto& v, const std::string& name) {
    if (v.tokens < 0 || v.heads < 0) throw InputError(name, "a view with tokens >= 0 and heads >= 0", std::to_string(v.tokens) + " tokens, " + std::to_string(v.heads) + " heads");
    if (v.token_stride < 0 || v.head_stride < 0) throw InputError(name + " strides", "non-negative element counts", std::to_string(v.token_stride) + ", " + std::to_string(v.head_stride));
    if ((v.tokens > 0 && v.heads > 0) && v.data == nullptr) throw InputError(name, "a non-null data pointer", "null");
  };
  check_view(in, "input");
  check_view(out, "output");
  if (in.tokens != out.tokens || in.heads != out.heads)
    throw InputError("output", "a view of the input's shape (" + std::to_string(in.tokens) + " tokens, " + std::to_string(in.heads) + " heads)",
                     std::to_string(out.tokens) + " tokens, " + std::to_string(out.heads) + " heads");
  if (positions != in.tokens) throw InputError("positions", "one position per token (" + std::to_string(in.tokens) + ")", std::to_string(positions));
  cpu::check_thread_count(threads, "threads");
  // Output rows must be disjoint, or the result would depend on the order of the writes.
  if (out.heads > 1 && out.head_stride < dim)
    throw InputError("output head stride", "at least head_dim (" + std::to_string(dim) + ") when there are several heads", std::to_string(out.head_stride));
  if (out.tokens > 1 && out.token_stride < dim)
    throw InputError("output token stride", "at least head_dim (" + std::to_string(dim) + ") when there are several tokens", std::to_string(out.token_stride));
  if (static_cast<const void*>(in.data) == static_cast<const void*>(out.data)) {
    if (in.token_stride != out.token_stride || in.head_stride != out.head_stride)
      throw InputError("output", "the input view itself (in place) or a non-overlapping view", "the same data with other strides");
    return;
  }
  const auto [ib, ie] = byte_range(in, dim);
  const auto [ob, oe] = byte_range(TensorView<const E>{out.data, out.tokens, out.heads, out.token_stride, out.head_stride}, dim);
  if (ib != nullptr && ob != nullptr && ib < oe && ob < ie)
    throw InputError("output", "the input view itself (in place) or a non-overlapping view", "a view overlapping the input");
}

detail::RowShape make_shape(const RopePlan& plan, std::vector<std::uint8_t>& element_rotates) {
  detail::RowShape shape;
  shape.dim = plan.dim();
  shape.offset = plan.rotary_offset();
  shape.block = plan.block_pairs();
  shape.err_scale = plan.attention_factor() * 0x1p-48;  // ops.h: K = RN(a) 2^-48, exact
  // ops.h: K' = RN32(RN32(a) 4.5 2^-24) (4.5 = 3 for the error, 1 for lo's and hi's roundings, 0.5
  // of margin); the binary32 level needs RN32(a) in [2^-60, 2^60].
  const float a32 = static_cast<float>(plan.attention_factor());
  shape.err_scale32 = a32 >= 0x1p-60f && a32 <= 0x1p60f ? a32 * 0x1.2p-22f : std::numeric_limits<float>::quiet_NaN();
  shape.err_scale16 = a32 * 0x1p-22f;  // ops.h: K16 = RN32(a) 2^-22, exact (a in [2^-64, 2^64))
  shape.layout = plan.layout();
  shape.pair_identity = plan.identity_flags();
  shape.any_identity = plan.any_identity();
  shape.pass_through = shape.offset > 0 || shape.dim > shape.offset + 2 * shape.block;
  element_rotates.assign(static_cast<size_t>(2 * shape.block + 64), 0);
  for (int k = 0; k < shape.block; ++k) {
    if (plan.identity(k)) continue;
    element_rotates[static_cast<size_t>(plan.first_element(k) - shape.offset)] = 1;
    element_rotates[static_cast<size_t>(plan.second_element(k) - shape.offset)] = 1;
  }
  shape.element_rotates = element_rotates.data();
  return shape;
}

template <typename E>
void run(const detail::PathOps& ops, const RopePlan& plan, const std::int64_t* positions, const SinCosTable* table,
         TensorView<const E> in, TensorView<E> out, const KernelOptions& options) {
  std::vector<std::uint8_t> element_rotates;
  const detail::RowShape shape = make_shape(plan, element_rotates);
  const detail::TurnLimbs g{{plan.limb(0), plan.limb(1), plan.limb(2), plan.limb(3)}};
  const int width = plan.block_pairs();

  const std::int64_t tokens = in.tokens;
  if (tokens == 0 || in.heads == 0) return;
  const std::int64_t n = std::min<std::int64_t>(options.threads, tokens);
  // Row buffers per thread, allocated here so that a failed allocation is an exception of the
  // caller's thread, not a std::terminate inside a worker: the token's cos/sin (2R doubles, each
  // row starting on a cache line) and the rotations' scratch (ops.h), 64-byte aligned.
  const int padded = (width + 7) / 8 * 8;
  const size_t bytes = static_cast<size_t>(2 * padded) * sizeof(double) + detail::Scratch::bytes(width);
  std::vector<std::unique_ptr<double, Aligned>> buffers;
  for (std::int64_t i = 0; i < n; ++i) {
    buffers.emplace_back(static_cast<double*>(std::aligned_alloc(64, bytes)));
    if (!buffers.back()) throw std::bad_alloc();
  }

  std::vector<std::int64_t> taken(static_cast<size_t>(n), 0), unresolved(static_cast<size_t>(n), 0), redone(static_cast<size_t>(n), 0);
  auto work = [&](std::int64_t t0, std::int64_t t1, std::int64_t worker) {
    cpu::DefaultFloatEnvironment guard;
    const auto w = static_cast<size_t>(worker);
    detail::SlowPath slow{&plan.exact(), 0, &taken[w], &unresolved[w], &redone[w]};
    double* buffer = buffers[w].get();
    double* c = buffer;
    double* s = c + padded;
    const detail::Scratch scratch = detail::Scratch::carve(s + padded, width);
    for (std::int64_t t = t0; t < t1; ++t) {
      const double* ct = c;
      const double* st = s;
      if (table != nullptr) {
        ct = table->cos_row(t);
        st = table->sin_row(t);
      } else {
        ops.sincos_row(g, width, positions[t], c, s);
        detail::scale_row(plan.attention_factor(), width, c, s);
      }
      slow.position = table != nullptr ? table->position(t) : positions[t];
      const E* x = in.data + t * in.token_stride;
      E* y = out.data + t * out.token_stride;
      ops.rotate<E>()(shape, ct, st, x, in.head_stride, y, out.head_stride, in.heads, scratch, slow);
    }
    // The accurate path's MPFR constants (pi) are cached per thread: a thread that used it frees
    // its cache, or the cache leaks when the thread ends (worker 0 runs on the caller's thread, which
    // may itself be a short-lived worker of the caller's; freeing costs only a recomputation).
    if (taken[static_cast<size_t>(worker)] > 0) mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);
  };
  cpu::split_tokens(tokens, n, work);
  if (options.stats != nullptr) {
    std::int64_t rotating = 0;
    for (int k = 0; k < width; ++k) rotating += plan.identity(k) ? 0 : 2;
    options.stats->outputs += tokens * in.heads * rotating;
    for (std::int64_t i = 0; i < n; ++i) {
      options.stats->slow += taken[static_cast<size_t>(i)];
      options.stats->unresolved += unresolved[static_cast<size_t>(i)];
      options.stats->redone += redone[static_cast<size_t>(i)];
    }
  }
}


template <typename E>
void apply_table(const SinCosTable& table, TensorView<const E> in, TensorView<E> out, const KernelOptions& options) {
  validate<E>(table.plan().dim(), table.tokens(), in, out, options.threads);
  cpu::require_available(options.path, "kernel path");
  run<E>(detail::ops_for(options.path), table.plan(), nullptr, &table, in, out, options);
}

}  // namespace

template <typename E>
void detail::apply_rope_with_ops(const PathOps& ops, const RopePlan& plan, std::span<const std::int64_t> positions,
                                 TensorView<const E> in, TensorView<E> out, const KernelOptions& options) {
  validate<E>(plan.dim(), static_cast<std::int64_t>(positions.size()), in, out, options.threads);
  cpu::require_available(options.path, "kernel path");
  run<E>(ops, plan, positions.data(), nullptr, in, out, options);
}
template void detail::apply_rope_with_ops<float>(const detail::PathOps&, const RopePlan&, std::span<const std::int64_t>,
                                                 TensorView<const float>, TensorView<float>, const KernelOptions&);
template void detail::apply_rope_with_ops<Bf16Bits>(const detail::PathOps&, const RopePlan&, std::span<const std::int64_t>,
                                                    TensorView<const Bf16Bits>, TensorView<Bf16Bits>, const KernelOptions&);
template void detail::apply_rope_with_ops<F16Bits>(const detail::PathOps&, const RopePlan&, std::span<const std::int64_t>,
                                                   TensorView<const F16Bits>, TensorView<F16Bits>, const KernelOptions&);

void apply_rope(const RopePlan& plan, std::span<const std::int64_t> positions, TensorView<const float> in,
                TensorView<float> out, const KernelOptions& options) {
  detail::apply_rope_with_ops<float>(detail::ops_for(options.path), plan, positions, in, out, options);
}
void apply_rope(const RopePlan& plan, std::span<const std::int64_t> positions, TensorView<const Bf16Bits> in,
                TensorView<Bf16Bits> out, const KernelOptions& options) {
  detail::apply_rope_with_ops<Bf16Bits>(detail::ops_for(options.path), plan, positions, in, out, options);
}
void apply_rope(const RopePlan& plan, std::span<const std::int64_t> positions, TensorView<const F16Bits> in,
                TensorView<F16Bits> out, const KernelOptions& options) {
  detail::apply_rope_with_ops<F16Bits>(detail::ops_for(options.path), plan, positions, in, out, options);
}
void apply_rope(const SinCosTable& table, TensorView<const float> in, TensorView<float> out, const KernelOptions& options) {
  apply_table<float>(table, in, out, options);
}
void apply_rope(const SinCosTable& table, TensorView<const Bf16Bits> in, TensorView<Bf16Bits> out,
                const KernelOptions& options) {
  apply_table<Bf16Bits>(table, in, out, options);
}
void apply_rope(const SinCosTable& table, TensorView<const F16Bits> in, TensorView<F16Bits> out,
                const KernelOptions& options) {
  apply_table<F16Bits>(table, in, out, options);
}

}  // namespace ropecheck::kernel
