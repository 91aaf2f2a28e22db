#include "python/array_view.h"

#include <bit>
#include <cctype>
#include <cstring>

#include "io/input_error.h"

namespace py = pybind11;

namespace ropecheck::python {

namespace {

constexpr bool kLittleEndian = std::endian::native == std::endian::little;

// NumPy's dtype.kind of a struct format's item (PEP 3118 / the struct module's characters), and
// whether its bytes are in this machine's order. NumPy writes a native item as its bare character
// ("f", "l") and any other order with a prefix ("<f" on a big-endian host, ">q"); a misaligned
// array's items get "=" (standard size, native order).
struct ItemFormat {
  char kind = 'V';
  bool native = true;
};

ItemFormat parse_format(const char* format) {
  ItemFormat f;
  std::string s = format ? format : "B";  // PEP 3118: a NULL format means unsigned bytes
  std::size_t i = 0;
  if (i < s.size() && std::strchr("@=<>!", s[i])) {
    const char order = s[i++];
    f.native = order == '@' || order == '=' || (order == '<' && kLittleEndian) || ((order == '>' || order == '!') && !kLittleEndian);
  }
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;  // a repeat count ("5w": a <U5 item)
  if (i >= s.size()) return f;
  const std::string rest = s.substr(i);
  if (rest.size() == 1) {
    const char c = rest[0];
    if (std::strchr("efdg", c)) f.kind = 'f';
    else if (std::strchr("bhilqn", c)) f.kind = 'i';
    else if (std::strchr("BHILQN", c)) f.kind = 'u';
    else if (c == '?') f.kind = 'b';
    else if (c == 'w') f.kind = 'U';
    else if (c == 's') f.kind = 'S';
    else if (c == 'O') f.kind = 'O';
  } else if (rest.size() == 2 && rest[0] == 'Z' && std::strchr("fdg", rest[1])) {
    f.kind = 'c';
  }
  return f;
}

// The buffer behind new_array and view_array: bytes owned here, or memory kept alive by `owner`.
struct ArrayBuffer {
  std::vector<unsigned char> storage;
  void* data = nullptr;
  py::object owner;
  std::string format;
  py::ssize_t itemsize = 0;
  std::vector<py::ssize_t> shape, strides;
};

py::object as_numpy(py::object buffer) { return py::module_::import("numpy").attr("asarray")(buffer); }

}  // namespace

void ArrayView::Release::operator()(Py_buffer* b) const {
  PyBuffer_Release(b);
  delete b;
}

ArrayView ArrayView::make(const py::handle& o, const std::string& parameter, bool writable) {
  auto* b = new Py_buffer{};
  const int flags = PyBUF_RECORDS_RO | (writable ? PyBUF_WRITABLE : 0);
  if (PyObject_GetBuffer(o.ptr(), b, flags) != 0) {
    delete b;
    PyErr_Clear();
    const std::string type = py::str(py::type::of(o).attr("__name__"));
    throw InputError(parameter, writable ? "a writable array" : "an array (an object exporting the buffer protocol)",
                     "a " + type + (writable ? " that exports no writable buffer" : " that exports none"));
  }
  ArrayView a;
  a.buffer_.reset(b);
  const ItemFormat f = parse_format(b->format);
  a.kind_ = f.kind;
  a.native_ = f.native || b->itemsize == 1;
  a.shape_.resize(static_cast<std::size_t>(b->ndim));
  a.strides_.resize(a.shape_.size());
  std::int64_t contiguous = b->itemsize;
  for (int i = b->ndim - 1; i >= 0; --i) {
    const auto u = static_cast<std::size_t>(i);
    a.shape_[u] = b->shape ? static_cast<std::int64_t>(b->shape[i]) : 0;
    a.strides_[u] = b->strides ? static_cast<std::int64_t>(b->strides[i]) : contiguous;
    contiguous *= a.shape_[u];
  }
  return a;
}

ArrayView ArrayView::read(const py::handle& o, const std::string& parameter) { return make(o, parameter, false); }
ArrayView ArrayView::write(const py::handle& o, const std::string& parameter) { return make(o, parameter, true); }

std::int64_t ArrayView::size() const {
  std::int64_t n = 1;
  for (std::int64_t s : shape_) n *= s;
  return n;
}

std::string ArrayView::descr() const {
  const std::int64_t n = itemsize();
  const char order = n == 1 || kind_ == 'O' || kind_ == 'S' || kind_ == 'V' || kind_ == 'b' ? '|' : (native_ == kLittleEndian ? '<' : '>');
  const std::int64_t count = kind_ == 'U' ? n / 4 : n;
  return std::string(1, order) + kind_ + std::to_string(count);
}

bool ArrayView::c_contiguous() const {
  if (size() == 0) return true;
  std::int64_t expect = itemsize();
  for (std::int64_t i = ndim() - 1; i >= 0; --i) {
    if (shape(i) != 1 && strides(i) != expect) return false;
    expect *= shape(i);
  }
  return true;
}

bool ArrayView::aligned() const {
  const std::int64_t n = itemsize();
  if (n <= 1) return true;
  if (reinterpret_cast<std::uintptr_t>(data()) % static_cast<std::uintptr_t>(n) != 0) return false;
  for (std::int64_t s : strides_)
    if (s % n != 0) return false;
  return true;
}

std::vector<unsigned char> c_order_bytes(const ArrayView& a) {
  const auto item = static_cast<std::size_t>(a.itemsize());
  std::vector<unsigned char> out(static_cast<std::size_t>(a.nbytes()));
  if (out.empty()) return out;
  if (a.c_contiguous()) {
    std::memcpy(out.data(), a.data(), out.size());
    return out;
  }
  // An odometer over the index space, C order.
  const std::int64_t r = a.ndim();
  std::vector<std::int64_t> index(static_cast<std::size_t>(r), 0);
  const auto* base = static_cast<const unsigned char*>(a.data());
  for (std::size_t e = 0; e < out.size() / item; ++e) {
    std::int64_t offset = 0;
    for (std::int64_t i = 0; i < r; ++i) offset += index[static_cast<std::size_t>(i)] * a.strides(i);
    std::memcpy(out.data() + e * item, base + offset, item);
    for (std::int64_t i = r - 1; i >= 0; --i) {
      if (++index[static_cast<std::size_t>(i)] < a.shape(i)) break;
      index[static_cast<std::size_t>(i)] = 0;
    }
  }
  return out;
}

NewArray new_array(const std::string& format, std::int64_t itemsize, const std::vector<std::int64_t>& shape) {
  ArrayBuffer b;
  b.format = format;
  b.itemsize = static_cast<py::ssize_t>(itemsize);
  std::int64_t n = 1;
  for (std::int64_t s : shape) n *= s;
  b.storage.assign(static_cast<std::size_t>(std::max<std::int64_t>(1, n * itemsize)), 0);  // never a null pointer
  b.shape.assign(shape.begin(), shape.end());
  b.strides.resize(shape.size());
  py::ssize_t stride = b.itemsize;
  for (std::size_t i = shape.size(); i-- > 0;) {
    b.strides[i] = stride;
    stride *= static_cast<py::ssize_t>(shape[i]);
  }
  py::object holder = py::cast(std::move(b));
  auto& held = holder.cast<ArrayBuffer&>();
  held.data = held.storage.data();
  return NewArray{as_numpy(holder), held.data};
}

py::object view_array(void* data, const std::string& format, std::int64_t itemsize, const std::vector<std::int64_t>& shape,
                      const std::vector<std::int64_t>& strides, py::object owner) {
  ArrayBuffer b;
  b.data = data;
  b.owner = std::move(owner);
  b.format = format;
  b.itemsize = static_cast<py::ssize_t>(itemsize);
  b.shape.assign(shape.begin(), shape.end());
  b.strides.assign(strides.begin(), strides.end());
  return as_numpy(py::cast(std::move(b)));
}

void register_array_buffer(py::module_& m) {
  py::class_<ArrayBuffer>(m, "_ArrayBuffer", py::buffer_protocol(), "memory behind an array the module returned")
      .def_buffer([](ArrayBuffer& b) {
        return py::buffer_info(b.data, b.itemsize, b.format, static_cast<py::ssize_t>(b.shape.size()), b.shape, b.strides, false);
      });
}

}  // namespace ropecheck::python
