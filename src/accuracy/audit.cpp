#include "accuracy/audit.h"

#include "accuracy/detail/ieee_rotation.h"
#include "accuracy/detail/mpfr_workers.h"
#include "accuracy/kernel_output_check.h"
#include "accuracy/report_format.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "io/input_error.h"
#include "io/npy.h"
#include "io/printf_string.h"
#include "io/rope_tensor_shape.h"
#include "io/version.h"
#include "spectrum/attention_factor.h"
#include "numeric/small_floats.h"

namespace ropecheck::accuracy {
namespace {

template <typename E>
float value_of(E x) { return static_cast<float>(widen(x)); }  // exact: a value of the format

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
            // The attention factor scales cos and sin (the kernel's table holds a cos, a sin; a > 0
            // keeps their signs, which alone fix a non-finite result: ieee_rotation.h).
            double c = 1, s = 0;
            if (!plan.spectrum().rotated(k)) c = 1, s = 0;  // frequency 0, factor != 1: a * (1, 0)
            else ref.cos_sin_double(k, c, s);
            ieee_rotation(xa, xb, plan.attention_factor() * c, plan.attention_factor() * s, f, ea, eb);
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
            rec.correctly_rounded = e.in(f);
            acc[o * groups + group].add(rec, e.decided_in(f));
          }
          acc[o * groups + group].add_phase(p, phase_error(value_of(ga), value_of(gb), exact.a.value, exact.b.value));
        }
      }
      // Pass-through elements (outside [offset, offset + 2R)): copies, bit for bit.
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
            acc[o * groups + group].add_pass_through_special(bits_of(g) == bits_of(r));
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
          acc[o * groups + group].add_pass_through(rec);
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
  return with_storage(format, [&](auto e) { return measure_typed<decltype(e)>(plan, format, positions, heads, input, outputs, options); });
}

kernel::RopePlan plan_for_request(const ResolvedSpectrum& rs, const std::optional<kernel::Layout>& layout) {
  try {
    return kernel::plan_for(rs, layout, "--layout");
  } catch (const InputError& e) {
    // The layer type's geometry or factor, refused by the plan: named by the flag that chose it.
    if (!rs.layer || e.input() == "--layout" || e.input() == "layer_type") throw;
    throw InputError("--model (" + rs.name + ": " + e.input() + ")", e.accepted(), e.got());
  }
}

namespace {

// n elements of type T from bytes that are not T objects (a file's, a Python buffer's): copied,
// since reading them through a T* would break strict aliasing.
template <typename T>
std::vector<T> typed_copy(const void* bytes, std::size_t n) {
  std::vector<T> v(n);
  if (n > 0) std::memcpy(v.data(), bytes, n * sizeof(T));
  return v;
}

}  // namespace

AuditResult audit_tensors(const AuditRequest& request, const AuditTensors& t, const AuditNames& names) {
  require_kernel_dtype(request.format, "audit_tensors");
  const std::vector<std::int64_t>& file_shape = t.shape;
  // The shape as far as the tensor alone says (sd: one head of the whole last dimension); a model or
  // --dim then fixes head_dim, which --axes sd needs to split the heads.
  const RopeTensorShape file_read = rope_tensor_shape(file_shape, request.axes, 0, names.input);
  SpectrumRequest sr = request.spectrum;
  if (!sr.model && !sr.config && !sr.dim) sr.dim = static_cast<int>(file_read.head_dim);
  const ResolvedSpectrum rs = resolve(sr);
  const kernel::RopePlan plan = plan_for_request(rs, request.layout);
  const RopeTensorShape shape =
      request.axes == TensorAxes::sd ? rope_tensor_shape(file_shape, request.axes, plan.dim(), names.input) : file_read;
  if (shape.head_dim != plan.dim()) {
    if (rs.layer)
      throw InputError(names.input, "a tensor whose head_dim is " + std::to_string(plan.dim()) + " (the head width of " + rs.name + ")",
                       "shape " + shape_text(file_shape) + ", head_dim " + std::to_string(shape.head_dim));
    throw InputError(request.spectrum.dim ? "--dim" : "--config",
                     "the input's head_dim " + std::to_string(shape.head_dim) + " (last dimension of " + names.input + ")",
                     std::to_string(plan.dim()));
  }

  AuditResult result;
  result.shape = file_shape;
  result.axes = request.axes;
  result.tokens = shape.tokens;
  result.heads = shape.heads;
  result.batch = shape.batch;
  result.head_dim = plan.dim();
  result.rotary_offset = plan.rotary_offset();
  result.rotary_dims = 2 * plan.block_pairs();
  result.model = rs.layer ? rs.name : "";
  result.attention_factor = attention_factor_text(plan.spectrum().scaling());

  if (t.output_shape != file_shape)
    throw InputError(names.output, "an array of the input's shape " + shape_text(file_shape), "shape " + shape_text(t.output_shape));

  // Positions: one per token, shared by every batch row ([seq]: vLLM's positions, a shared
  // position_ids), or one per (batch, token) ([batch, seq]: Hugging Face's position_ids).
  const auto given = static_cast<std::int64_t>(t.positions.size());
  const bool per_row = positions_per_row(shape, given, names.input, names.positions,
                                         std::to_string(given) + " positions, shape " + shape_text(t.positions_shape));
  const std::int64_t rows = shape.batch * shape.tokens;
  const std::vector<std::int64_t>& read = t.positions;
  std::vector<std::int64_t> positions;
  if (per_row) {
    positions = read;
  } else {
    positions.reserve(static_cast<size_t>(rows));
    for (std::int64_t b = 0; b < shape.batch; ++b) positions.insert(positions.end(), read.begin(), read.end());
  }
  result.positions_per_row = per_row;
  result.min_position = result.max_position = read.empty() ? 0 : read[0];
  for (std::int64_t p : read) {
    result.min_position = std::min(result.min_position, p);
    result.max_position = std::max(result.max_position, p);
  }
  result.spectrum = plan.describe();
  result.layout = plan.layout();
  result.format = request.format;
  result.precision_bits = request.measure.precision_bits;
  result.threads = request.measure.threads;
  // Typed copies in the kernel's [batch * tokens][heads][head_dim] order (the callers' buffers are
  // bytes; bhsd and hsd tensors are permuted into token-major order, rope_tensor_shape.h).
  const auto n = static_cast<std::size_t>(shape.batch * shape.slice_elements());
  with_storage(request.format, [&](auto e) {
    using E = decltype(e);
    const std::vector<E> in = to_token_major(shape, typed_copy<E>(t.input, n));
    const std::vector<E> out = to_token_major(shape, typed_copy<E>(t.output, n));
    result.errors = measure_outputs(plan, request.format, positions, result.heads, in.data(), {out.data()}, request.measure).front();
    ElementCheckOptions o;
    o.formulation = true;
    o.keep = 0;
    result.formulation = check_elements(plan, request.format, positions, result.heads, in.data(), out.data(), o);
  });
  return result;
}

AuditResult audit_files(const AuditRequest& request) {
  require_kernel_dtype(request.format, "audit_files");
  const std::string dtype(dtype_info(request.format).npy);
  // Any kernel dtype's storage is read, so that a file of another one is refused naming --dtype
  // (a bfloat16 tensor saved as its uint16 bits is '<u2': --dtype bf16).
  std::vector<std::string> storages;
  for (Dtype f : kKernelDtypes) storages.emplace_back(dtype_info(f).npy);
  const auto read_as_format = [&](const std::string& path, const std::string& flag) {
    NpyArray a = read_npy(path, flag, storages);
    if (a.dtype != dtype) {
      std::string other;
      for (Dtype f : kKernelDtypes)
        if (dtype_info(f).npy == a.dtype) other = std::string(dtype_info(f).name);
      throw InputError("--dtype", "the dtype of " + flag + "'s data: " + std::string(dtype_info(request.format).name) + " reads '" + dtype +
                                      "' (f32 '<f4', bf16 '<u2' bit patterns, f16 '<f2')",
                       std::string(dtype_info(request.format).name) + " for a '" + a.dtype + "' file: pass --dtype " + other);
    }
    return a;
  };
  const NpyArray input = read_as_format(request.input_path, "--input");
  const NpyArray output = read_as_format(request.output_path, "--output");
  const NpyArray pos = read_npy(request.positions_path, "--positions", {"<i8", "<i4", "<f8", "<f4"});
  AuditTensors t;
  t.shape = input.shape;
  t.output_shape = output.shape;
  t.input = input.bytes.data();
  // A mismatched output is refused by its shape before it is read.
  t.output = output.bytes.data();
  t.positions_shape = pos.shape;
  t.positions = positions_from_npy(pos, pos.elements(), "--positions");
  return audit_tensors(request, t, AuditNames{});
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
  out << "audit of " << dtype_name(r.format) << " output, shape " << shape_text(r.shape);
  if (r.axes != TensorAxes::automatic) out << " (axes " << axes_name(r.axes) << ")";
  out << ": batch " << r.batch << " x " << r.tokens << " tokens x " << r.heads << " heads x head_dim " << r.head_dim
      << ", positions [" << r.min_position << ", " << r.max_position << "]" << (r.positions_per_row ? " (one per batch row and token)" : "") << "\n";
  if (!r.model.empty()) out << "model: " << r.model << "\n";
  out << "spectrum: " << r.spectrum << "\n";
  out << "geometry: rotary channels [" << r.rotary_offset << ", " << r.rotary_offset + r.rotary_dims << ") of " << r.head_dim
      << ", the other " << r.head_dim - r.rotary_dims << " pass through (must be the input, bit for bit)\n";
  out << "reference: the exact map a (x_a cos(p g_k) - x_b sin(p g_k)), a (x_a sin + x_b cos), attention factor a = " << r.attention_factor
      << " (MPFR, " << r.precision_bits << " bits, rounding decided by a rigorous error bound)\n";
  out << "metric: " << metric_definition(r.format) << "\n";
  out << "every output element measured: the figures are exact for this tensor (a lower bound for the implementation on other inputs)\n\n";
  out << pad("elements", 20) << e.elements() << "\n";
  out << pad("bit-identical", 20) << fixed(100.0 * e.share_correctly_rounded(), 6) << "% equal the correctly rounded (RNE) value ("
      << e.correctly_rounded() << " of " << e.elements() - e.undecided() << " decided; " << e.undecided()
      << " undecided, counted apart; rotated zeros compare as values, pass-through elements as bits)\n";
  out << pad("max ulp", 20) << fixed(e.max_ulps(), 6) << "\n";
  out << pad("median ulp", 20) << fixed(e.median_ulps(), 6) << " (histogram bin, +- " << sci(e.median_resolution()) << ")\n";
  out << pad("max abs error", 20) << sci(e.max_abs()) << " (" << sci(e.max_rel()) << " relative to the pair's norm ||(x_a, x_b)||)\n";
  out << pad("max phase error", 20) << sci(e.max_phase()) << " rad\n";
  out << pad("pass-through", 20) << e.pass_through() << " elements, " << e.pass_through_mismatches() << " not bit-identical to the input\n";
  out << pad("specials", 20) << e.specials() << " elements with a non-finite input, " << e.special_mismatches()
      << " differ from IEEE arithmetic of the formula\n\n";
  const ElementCheck& fc = r.formulation;
  out << "check_rope's default bound (the float32 formulation's reach: what float32 frequencies, angles, cos, sin and arithmetic\n"
      << "with one rounding to " << dtype_name(r.format) << " can produce; certified per element): " << fc.failed << " of " << fc.checked
      << " elements outside it\n";
  for (int i = 0; i < kInputClasses; ++i) {
    const ClassCheck& k = fc.classes[i];
    if (k.checked == 0) continue;
    out << "  " << pad(input_class_name(static_cast<InputClass>(i)), 12) << k.failed << " of " << k.checked << " outside";
    if (i <= static_cast<int>(InputClass::overflow)) out << ", max " << fixed(k.max_ulps, 6) << " ulp";
    out << "\n";
  }
  if (fc.worst) {
    const ElementFailure& w = *fc.worst;
    char buf[256];
    std::snprintf(buf, sizeof buf, "  first worst: position %lld, head %lld, element %d (%s): got %s, expected %s", static_cast<long long>(w.position),
                  static_cast<long long>(w.head), w.element, w.rule.c_str(), bits_hex(w.got_bits, r.format).c_str(),
                  bits_hex(w.expected_bits, r.format).c_str());
    out << buf;
    if (!std::isnan(w.reach_lo)) out << ", reach [" << hex_double(w.reach_lo) << ", " << hex_double(w.reach_hi) << "]";
    out << "\n";
  }
  out << "\nper position decade (" << metric_definition(r.format) << "):\n" << format_decade_table(e) << "\n";
  if (e.elements() > 0) {
    const ElementRecord& w = e.worst();
    out << "worst element: " << describe(w, r.format) << "\n";
    if (r.tokens > 0) {
      const std::int64_t b = w.token / r.tokens, t = w.token % r.tokens;
      const int channel = w.pair < 0 ? -1 : (w.component == 0 ? 0 : 1);
      out << "  at batch " << b << ", token " << t << ", head " << w.head;
      if (channel >= 0) out << " (pair " << w.pair << ", component " << (channel == 0 ? "y_a" : "y_b") << ")";
      char buf[200];
      if (w.pair < 0) std::snprintf(buf, sizeof buf, ": x=%a ref=%a got=%a", w.in[0], w.exact, w.got);
      else std::snprintf(buf, sizeof buf, ": x=(%a, %a) ref=%a got=%a", w.in[0], w.in[1], w.exact, w.got);
      out << buf << "\n";
    }
  }
  return out.str();
}

nlohmann::json audit_json(const AuditResult& r) {
  nlohmann::json j = {{"tool", kToolName},
                      {"command", "audit"},
                      {"spectrum", r.spectrum},
                      {"model", r.model},
                      {"attention_factor", r.attention_factor},
                      {"layout", kernel::layout_name(r.layout)},
                      {"axes", axes_name(r.axes)},
                      {"dtype", dtype_name(r.format)},
                      {"shape", r.shape},
                      {"batch", r.batch},
                      {"tokens", r.tokens},
                      {"heads", r.heads},
                      {"head_dim", r.head_dim},
                      {"rotary_offset", r.rotary_offset},
                      {"rotary_dims", r.rotary_dims},
                      {"positions", {r.min_position, r.max_position}},
                      {"positions_per_row", r.positions_per_row},
                      {"reference_precision_bits", r.precision_bits},
                      {"threads", r.threads},
                      {"bound", "exhaustive over this tensor (a lower bound for the implementation on other inputs)"},
                      {"errors", r.errors.to_json()}};
  j["bit_identical_share"] = r.errors.share_correctly_rounded();
  j["formulation"] = element_check_json(r.formulation, r.format);
  return j;
}

}  // namespace ropecheck::accuracy
