#include "python/requests.h"

#include <pybind11/stl.h>

#include <exception>

#include "io/input_error.h"
#include "spectrum/scaling.h"
#include "spectrum/variant.h"

namespace py = pybind11;

namespace ropecheck::python {

namespace {

template <typename T>
std::optional<T> get(const py::dict& d, const char* key) {
  if (!d.contains(key) || d[key].is_none()) return std::nullopt;
  return d[key].cast<T>();
}

// The class of ropecheck.InputError, held for the life of the process (never destroyed, so that
// no Python object is released after the interpreter has finalized).
PyObject* input_error_class = nullptr;

}  // namespace

SpectrumRequest spectrum_request(const py::dict& d) {
  SpectrumRequest r;
  r.config = get<std::string>(d, "config");
  r.dim = get<int>(d, "dim");
  r.theta = get<std::string>(d, "theta");
  if (const auto v = get<std::string>(d, "variant")) r.variant = parse_variant(*v);
  if (const auto f = get<std::string>(d, "fraction")) r.fraction = *f;
  if (const auto s = get<std::string>(d, "scaling")) r.scaling = parse_scaling(*s);
  r.context = get<long long>(d, "context");
  r.model = get<std::string>(d, "model");
  r.layer_type = get<std::string>(d, "layer_type");
  r.sequence_length = get<long long>(d, "sequence_length");
  r.vllm_dynamic = get<bool>(d, "vllm_dynamic").value_or(false);
  return r;
}

ClaimOptions claim_options(const py::dict& d) {
  ClaimOptions o;
  if (d.contains("spectrum")) o.spectrum = spectrum_request(d["spectrum"].cast<py::dict>());
  o.precision_bits = get<unsigned>(d, "precision").value_or(o.precision_bits);
  o.max_precision_bits = get<unsigned>(d, "max_precision").value_or(std::max(o.precision_bits, o.max_precision_bits));
  o.seed = get<std::uint64_t>(d, "seed").value_or(o.seed);
  o.epsilon = get<std::string>(d, "epsilon");
  o.frequency = get<std::string>(d, "frequency");
  o.phase = get<std::string>(d, "phase");
  o.tolerance = get<std::string>(d, "tolerance");
  o.max_n = get<long long>(d, "max_n");
  o.trials = get<long long>(d, "trials");
  o.ledger = get<std::string>(d, "ledger");
  o.distances = get<std::vector<long long>>(d, "distances").value_or(std::vector<long long>{});
  o.query_lengths = get<std::vector<long long>>(d, "query_lengths").value_or(std::vector<long long>{});
  o.query = get<std::vector<std::string>>(d, "query").value_or(std::vector<std::string>{});
  return o;
}

std::string python_parameter(const std::string& input) {
  std::string p = input;
  if (p.rfind("--", 0) == 0) p = p.substr(2);
  if (const auto space = p.find(' '); space != std::string::npos) p = p.substr(0, space);  // "--scaling (factor)"
  if (const auto dot = p.find('.'); dot != std::string::npos) p = p.substr(0, dot);       // "scaling.factor"
  for (char& c : p)
    if (c == '-') c = '_';
  return p;
}

void register_errors(const py::object& error_class) {
  input_error_class = error_class.ptr();
  Py_INCREF(input_error_class);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      py::object error = py::reinterpret_borrow<py::object>(input_error_class)(python_parameter(e.input()), e.accepted(), e.got());
      PyErr_SetObject(input_error_class, error.ptr());
    } catch (const py::error_already_set&) {
      throw;
    } catch (const py::builtin_exception&) {
      throw;
    } catch (const std::bad_alloc&) {
      PyErr_SetString(PyExc_MemoryError, "ropecheck: out of memory");
    } catch (const std::exception& e) {
      PyErr_SetString(PyExc_RuntimeError, (std::string("ropecheck internal error: ") + e.what()).c_str());
    }
  });
}

}  // namespace ropecheck::python
