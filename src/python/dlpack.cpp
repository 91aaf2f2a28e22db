#include "python/dlpack.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/input_error.h"
#include "python/array_view.h"
#include "python/tensor_views.h"

namespace py = pybind11;

namespace ropecheck::python {

namespace {

// The DLPack ABI (dlpack.h, version 0.x), as the specification defines it.
struct DLDevice {
  std::int32_t device_type;  // 1: kDLCPU
  std::int32_t device_id;
};
struct DLDataType {
  std::uint8_t code;  // 0: int, 1: uint, 2: float, 4: bfloat
  std::uint8_t bits;
  std::uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  std::int32_t ndim;
  DLDataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // in elements; null: C-contiguous
  std::uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};
constexpr std::int32_t kDLCPU = 1;
constexpr std::uint8_t kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4;

// What an exported capsule owns: the array (a strong reference), its buffer, and the shape and
// strides the DLTensor points at.
struct Export {
  DLManagedTensor managed{};
  PyObject* array = nullptr;
  std::unique_ptr<ArrayView> view;
  std::vector<std::int64_t> shape, strides;
};

void delete_export(DLManagedTensor* self) {
  auto* e = static_cast<Export*>(self->manager_ctx);
  // A consumer may release the tensor from a thread that does not hold the GIL.
  const PyGILState_STATE gil = PyGILState_Ensure();
  e->view.reset();
  Py_XDECREF(e->array);
  delete e;
  PyGILState_Release(gil);
}

// The owner of an imported tensor: frees it through the producer's deleter.
void release_imported(void* p) {
  auto* m = static_cast<DLManagedTensor*>(p);
  if (m->deleter) m->deleter(m);
}

// An exported capsule's destructor: a consumer renames the capsule "used_dltensor" and takes the
// tensor; one never consumed frees it here.
void release_unconsumed(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, "dltensor")) {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
    m->deleter(m);
  }
}

// The struct format of a DLPack element type as NumPy reads it: float16/32/64 "e", "f", "d";
// signed "b", "h", "i", "q"; unsigned the same in upper case; bfloat16 as its uint16 bits "H".
std::string element_format(const DLDataType& t, const std::string& parameter) {
  const std::string got = "DLPack dtype code " + std::to_string(t.code) + ", " + std::to_string(t.bits) + " bits, " +
                          std::to_string(t.lanes) + " lanes";
  const std::string accepted = "a tensor of bfloat16, float16/32/64 or integers, one lane";
  if (t.lanes != 1) throw InputError(parameter, accepted, got);
  if (t.code == kDLBfloat && t.bits == 16) return "H";
  const int index = t.bits == 8 ? 0 : t.bits == 16 ? 1 : t.bits == 32 ? 2 : t.bits == 64 ? 3 : -1;
  if (index < 0) throw InputError(parameter, accepted, got);
  if (t.code == kDLFloat && index >= 1) return std::string(1, "efd"[index - 1]);
  if (t.code == kDLInt) return std::string(1, "bhiq"[index]);
  if (t.code == kDLUInt) return std::string(1, "BHIQ"[index]);
  throw InputError(parameter, accepted, got);
}

}  // namespace

py::object dlpack_to_numpy(const py::object& tensor, const std::string& parameter) {
  if (!py::hasattr(tensor, "__dlpack__"))
    throw InputError(parameter, "a NumPy array or a tensor exposing __dlpack__", std::string(py::str(py::type::of(tensor).attr("__name__"))));
  py::object capsule = tensor.attr("__dlpack__")();
  if (!PyCapsule_IsValid(capsule.ptr(), "dltensor"))
    throw InputError(parameter, "a tensor whose __dlpack__ returns an unconsumed \"dltensor\" capsule", "another object");
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  // From here the capsule is ours: renamed so that its destructor does not free it, and freed by
  // the owner below when the NumPy view dies.
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");
  py::capsule owner(static_cast<void*>(managed), release_imported);
  const DLTensor& t = managed->dl_tensor;
  if (t.device.device_type != kDLCPU)
    throw InputError(parameter, "a tensor in CPU memory (DLPack device type 1)", "device type " + std::to_string(t.device.device_type));
  const std::string format = element_format(t.dtype, parameter);
  const std::int64_t item = t.dtype.bits / 8;
  std::vector<std::int64_t> shape(static_cast<std::size_t>(t.ndim)), strides(static_cast<std::size_t>(t.ndim));
  std::int64_t contiguous = item;
  for (int i = t.ndim - 1; i >= 0; --i) {
    const auto u = static_cast<std::size_t>(i);
    shape[u] = t.shape[i];
    strides[u] = t.strides ? t.strides[i] * item : contiguous;
    contiguous *= t.shape[i];
  }
  void* data = static_cast<char*>(t.data) + t.byte_offset;
  return view_array(data, format, item, shape, strides, owner);
}

py::capsule bfloat16_capsule(const py::object& bits) {
  auto view = std::make_unique<ArrayView>(ArrayView::read(bits, "bits"));
  if (!has_element_type(*view, 'u', 2))
    throw InputError("bits", "a uint16 array of bfloat16 bit patterns", "dtype " + view->descr());
  auto* e = new Export;
  e->array = bits.ptr();
  Py_INCREF(e->array);
  for (std::int64_t i = 0; i < view->ndim(); ++i) {
    e->shape.push_back(view->shape(i));
    e->strides.push_back(view->strides(i) / 2);
  }
  DLTensor& t = e->managed.dl_tensor;
  t.data = view->mutable_data();
  t.device = {kDLCPU, 0};
  t.ndim = static_cast<std::int32_t>(view->ndim());
  e->view = std::move(view);
  t.dtype = {kDLBfloat, 16, 1};
  t.shape = e->shape.data();
  t.strides = e->strides.data();
  t.byte_offset = 0;
  e->managed.manager_ctx = e;
  e->managed.deleter = delete_export;
  // An unconsumed capsule frees its tensor itself; a consumer renames it "used_dltensor" first.
  return py::capsule(static_cast<void*>(&e->managed), "dltensor", release_unconsumed);
}

}  // namespace ropecheck::python
