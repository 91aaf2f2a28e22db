#include "accuracy/audit.h"

#include "accuracy/detail/ieee_rotation.h"
#include "accuracy/detail/mpfr_workers.h"
#include "accuracy/report_format.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "io/input_error.h"
#include "io/npy.h"
#include "kernel/bf16.h"

namespace ropecheck::accuracy {
namespace {

float value_of(float x) { return x; }
float value_of(std::uint16_t x) { return kernel::bf16_to_f32(x); }
std::uint32_t bits_of(float x) { return std::bit_cast<std::uint32_t>(x); }
std::uint32_t bits_of(std::uint16_t x) { return x; }

using detail::ieee_rotation;
using detail::special_matches;

// Measures tokens [t0, t1) of every output into `acc` (one accumulator per output).
template <typename T>
void measure_chunk(const kernel::RopePlan& plan, Dtype f, std::span<const std::int64_t> positions, std::int64_t heads,
                   const T* in, const std::vector<const T*>& outs, std::int64_t t0, std::int64_t t1, RopeReference& ref,
                   std::vector<ErrorAccumulator>& acc, size_t groups) {
  const int dim = plan.dim();
  const int pairs = plan.block_pairs();
  for (std::int64_t t = t0; t < t1; ++t) {
    const std::int64_t p = positions[static_cast<size_t>(t)];
    ref.set_position(p);
    for (std::int64_t h = 0; h < heads; ++h) {
      const std::int64_t row = (t * heads + h) * dim;
      const auto group = static_cast<size_t>(groups == 1 ? 0 : h);
      ElementRecord rec;
      rec.position = p;
      rec.token = t;
      rec.head = h;
      for (int k = 0; k < pairs; ++k) {
        const int ia = plan.first_element(k), ib = plan.second_element(k);
        const T ra = in[row + ia], rb = in[row + ib];
        const float xa = value_of(ra), xb = value_of(rb);
        rec.pair = k;
        rec.in_bits[0] = bits_of(ra);
        rec.in_bits[1] = bits_of(rb);
        rec.in[0] = xa;
        rec.in[1] = xb;
        const bool finite = std::isfinite(xa) && std::isfinite(xb);
        if (!finite) {
          double ea = xa, eb = xb;  // identity pairs: a copy
          if (!plan.identity(k)) {
            double c = 1, s = 0;
            ref.cos_sin_double(k, c, s);
            ieee_rotation(xa, xb, c, s, f, ea, eb);
          }
          for (size_t o = 0; o < outs.size(); ++o) {
            acc[o * groups + group].add_special(special_matches(ea, value_of(outs[o][row + ia])));
            acc[o * groups + group].add_special(special_matches(eb, value_of(outs[o][row + ib])));
          }
          continue;
        }
        ExactPair exact;
        if (plan.identity(k)) {
          exact.a = RopeReference::exact_identity(xa);
          exact.b = RopeReference::exact_identity(xb);
          exact.norm = std::sqrt(static_cast<double>(xa) * xa + static_cast<double>(xb) * xb);
        } else {
          exact = ref.rotate(k, xa, xb);
        }
        rec.norm = exact.norm;
        for (size_t o = 0; o < outs.size(); ++o) {
          const T ga = outs[o][row + ia], gb = outs[o][row + ib];
          for (int c = 0; c < 2; ++c) {
            const ExactComponent& e = c == 0 ? exact.a : exact.b;
            const T g = c == 0 ? ga : gb;
            rec.component = c;
            rec.got_bits = bits_of(g);
            rec.got = value_of(g);
            rec.exact = e.value;
            rec.correctly_rounded = f == Dtype::f32 ? static_cast<double>(e.f32) : static_cast<double>(kernel::bf16_to_f32(e.bf16));
            acc[o * groups + group].add(rec, f == Dtype::f32 ? e.f32_decided : e.bf16_decided);
          }
          acc[o * groups + group].add_phase(p, phase_error(value_of(ga), value_of(gb), exact.a.value, exact.b.value));
        }
      }
      // Pass-through elements: the identity.
      rec.pair = -1;
      rec.component = 0;
      const int rotary_begin = plan.rotary_offset(), rotary_end = plan.rotary_offset() + 2 * pairs;
      for (int e = 0; e < dim; ++e) {
        if (e == rotary_begin) e = rotary_end;  // the rotary part [o, o + 2R) is measured above
        if (e >= dim) break;
        const T r = in[row + e];
        const float x = value_of(r);
        for (size_t o = 0; o < outs.size(); ++o) {
          const T g = outs[o][row + e];
          if (!std::isfinite(x)) {
            acc[o * groups + group].add_special(special_matches(x, value_of(g)));
            continue;
          }
          rec.in_bits[0] = bits_of(r);
          rec.in[0] = x;
          rec.in_bits[1] = 0;
          rec.in[1] = 0;
          rec.norm = std::fabs(x);
          rec.got_bits = bits_of(g);
          rec.got = value_of(g);
          rec.exact = x;
          rec.correctly_rounded = x;
          acc[o * groups + group].add(rec, true);
        }
      }
    }
  }
}

template <typename T>
std::vector<ErrorAccumulator> measure_typed(const kernel::RopePlan& plan, Dtype f, std::span<const std::int64_t> positions,
                                            std::int64_t heads, const void* input, const std::vector<const void*>& outputs,
                                            const MeasureOptions& options) {
  const auto tokens = static_cast<std::int64_t>(positions.size());
  const T* in = static_cast<const T*>(input);
  std::vector<const T*> outs;
  for (const void* o : outputs) outs.push_back(static_cast<const T*>(o));
  const int chunks = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(options.threads, tokens)));
  // One reference built here (it reads Boost's global precision once); each chunk a copy.
  const RopeReference reference(plan, options.precision_bits);
  const size_t groups = options.per_head ? static_cast<size_t>(heads) : 1;
  std::vector<std::vector<ErrorAccumulator>> partial(static_cast<size_t>(chunks),
                                                     std::vector<ErrorAccumulator>(outs.size() * groups, ErrorAccumulator(f)));
  std::vector<RopeReference> refs;
  refs.reserve(static_cast<size_t>(chunks));
  for (int c = 0; c < chunks; ++c) refs.emplace_back(reference);
  detail::split_tokens_mpfr(tokens, chunks, [&](int c, std::int64_t t0, std::int64_t t1) {
    measure_chunk<T>(plan, f, positions, heads, in, outs, t0, t1, refs[static_cast<size_t>(c)], partial[static_cast<size_t>(c)], groups);
  });
  std::vector<ErrorAccumulator> result = std::move(partial[0]);
  for (int c = 1; c < chunks; ++c)
    for (size_t o = 0; o < result.size(); ++o) result[o].merge(partial[static_cast<size_t>(c)][o]);
  return result;
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}


}  // namespace

std::vector<ErrorAccumulator> measure_outputs(const kernel::RopePlan& plan, Dtype format, std::span<const std::int64_t> positions,
                                              std::int64_t heads, const void* input, const std::vector<const void*>& outputs,
                                              const MeasureOptions& options) {
  if (options.threads < 1) throw InputError("--threads", "an integer >= 1", std::to_string(options.threads));
  if (heads < 1) throw InputError("heads", "an integer >= 1", std::to_string(heads));
  require_kernel_dtype(format, "measure_outputs");
  if (format == Dtype::f32) return measure_typed<float>(plan, format, positions, heads, input, outputs, options);
  return measure_typed<std::uint16_t>(plan, format, positions, heads, input, outputs, options);
}

AuditResult audit_files(const AuditRequest& request) {
  require_kernel_dtype(request.format, "audit_files");
  const std::string dtype = request.format == Dtype::f32 ? "<f4" : "<u2";
  const NpyArray input = read_npy(request.input_path, "--input", {dtype});
  const std::vector<std::int64_t>& shape = input.shape;
  if (shape.size() < 2)
    throw InputError("--input", "an array of shape [..., tokens, heads, head_dim] or [tokens, head_dim]", "shape " + shape_text(shape));
  const std::int64_t dim = shape.back();
  if (dim < 2 || dim % 2 != 0) throw InputError("--input", "an array whose last dimension (head_dim) is even and >= 2", "shape " + shape_text(shape));
  AuditResult result;
  result.shape = shape;
  result.tokens = shape.size() == 2 ? shape[0] : shape[shape.size() - 3];
  result.heads = shape.size() == 2 ? 1 : shape[shape.size() - 2];
  result.batch = 1;
  for (size_t i = 0; i + 3 < shape.size(); ++i) result.batch *= shape[i];

  SpectrumRequest sr = request.spectrum;
  if (!sr.config && !sr.dim) sr.dim = static_cast<int>(dim);
  const ResolvedSpectrum rs = resolve(sr);
  if (rs.spectrum.dim() != dim)
    throw InputError("--dim", "the input's head_dim " + std::to_string(dim) + " (last dimension of --input)", std::to_string(rs.spectrum.dim()));
  const kernel::RopePlan plan(rs.spectrum, request.layout);

  const NpyArray output = read_npy(request.output_path, "--output", {dtype});
  if (output.shape != shape) throw InputError("--output", "an array of the input's shape " + shape_text(shape), "shape " + shape_text(output.shape));
  const NpyArray pos = read_npy(request.positions_path, "--positions", {"<i8", "<i4", "<f8", "<f4"});
  const std::vector<std::int64_t> token_positions = positions_from_npy(pos, result.tokens, "--positions");

  // Leading batch dimensions share the positions: the rows are [batch * tokens][heads][dim].
  std::vector<std::int64_t> positions;
  positions.reserve(static_cast<size_t>(result.batch * result.tokens));
  for (std::int64_t b = 0; b < result.batch; ++b) positions.insert(positions.end(), token_positions.begin(), token_positions.end());
  result.min_position = result.max_position = token_positions.empty() ? 0 : token_positions[0];
  for (std::int64_t p : token_positions) {
    result.min_position = std::min(result.min_position, p);
    result.max_position = std::max(result.max_position, p);
  }
  result.spectrum = plan.describe();
  result.layout = request.layout;
  result.format = request.format;
  result.precision_bits = request.measure.precision_bits;
  result.threads = request.measure.threads;
  // Typed copies (the .npy buffers are bytes): 4-byte floats or 2-byte bf16 patterns.
  std::vector<float> in32, out32;
  std::vector<std::uint16_t> in16, out16;
  const void* in_data = nullptr;
  const void* out_data = nullptr;
  if (request.format == Dtype::f32) {
    in32.resize(input.bytes.size() / 4);
    out32.resize(output.bytes.size() / 4);
    std::memcpy(in32.data(), input.bytes.data(), in32.size() * 4);
    std::memcpy(out32.data(), output.bytes.data(), out32.size() * 4);
    in_data = in32.data();
    out_data = out32.data();
  } else {
    in16.resize(input.bytes.size() / 2);
    out16.resize(output.bytes.size() / 2);
    std::memcpy(in16.data(), input.bytes.data(), in16.size() * 2);
    std::memcpy(out16.data(), output.bytes.data(), out16.size() * 2);
    in_data = in16.data();
    out_data = out16.data();
  }
  result.errors = measure_outputs(plan, request.format, positions, result.heads, in_data, {out_data}, request.measure).front();
  return result;
}

std::string format_decade_table(const ErrorAccumulator& e) {
  std::ostringstream out;
  out << pad("positions", 16) << pad("elements", 12) << pad("max ulp", 12) << pad("max abs error", 15)
      << pad("max abs/norm", 14) << pad("max phase err (rad)", 21) << "correctly rounded\n";
  for (int i = 0; i < kDecades; ++i) {
    const DecadeStats& d = e.decade(i);
    if (d.elements == 0) continue;
    out << pad(decade_label(i), 16) << pad(std::to_string(d.elements), 12) << pad(fixed(d.max_ulps, 4), 12)
        << pad(sci(d.max_abs), 15) << pad(sci(d.max_rel), 14) << pad(sci(d.max_phase), 21)
        << fixed(100.0 * static_cast<double>(d.correctly_rounded) / static_cast<double>(d.elements), 4) << "%\n";
  }
  return out.str();
}

std::string format_audit(const AuditResult& r) {
  const ErrorAccumulator& e = r.errors;
  std::ostringstream out;
  out << "audit of " << dtype_name(r.format) << " output, shape " << shape_text(r.shape) << " (batch " << r.batch << " x "
      << r.tokens << " tokens x " << r.heads << " heads), positions [" << r.min_position << ", " << r.max_position << "]\n";
  out << "spectrum: " << r.spectrum << "\n";
  out << "reference: exact rotation by p * g_k (MPFR, " << r.precision_bits << " bits, rounding decided by a rigorous error bound)\n";
  out << "metric: " << metric_definition(r.format) << "\n";
  out << "every output element measured: the figures are exact for this tensor (a lower bound for the implementation on other inputs)\n\n";
  out << pad("elements", 20) << e.elements() << "\n";
  out << pad("max ulp", 20) << fixed(e.max_ulps(), 6) << "\n";
  out << pad("median ulp", 20) << fixed(e.median_ulps(), 6) << " (histogram bin, +- " << sci(e.median_resolution()) << ")\n";
  out << pad("correctly rounded", 20) << fixed(100.0 * e.share_correctly_rounded(), 6) << "% (" << e.correctly_rounded() << " of "
      << e.elements() - e.undecided() << " decided; " << e.undecided() << " undecided)\n";
  out << pad("max abs error", 20) << sci(e.max_abs()) << " (" << sci(e.max_rel()) << " relative to the pair's norm ||(x_a, x_b)||)\n";
  out << pad("max phase error", 20) << sci(e.max_phase()) << " rad\n";
  out << pad("specials", 20) << e.specials() << " elements with a non-finite input, " << e.special_mismatches()
      << " differ from IEEE arithmetic of the formula\n\n";
  out << "per position decade (" << metric_definition(r.format) << "):\n" << format_decade_table(e) << "\n";
  if (e.elements() > 0) out << "worst element: " << describe(e.worst(), r.format) << "\n";
  return out.str();
}

nlohmann::json audit_json(const AuditResult& r) {
  return {{"tool", "ropecheck 0.1.0"},
          {"command", "audit"},
          {"spectrum", r.spectrum},
          {"layout", kernel::layout_name(r.layout)},
          {"dtype", dtype_name(r.format)},
          {"shape", r.shape},
          {"batch", r.batch},
          {"tokens", r.tokens},
          {"heads", r.heads},
          {"positions", {r.min_position, r.max_position}},
          {"reference_precision_bits", r.precision_bits},
          {"threads", r.threads},
          {"bound", "exhaustive over this tensor (a lower bound for the implementation on other inputs)"},
          {"errors", r.errors.to_json()}};
}

}  // namespace ropecheck::accuracy
