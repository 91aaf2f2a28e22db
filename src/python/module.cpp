// File: module.cpp
// The extension module ropecheck._core: a thin layer over the library for the Python package
// (ropecheck/*.py), which checks argument types and ranges against the names and limits exported
// here, and shapes the results. Every function takes NumPy arrays the package has already
// validated (dtype float32 or uint16, kernel_readable where the kernel reads them in place), read
// through the buffer protocol (python/array_view.h: the same on NumPy 1.x and 2.x), and
// releases the GIL while the library computes. Errors: InputError as ropecheck.InputError naming
// the Python parameter (requests.h).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <boost/math/distributions/students_t.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <optional>

#include "accuracy/audit.h"
#include "accuracy/baselines.h"
#include "accuracy/element_check.h"
#include "accuracy/fuzz_tensor.h"
#include "accuracy/kernel_output_check.h"
#include "accuracy/profile_tensor.h"
#include "certificate/certificate.h"
#include "certificate/environment.h"
#include "cpu/thread_count.h"
#include "io/input_error.h"
#include "io/named_values.h"
#include "io/npy.h"
#include "io/rope_tensor_shape.h"
#include "io/version.h"
#include "kernel/apply_rope.h"
#include "numeric/precision.h"
#include "numeric/small_floats.h"
#include "proofs/registry.h"
#include "python/array_view.h"
#include "python/dlpack.h"
#include "python/requests.h"
#include "python/tensor_views.h"
#include "python/usage_analysis.h"
#include "spectrum/attention_factor.h"
#include "spectrum/config.h"
#include "spectrum/variant.h"
#include "spectrum/layout.h"
#include "spectrum/limits.h"
#include "spectrum/listing.h"
#include "spectrum/request.h"
#include "spectrum/scaling_registry.h"
#include "statistics/rank_sum.h"
#include "usage/capture.h"
#include "usage/head_kind.h"
#include "usage/layer_pairs.h"

namespace py = pybind11;

namespace ropecheck::python {

namespace {

// NumPy's element kind of a kernel dtype's storage, from its .npy descr: 'f', or 'u' for bfloat16's bits.
char numpy_kind(Dtype f) { return dtype_info(f).npy[1]; }

// The kernel dtype of an array whose element kind and size are its storage's (the package passes
// float32, float16 or uint16 (bfloat16 bits) arrays only). Throws std::invalid_argument otherwise.
Dtype format_of(const ArrayView& a) {
  for (Dtype t : kKernelDtypes)
    if (has_element_type(a, numpy_kind(t), dtype_info(t).bytes)) return t;
  throw std::invalid_argument("format_of: an array of no kernel dtype's storage");
}

Dtype parse_format(const std::string& dtype) { return parse_long_dtype(dtype, "dtype", kKernelDtypes); }

TensorAxes axes_of(const std::string& axes) { return axes == "auto" ? TensorAxes::automatic : parse_axes(axes, "axes"); }

// Returns: the positions array (contiguous, dtype <i8, <i4, <f8 or <f4) as int64s, with the CLI's
// rules (io/npy.h: positions_from_npy), naming "positions".
std::vector<std::int64_t> positions_of(const py::object& positions) {
  const ArrayView p = ArrayView::read(positions, "positions");
  NpyArray a;
  a.dtype = p.descr();
  a.shape = p.shape();
  a.bytes = c_order_bytes(p);
  return positions_from_npy(a, a.elements(), "positions");
}

// The plan of a request (accuracy::plan_for_request: a model's layer type, or a bare spectrum in
// `layout`); a bare request without config, dim or model takes the tensor's head_dim.
kernel::RopePlan plan_of(const py::dict& request, const std::optional<std::string>& layout, std::int64_t head_dim, std::string* name = nullptr,
                         long long* context = nullptr) {
  SpectrumRequest r = spectrum_request(request);
  if (!r.dim && !r.config && !r.model && head_dim > 0) r.dim = static_cast<int>(head_dim);
  const ResolvedSpectrum rs = resolve(r);
  if (name) *name = rs.name;
  if (context) *context = rs.context;
  std::optional<kernel::Layout> l;
  if (layout) l = kernel::parse_layout(*layout, "layout");
  return accuracy::plan_for_request(rs, l);
}

py::dict plan_info(const kernel::RopePlan& plan) {
  py::dict d;
  d["head_dim"] = plan.dim();
  d["rotary_offset"] = plan.rotary_offset();
  d["rotary_dims"] = 2 * plan.block_pairs();
  d["layout"] = kernel::layout_name(plan.layout());
  d["attention_factor"] = attention_factor_text(plan.spectrum().scaling());
  d["description"] = plan.describe();
  d["scaling"] = std::string(scaling_rule(plan.spectrum().scaling().kind).name);
  d["scaling_factor"] = plan.spectrum().scaling().factor;
  std::vector<int> identity;
  for (int k = 0; k < plan.block_pairs(); ++k)
    if (plan.identity(k)) identity.push_back(k);
  d["identity_pairs"] = identity;
  return d;
}

template <typename T>
void rotate(const kernel::RopePlan& plan, const std::vector<std::int64_t>& positions, bool per_row, const BatchedTensor& in_t, const T* in,
            const BatchedTensor& out_t, T* out, int threads, accuracy::Implementation impl) {
  const kernel::KernelOptions options{cpu::default_path(), threads};
  const std::int64_t tokens = in_t.shape.tokens;
  const bool kernel_impl = impl == accuracy::Implementation::kernel;
  // A table shared by the batch's slices only when there are several: one slice (or rows with
  // positions of their own) takes apply_rope's rows built inside the call, as the C ABI does, where
  // a table would be a fresh [tokens][pairs] allocation per call (4 MiB at 4096 tokens and 64 pairs,
  // page-faulted and zero-filled, then written and read back: ~1000 page faults per call, measured
  // 2026-12-04). The outputs are the same bits either way (kernel/apply_rope.h).
  std::optional<kernel::SinCosTable> table;
  if (kernel_impl && !per_row && in_t.slice_offsets.size() > 1) table.emplace(plan, positions, options.path, threads);
  for (std::size_t b = 0; b < in_t.slice_offsets.size(); ++b) {
    const auto x = slice_view<const T>(in, in_t, b);
    const auto y = slice_view<T>(out, out_t, b);
    const std::span<const std::int64_t> p = per_row ? std::span<const std::int64_t>(positions).subspan(b * static_cast<std::size_t>(tokens), static_cast<std::size_t>(tokens))
                                                    : std::span<const std::int64_t>(positions);
    if (!kernel_impl)
      accuracy::apply_rope_baseline(impl, plan, p, x, y);
    else if (table)
      kernel::apply_rope(*table, x, y, options);
    else
      kernel::apply_rope(plan, p, x, y, options);
  }
}

// ropecheck.apply / apply_: rotates x into out (the same array for apply_), both kernel_readable
// and of one dtype and shape.
void apply(const py::object& x_object, const py::object& out_object, const py::object& positions_array, const py::dict& request,
           const std::optional<std::string>& layout, const std::string& axes_text, int threads, const std::string& impl) {
  const ArrayView x = ArrayView::read(x_object, "x");
  const ArrayView out = ArrayView::write(out_object, "out");
  const accuracy::Implementation implementation = accuracy::parse_implementation(impl, "impl");
  const TensorAxes axes = axes_of(axes_text);
  const RopeTensorShape read = rope_tensor_shape(x.shape(), axes, 0, "x");
  std::string name;
  const kernel::RopePlan plan = plan_of(request, layout, read.head_dim, &name);
  const BatchedTensor in_t = batched(x, axes, plan.dim(), "x");
  if (in_t.shape.head_dim != plan.dim())
    throw InputError("x", "a tensor whose head_dim is " + std::to_string(plan.dim()) + " (the head width of " + name + ")",
                     "head_dim " + std::to_string(in_t.shape.head_dim));
  const BatchedTensor out_t = batched(out, axes, plan.dim(), "out");
  const std::vector<std::int64_t> positions = positions_of(positions_array);
  const auto count = static_cast<std::int64_t>(positions.size());
  const bool per_row = positions_per_row(in_t.shape, count, "x", "positions", std::to_string(count));
  const Dtype format = format_of(x);
  const void* in = x.data();
  void* dst = out.mutable_data();  // pointers taken while the GIL is held
  py::gil_scoped_release release;
  with_storage(format, [&](auto e) {
    using E = decltype(e);
    rotate(plan, positions, per_row, in_t, static_cast<const E*>(in), out_t, static_cast<E*>(dst), threads, implementation);
  });
}

// ropecheck.audit: x and y dense C-order arrays of one dtype. Returns (text, JSON).
py::tuple audit(const py::object& x_object, const py::object& positions, const py::object& y_object, const py::dict& request,
                const std::optional<std::string>& layout, const std::string& axes, int threads, unsigned precision) {
  const ArrayView x = ArrayView::read(x_object, "x"), y = ArrayView::read(y_object, "y");
  accuracy::AuditRequest r;
  if (layout) r.layout = kernel::parse_layout(*layout, "layout");
  r.axes = axes_of(axes);
  r.format = format_of(x);
  r.spectrum = spectrum_request(request);
  r.measure.threads = threads;
  r.measure.precision_bits = precision;
  accuracy::AuditTensors t;
  t.shape = x.shape();
  t.output_shape = y.shape();
  t.input = x.data();
  t.output = y.data();
  t.positions_shape = ArrayView::read(positions, "positions").shape();
  t.positions = positions_of(positions);
  accuracy::AuditResult result;
  {
    py::gil_scoped_release release;
    result = accuracy::audit_tensors(r, t, accuracy::AuditNames{"x", "y", "positions"});
  }
  return py::make_tuple(accuracy::format_audit(result), accuracy::audit_json(result).dump());
}

// ropecheck.verify: one claim's certificates. Returns (table text, JSON text of the certificates).
py::tuple verify(const std::string& claim, const py::dict& options) {
  const Claim& c = proofs::find_claim(claim);
  const ClaimOptions o = claim_options(options);
  std::vector<Certificate> got;
  {
    py::gil_scoped_release release;
    got = c.check(o);
  }
  nlohmann::json certificates = nlohmann::json::array();
  for (const Certificate& x : got) certificates.push_back(to_json(x));
  nlohmann::json out = {{"claim", c.id}, {"title", c.title}, {"arithmetic", arithmetic_environment()}, {"certificates", certificates}};
  return py::make_tuple(format_table(got), out.dump());
}

// A [tokens, heads, dim] array of format f from bits (the format's in the low bits), and positions.
py::tuple positions_and_tensor(const std::vector<std::int64_t>& p, const std::vector<std::uint32_t>& bits, Dtype f, std::int64_t heads, int dim) {
  const NewArray positions = new_array("q", 8, {static_cast<std::int64_t>(p.size())});
  if (!p.empty()) std::memcpy(positions.data, p.data(), p.size() * sizeof(std::int64_t));
  const auto width = static_cast<std::size_t>(dtype_info(f).bytes);
  // The struct format of the storage: "f" (float32), "e" (float16), "H" (bfloat16's bits).
  const std::string format = numpy_kind(f) == 'u' ? "H" : width == 2 ? "e" : "f";
  const NewArray x = new_array(format, static_cast<std::int64_t>(width), {static_cast<std::int64_t>(p.size()), heads, dim});
  auto* out = static_cast<unsigned char*>(x.data);
  for (std::size_t i = 0; i < bits.size(); ++i) std::memcpy(out + i * width, &bits[i], width);  // little-endian low bytes
  return py::make_tuple(positions.array, x.array);
}

py::tuple fuzz_tensor(const py::dict& request, const std::optional<std::string>& layout, const std::string& dtype, std::uint64_t seed,
                      std::int64_t tokens, std::int64_t heads, std::int64_t min_position, std::int64_t max_position) {
  const Dtype f = parse_format(dtype);
  const kernel::RopePlan plan = plan_of(request, layout, 0);
  accuracy::FuzzTensor t;
  {
    py::gil_scoped_release release;
    t = accuracy::fuzz_tensor(plan, f, seed, tokens, heads, min_position, max_position);
  }
  const py::tuple px = positions_and_tensor(t.positions, t.bits, f, heads, plan.dim());
  return py::make_tuple(px[0], px[1], plan_info(plan));
}

// ropecheck.torch.profile's inputs (accuracy/profile_tensor.h): (positions, x [tokens, heads, dim]).
py::tuple profile_tensor(const py::dict& request, const std::optional<std::string>& layout, const std::string& dtype, std::uint64_t seed,
                         std::int64_t tokens, std::int64_t heads, std::int64_t max_position) {
  const Dtype f = parse_format(dtype);
  const kernel::RopePlan plan = plan_of(request, layout, 0);
  accuracy::ProfileTensor t;
  {
    py::gil_scoped_release release;
    t = accuracy::profile_tensor(plan, f, seed, tokens, heads, max_position);
  }
  return positions_and_tensor(t.positions, t.bits, f, heads, plan.dim());
}

std::string hex_value(double v) {
  char s[64];
  std::snprintf(s, sizeof s, "%a", v);
  return s;
}

// ropecheck.testing: every element of y = fn(x) checked (accuracy/element_check.h). x, y: dense
// [tokens][heads][head_dim] arrays of `dtype`; positions: int64, one per token.
py::dict check_elements(const py::dict& request, const std::optional<std::string>& layout, const std::string& dtype,
                        const py::object& positions_object, const py::object& x_object, const py::object& y_object, double max_ulp,
                        bool canonical_nan, bool signed_zeros, double rtol, int keep, bool formulation,
                        const std::string& tables) {
  const ArrayView x = ArrayView::read(x_object, "x"), y = ArrayView::read(y_object, "y");
  const Dtype f = parse_format(dtype);
  const kernel::RopePlan plan = plan_of(request, layout, 0);
  accuracy::ElementCheckOptions o;
  o.max_ulp = max_ulp;
  o.canonical_nan = canonical_nan;
  o.signed_zeros = signed_zeros;
  o.rtol = rtol;
  o.keep = static_cast<std::size_t>(keep);
  o.formulation = formulation;
  const std::optional<accuracy::Tables> t = accuracy::parse_tables(tables);
  if (!t) throw InputError("tables", "'float32' or 'dtype'", tables);
  o.tables = *t;
  const std::string shape = "[tokens, heads, " + std::to_string(plan.dim()) + "] array of " + dtype;
  const char kind = numpy_kind(f);
  const std::int64_t size = dtype_info(f).bytes;
  if (x.ndim() != 3 || x.shape(2) != plan.dim() || !has_element_type(x, kind, size) || !x.c_contiguous())
    throw InputError("x", "a C-contiguous " + shape, "another array");
  if (y.ndim() != 3 || y.shape(0) != x.shape(0) || y.shape(1) != x.shape(1) || y.shape(2) != x.shape(2) || !has_element_type(y, kind, size) ||
      !y.c_contiguous())
    throw InputError("y", "a C-contiguous array of x's shape and dtype", "another array");
  const std::vector<std::int64_t> positions = positions_of(positions_object);
  if (ArrayView::read(positions_object, "positions").ndim() != 1 || static_cast<std::int64_t>(positions.size()) != x.shape(0))
    throw InputError("positions", "one int64 per token of x (" + std::to_string(x.shape(0)) + ")", std::to_string(positions.size()));
  const std::span<const std::int64_t> p(positions);
  accuracy::ElementCheck c;
  {
    py::gil_scoped_release release;
    c = accuracy::check_elements(plan, f, p, x.shape(1), x.data(), y.data(), o);
  }
  const auto as_dict = [f, &plan](const accuracy::ElementFailure& e) {
    py::dict d;
    d["token"] = e.token;
    d["head"] = e.head;
    d["position"] = e.position;
    d["element"] = e.element;
    d["pair"] = e.pair;
    // The elements of the failing pair (or the pass-through element alone): what shrinking keeps.
    d["elements"] = e.pair >= 0 ? py::make_tuple(plan.first_element(e.pair), plan.second_element(e.pair)) : py::make_tuple(e.element);
    d["component"] = e.component;
    d["inputs"] = e.pair >= 0 ? py::make_tuple(accuracy::bits_hex(e.in_bits[0], f), accuracy::bits_hex(e.in_bits[1], f))
                              : py::make_tuple(accuracy::bits_hex(e.in_bits[0], f));
    d["input_values"] = e.pair >= 0 ? py::make_tuple(hex_value(accuracy::value_of(e.in_bits[0], f)), hex_value(accuracy::value_of(e.in_bits[1], f)))
                                    : py::make_tuple(hex_value(accuracy::value_of(e.in_bits[0], f)));
    d["expected"] = accuracy::bits_hex(e.expected_bits, f);
    d["expected_value"] = hex_value(accuracy::value_of(e.expected_bits, f));
    d["got"] = accuracy::bits_hex(e.got_bits, f);
    d["got_value"] = hex_value(accuracy::value_of(e.got_bits, f));
    d["ulps"] = e.ulps;
    d["rel"] = e.rel;
    d["input_class"] = accuracy::input_class_name(e.input_class);
    d["rule"] = e.rule;
    // The float32 formulation's accepted range and angle error bound (NaN for other rules).
    d["reach"] = std::isnan(e.reach_lo) ? py::object(py::none()) : py::object(py::make_tuple(hex_value(e.reach_lo), hex_value(e.reach_hi)));
    d["delta"] = e.delta;
    return d;
  };
  py::list failures;
  for (const accuracy::ElementFailure& e : c.failures) failures.append(as_dict(e));
  py::dict d;
  d["worst"] = c.worst ? py::object(as_dict(*c.worst)) : py::object(py::none());
  d["checked"] = c.checked;
  d["failed"] = c.failed;
  d["undecided"] = c.undecided;
  d["max_ulps"] = c.max_ulps;
  d["max_rel"] = c.max_rel;
  d["failures"] = failures;
  py::dict classes;  // by accuracy::input_class_name, in InputClass order
  for (int i = 0; i < accuracy::kInputClasses; ++i) {
    const accuracy::ClassCheck& k = c.classes[i];
    py::dict e;
    e["checked"] = k.checked;
    e["failed"] = k.failed;
    e["max_ulps"] = k.max_ulps;
    e["max_rel"] = k.max_rel;
    e["worst"] = k.worst ? py::object(as_dict(*k.worst)) : py::object(py::none());
    classes[accuracy::input_class_name(static_cast<accuracy::InputClass>(i))] = e;
  }
  d["classes"] = classes;
  return d;
}

}  // namespace

}  // namespace ropecheck::python

PYBIND11_MODULE(_core, m) {
  using namespace ropecheck;
  using namespace ropecheck::python;
  m.doc() = "ropecheck's library, for the ropecheck package (import ropecheck, not this module)";
  register_errors(py::module_::import("ropecheck._errors").attr("InputError"));
  register_array_buffer(m);
  m.attr("VERSION") = kVersion;
  // The names and limits the package checks arguments against, from the library's one list of each.
  m.attr("MIN_PRECISION_BITS") = kMinPrecisionBits;
  m.attr("MAX_PRECISION_BITS") = kMaxPrecisionBits;
  m.attr("DEFAULT_PRECISION_BITS") = kDefaultPrecisionBits;
  m.attr("MAX_THREADS") = cpu::kMaxThreads;
  m.attr("MAX_LENGTH") = kMaxLengthArgument;
  std::vector<std::string> dtypes, configs;
  for (Dtype t : kKernelDtypes) dtypes.push_back(dtype_long_name(t));
  for (const ModelConfig& c : named_configs()) configs.push_back(c.name);
  m.attr("KERNEL_DTYPES") = py::tuple(py::cast(dtypes));
  m.attr("IMPLEMENTATIONS") = py::tuple(py::cast(names_in(accuracy::kImplementations)));
  m.attr("AXES") = py::tuple(py::cast(names_in(kTensorAxes)));
  m.attr("LAYOUTS") = py::tuple(py::cast(names_in(kLayouts)));
  m.attr("CONFIGS") = py::tuple(py::cast(configs));
  std::vector<std::string> fraction_variants;
  for (const VariantInfo& v : kVariants)
    if (v.takes_fraction) fraction_variants.emplace_back(v.name);
  m.attr("VARIANTS") = py::tuple(py::cast(names_in(kVariants)));
  m.attr("FRACTION_VARIANTS") = py::tuple(py::cast(fraction_variants));
  m.def("zoo", [](bool sources) { return py::make_tuple(zoo_text(sources), zoo_json().dump()); });
  m.def("spectrum", [](const py::dict& request, unsigned precision) {
    ScopedPrecision scoped(precision);
    const SpectrumRequest r = spectrum_request(request);
    return py::make_tuple(spectrum_listing_text(r), spectrum_listing_json(r).dump());
  });
  m.def("plan", [](const py::dict& request, const std::optional<std::string>& layout) {
    long long context = 0;
    py::dict d = plan_info(plan_of(request, layout, 0, nullptr, &context));
    d["context"] = context;  // the request's context: a model layer type's span (spectrum/request.h)
    return d;
  });
  m.def("apply", &python::apply);
  m.def("usage", &python::usage);
  m.def("compare_usage", &python::compare_usage);
  m.def("attention", &python::attention);
  m.def("attention_layer", &python::attention_layer);
  m.def("check_capture", &python::check_capture);
  m.def("kernel_readable", [](const py::object& a) { return kernel_readable(ArrayView::read(a, "a")); });
  m.def("audit", &python::audit);
  m.def("claims", [] {
    std::vector<std::pair<std::string, std::string>> out;
    for (const Claim& c : proofs::registered_claims()) out.emplace_back(c.id, c.title);
    return out;
  });
  m.def("verify", &python::verify);
  m.def("fuzz_tensor", &python::fuzz_tensor);
  m.def("check_elements", &python::check_elements);
  m.def("profile_tensor", &python::profile_tensor);
  m.attr("TABLES") = [] {
    py::list names;
    for (accuracy::Tables t : accuracy::kTables) names.append(accuracy::tables_name(t));
    return py::tuple(names);
  }();
  // usage/head_kind.h's one list of kinds and its two groups, usage/layer_pairs.h's band names.
  m.attr("HEAD_KINDS") = [] {
    py::list all, positional, content;
    for (usage::HeadKind k : usage::kHeadKinds) {
      all.append(usage::head_kind_name(k));
      if (usage::is_positional(k)) positional.append(usage::head_kind_name(k));
      if (usage::is_content(k)) content.append(usage::head_kind_name(k));
    }
    return py::make_tuple(py::tuple(all), py::tuple(positional), py::tuple(content));
  }();
  m.attr("CAPTURE_DTYPES") = [] {  // usage/capture.h's one list
    py::list names;
    for (Dtype t : usage::kCaptureDtypes) names.append(dtype_long_name(t));
    return py::tuple(names);
  }();
  m.attr("MAX_HEAD_DIM") = kMaxHeadDim;  // spectrum/limits.h: the head dimensions every part accepts
  m.attr("BANDS") = py::make_tuple(usage::band_name(usage::Band::fast), usage::band_name(usage::Band::middle), usage::band_name(usage::Band::slow),
                                   usage::band_name(usage::Band::still));
  m.attr("INPUT_CLASSES") = [] {
    py::list names;
    for (int i = 0; i < accuracy::kInputClasses; ++i) names.append(accuracy::input_class_name(static_cast<accuracy::InputClass>(i)));
    return py::tuple(names);
  }();
  // Student's t quantile, Boost.Math's as statistics/inference.h's intervals use it: P(T_df <= t) = p.
  // The upper half from its complement 1 - p (exact for p >= 1/2), which keeps its relative accuracy.
  m.def("t_quantile", [](double p, double df) {
    if (!(p > 0 && p < 1)) throw InputError("p", "a probability in (0, 1)", std::to_string(p));
    if (!(df >= 1) || !std::isfinite(df)) throw InputError("df", "a number of degrees of freedom >= 1", std::to_string(df));
    const boost::math::students_t_distribution<double> t(df);
    return p > 0.5 ? boost::math::quantile(boost::math::complement(t, 1 - p)) : boost::math::quantile(t, p);
  });
  // statistics/rank_sum.h's stratified test: strata of (group, others) scores -> (auc, u, p_value, method).
  m.def("rank_sum", [](const std::vector<std::pair<std::vector<double>, std::vector<double>>>& strata) {
    std::vector<Stratum> s;
    for (const auto& [group, others] : strata) {
      if (group.empty() || others.empty()) throw InputError("strata", "strata whose two groups are not empty", "an empty group");
      for (const std::vector<double>* v : {&group, &others})
        for (double x : *v)
          if (std::isnan(x)) throw InputError("strata", "scores that are not NaN", "NaN");
      s.push_back(Stratum{group, others});
    }
    if (s.empty()) throw InputError("strata", "at least one stratum", "none");
    const RankSumTest t = stratified_rank_sum_test(s);
    return py::make_tuple(t.auc, t.u, t.p_value, t.method);
  });
  m.def("dlpack_to_numpy", &dlpack_to_numpy);
  m.def("bfloat16_capsule", &bfloat16_capsule);
}
