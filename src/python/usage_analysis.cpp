#include "python/usage_analysis.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "io/input_error.h"
#include "io/npy.h"
#include "python/array_view.h"
#include "spectrum/model_zoo.h"
#include "usage/capture.h"
#include "usage/head_kind.h"
#include "usage/usage.h"
#include "usage/usage_json.h"
#include "usage/usage_compare.h"
#include "usage/usage_text.h"

namespace py = pybind11;

namespace ropecheck::python {

namespace {

// The capture dtype whose .npy descr ('<f4') has a's kind and item size (any byte order: NumPy
// arrays in memory are native).
Dtype capture_dtype(const ArrayView& a, const std::string& name) {
  for (Dtype t : usage::kCaptureDtypes)
    if (a.kind() == dtype_info(t).npy[1] && a.itemsize() == dtype_info(t).bytes) return t;
  throw InputError(name, "a float32 or float16 array", a.descr());
}

void check_shape(const ArrayView& a, const std::string& name) {
  if (a.ndim() != 5) throw InputError(name, "an array of shape [sequences, layers, heads, tokens, head_dim]", std::to_string(a.ndim()) + " axes");
}

// q's and k's shapes as a geometry (the dimensions' ranges are memory_capture's to check).
usage::CaptureGeometry geometry_of(const ArrayView& q, const ArrayView& k) {
  check_shape(q, "q");
  check_shape(k, "k");
  usage::CaptureGeometry g;
  g.sequences = q.shape(0);
  g.layers = q.shape(1);
  g.heads = q.shape(2);
  g.tokens = q.shape(3);
  g.head_dim = q.shape(4);
  g.kv_heads = k.shape(2);
  for (int axis : {0, 1, 3, 4})
    if (k.shape(axis) != q.shape(axis))
      throw InputError("k", "q's shape on every axis but 2 (kv_heads): " + std::to_string(q.shape(axis)) + " on axis " + std::to_string(axis),
                       std::to_string(k.shape(axis)));
  return g;
}

// The values of an '<i8' or '<i4' array (descr checked by the caller), every element in C order.
std::vector<long long> integer_values(const ArrayView& a) {
  const std::vector<unsigned char> bytes = c_order_bytes(a);
  const bool wide = a.descr() == "<i8";
  std::vector<long long> out(static_cast<std::size_t>(a.size()));
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (wide) {
      std::int64_t v;
      std::memcpy(&v, bytes.data() + 8 * i, 8);
      out[i] = v;
    } else {
      std::int32_t v;
      std::memcpy(&v, bytes.data() + 4 * i, 4);
      out[i] = v;
    }
  }
  return out;
}

// ropecheck.usage's positions (the CLI's dtypes, integers held in floats too).
std::vector<long long> positions_of(const ArrayView& positions) {
  NpyArray p;
  p.dtype = positions.descr();
  p.shape = positions.shape();
  p.bytes = c_order_bytes(positions);
  const std::vector<std::int64_t> pos64 = positions_from_npy(p, p.elements(), "positions");
  return {pos64.begin(), pos64.end()};
}

// q, k and positions read for ropecheck.attention: the views must outlive the source.
struct MemoryCapture {
  ArrayView q, k;
  std::unique_ptr<usage::CaptureSource> source;
};

MemoryCapture memory_source(const py::object& q_object, const py::object& k_object, const py::object& positions) {
  MemoryCapture m{ArrayView::read(q_object, "q"), ArrayView::read(k_object, "k"), nullptr};
  const usage::CaptureGeometry g = geometry_of(m.q, m.k);
  const std::vector<long long> pos = positions_of(ArrayView::read(positions, "positions"));
  m.source = usage::memory_capture(g, capture_dtype(m.q, "q"), m.q.data(), capture_dtype(m.k, "k"), m.k.data(), pos);
  return m;
}

// A float64 array of `shape` holding `maps` one after another (each rows x cols, row-major).
py::object maps_array(const std::vector<usage::RowMatrix>& maps, const std::vector<std::int64_t>& shape) {
  const NewArray out = new_array("d", 8, shape);
  auto* p = static_cast<double*>(out.data);
  for (const usage::RowMatrix& map : maps) {
    if (map.size() != 0) std::memcpy(p, map.data(), static_cast<std::size_t>(map.size()) * sizeof(double));
    p += map.size();
  }
  return out.array;
}

}  // namespace

std::pair<std::string, std::string> usage(const py::object& q_object, const py::object& k_object, const py::object& positions,
                                          const std::optional<py::object>& token_ids, const std::string& model, const py::dict& options) {
  const ArrayView q = ArrayView::read(q_object, "q"), k = ArrayView::read(k_object, "k");
  const usage::CaptureGeometry g = geometry_of(q, k);
  const std::vector<long long> pos = positions_of(ArrayView::read(positions, "positions"));
  std::vector<long long> tokens;
  if (token_ids) {
    const ArrayView t = ArrayView::read(*token_ids, "token_ids");
    usage::check_token_member(t.descr(), t.shape(), g, "token_ids");
    tokens = integer_values(t);
  }
  const ModelDescription m = load_model(model);
  usage::UsageOptions o;
  for (const auto& [key, value] : options) {
    const std::string name = py::str(key);
    if (name == "threads") o.threads = value.cast<int>();
    else if (name == "content_distance") o.content_distance = value.cast<long long>();
    else if (name == "strong_match") o.strong_match = value.cast<double>();
    else if (name == "break_rows") o.break_rows = value.cast<int>();
    else if (name == "certify_breaks") o.certify_breaks = value.cast<bool>();
    else if (name == "break_mechanisms") o.break_mechanisms = value.cast<bool>();
    else if (name == "certify_channel") o.certify_channel = value.cast<bool>();
    else if (name == "channel_epsilon") o.channel_epsilon = value.cast<double>();
    else if (name == "break_limit") o.break_limit = value.cast<long long>();
    else if (name == "max_offset") o.kind_rule.max_offset = value.cast<int>();
    else if (name == "lift") o.kind_rule.lift = value.cast<double>();
    else if (name == "min_mass") o.kind_rule.min_mass = value.cast<double>();
    else if (name == "alpha") o.kind_rule.alpha = value.cast<double>();
    else if (name == "null_sequences") o.null_sequences = value.cast<long long>();
    else if (name == "null_repeats") o.null_repeats = value.cast<int>();
    else if (name == "null_seed") o.null_seed = value.cast<std::uint64_t>();
    else throw InputError(name, "an option of ropecheck.usage", "an unknown option");
  }
  auto source = usage::memory_capture(g, capture_dtype(q, "q"), q.data(), capture_dtype(k, "k"), k.data(), pos, std::nullopt,
                                      token_ids ? &tokens : nullptr);
  py::gil_scoped_release release;
  const usage::UsageResult r = usage::analyse_usage(m, *source, o);
  return {usage::usage_json(r).dump(), usage::usage_text(r)};
}

std::string compare_usage(const std::vector<UsageLayerSummary>& a, const std::vector<UsageLayerSummary>& b) {
  auto norms = [](const std::vector<UsageLayerSummary>& x, const std::string& input) {
    std::vector<usage::LayerNorms> out;
    for (const auto& [q, k, kinds] : x) {
      usage::LayerNorms n{q, k, {}};
      for (const std::string& kind : kinds) n.kinds.push_back(usage::head_kind_from_name(kind, input));
      out.push_back(std::move(n));
    }
    return out;
  };
  const usage::UsageSimilarity s = usage::compare_usage(norms(a, "a"), norms(b, "b"));
  return nlohmann::json{{"correlation", s.correlation}, {"per_layer", s.per_layer}, {"max_difference", s.max_difference},
                        {"points", s.points}, {"kinds_agree", s.kinds_agree ? nlohmann::json(*s.kinds_agree) : nlohmann::json()},
                        {"statement", s.statement}}
      .dump();
}

py::object attention(const py::object& q, const py::object& k, const py::object& positions, const std::string& model, int layer, int head,
                     long long sequence, long long limit) {
  const MemoryCapture c = memory_source(q, k, positions);
  const ModelDescription m = load_model(model);
  usage::RowMatrix map;
  {
    py::gil_scoped_release release;
    map = usage::attention_map(m, *c.source, layer, head, sequence, limit);
  }
  return maps_array({map}, {static_cast<std::int64_t>(map.rows()), static_cast<std::int64_t>(map.cols())});
}

py::object attention_layer(const py::object& q, const py::object& k, const py::object& positions, const std::string& model, int layer,
                           long long sequence, long long limit) {
  const MemoryCapture c = memory_source(q, k, positions);
  const ModelDescription m = load_model(model);
  std::vector<usage::RowMatrix> maps;
  {
    py::gil_scoped_release release;
    maps = usage::attention_maps(m, *c.source, layer, sequence, limit);
  }
  const std::int64_t n = maps.empty() ? 0 : static_cast<std::int64_t>(maps.front().rows());
  return maps_array(maps, {static_cast<std::int64_t>(maps.size()), n, n});
}

void check_capture(const py::object& q_object, const py::object& k_object, const py::object& positions_object,
                   const std::optional<py::object>& token_ids, const std::optional<py::object>& source) {
  const ArrayView q = ArrayView::read(q_object, "q"), k = ArrayView::read(k_object, "k");
  const ArrayView positions = ArrayView::read(positions_object, "positions");
  const usage::CaptureGeometry g = geometry_of(q, k);
  const Dtype q_dtype = usage::capture_float_dtype(q.descr(), "q");
  const Dtype k_dtype = usage::capture_float_dtype(k.descr(), "k");
  for (const auto& [a, name] : {std::pair<const ArrayView*, const char*>{&q, "q"}, {&k, "k"}})
    if (!a->c_contiguous())
      throw InputError(name, "a C-contiguous array (what np.save writes in C order)", "a non-contiguous array");
  const std::string p_descr = positions.descr();
  if (p_descr != "<i8" && p_descr != "<i4") usage::check_token_member(p_descr, positions.shape(), g, "positions");  // throws
  // The values as a file's reader takes them: every element, whatever the shape (checked below).
  const std::vector<long long> pos = integer_values(positions);
  auto capture = usage::memory_capture(g, q_dtype, q.data(), k_dtype, k.data(), pos);  // geometry, count, [0, 2^40)
  usage::check_token_member(p_descr, positions.shape(), g, "positions");
  if (token_ids) {
    const ArrayView t = ArrayView::read(*token_ids, "token_ids");
    usage::check_token_member(t.descr(), t.shape(), g, "token_ids");
  }
  if (source) {
    const ArrayView s = ArrayView::read(*source, "source");
    usage::capture_source_text(s.descr(), s.shape(), c_order_bytes(s), "source");
  }
  py::gil_scoped_release release;
  usage::CaptureBlock block;
  while (capture->next(block)) {
  }
}

}  // namespace ropecheck::python
