#include "python/usage_analysis.h"

#include <cstring>

#include "io/input_error.h"
#include "io/npy.h"
#include "spectrum/model_zoo.h"
#include "usage/usage_json.h"

namespace py = pybind11;

namespace ropecheck::python {

namespace {

usage::CaptureDtype capture_dtype(const py::array& a, const std::string& name) {
  const std::string kind = std::string(1, a.dtype().kind());
  if (kind == "f" && a.itemsize() == 4) return usage::CaptureDtype::f32;
  if (kind == "f" && a.itemsize() == 2) return usage::CaptureDtype::f16;
  throw InputError(name, "a float32 or float16 array", std::string(py::str(a.dtype())));
}

void check_shape(const py::array& a, const std::string& name) {
  if (a.ndim() != 5) throw InputError(name, "an array of shape [sequences, layers, heads, tokens, head_dim]", std::to_string(a.ndim()) + " axes");
}

}  // namespace

std::string usage(const py::array& q, const py::array& k, const py::array& positions, const std::string& model, int threads,
                  long long content_distance, long long break_limit, bool certify_breaks) {
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
  NpyArray p;
  p.dtype = std::string(py::str(positions.dtype().attr("str")));
  for (py::ssize_t i = 0; i < positions.ndim(); ++i) p.shape.push_back(positions.shape(i));
  p.bytes.resize(static_cast<std::size_t>(positions.nbytes()));
  if (!p.bytes.empty()) std::memcpy(p.bytes.data(), positions.data(), p.bytes.size());
  const std::vector<std::int64_t> pos64 = positions_from_npy(p, p.elements(), "positions");
  const std::vector<long long> pos(pos64.begin(), pos64.end());
  const ModelDescription m = load_model(model);
  usage::UsageOptions o;
  o.threads = threads;
  o.content_distance = content_distance;
  o.break_limit = break_limit;
  o.certify_breaks = certify_breaks;
  auto source = usage::memory_capture(g, capture_dtype(q, "q"), q.data(), capture_dtype(k, "k"), k.data(), pos);
  py::gil_scoped_release release;
  return usage::usage_json(usage::analyse_usage(m, *source, o)).dump();
}

}  // namespace ropecheck::python
