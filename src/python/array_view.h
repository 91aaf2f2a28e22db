// File: array_view.h
// Arrays in and out of the extension module through the buffer protocol (PEP 3118), never through
// NumPy's C structs: NumPy 2 changed the layout of its dtype struct (pybind11 2.10's numpy.h reads
// the item size at the wrong offset there), while the buffer protocol is the same in NumPy 1.x
// and 2.x. Every array the module reads is an ArrayView; every array it returns is made by
// new_array (a buffer owned here, viewed by numpy.asarray through the same protocol).
//
// Contract: an ArrayView holds the exporter's buffer until it is destroyed (the GIL must be held
// then, as for any Python object); data() stays valid that long. shape and strides are NumPy's
// (strides in bytes, any sign). kind() and descr() name the element type as NumPy's dtype.kind and
// dtype.str do ('f', '<f4'), read from the buffer's struct format and item size.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ropecheck::python {

class ArrayView {
 public:
  // Returns: a view of `o`'s buffer, read-only or writable. Throws InputError naming `parameter`
  // when `o` exports no buffer (or, for writable, no writable one), or an element format NumPy
  // would not give (a struct of several fields).
  static ArrayView read(const pybind11::handle& o, const std::string& parameter);
  static ArrayView write(const pybind11::handle& o, const std::string& parameter);

  const void* data() const { return buffer_->buf; }
  void* mutable_data() const { return buffer_->buf; }
  bool readonly() const { return buffer_->readonly != 0; }
  std::int64_t ndim() const { return static_cast<std::int64_t>(shape_.size()); }
  const std::vector<std::int64_t>& shape() const { return shape_; }
  const std::vector<std::int64_t>& strides() const { return strides_; }  // bytes
  std::int64_t shape(std::int64_t axis) const { return shape_[static_cast<std::size_t>(axis)]; }
  std::int64_t strides(std::int64_t axis) const { return strides_[static_cast<std::size_t>(axis)]; }
  std::int64_t itemsize() const { return static_cast<std::int64_t>(buffer_->itemsize); }
  std::int64_t size() const;    // elements
  std::int64_t nbytes() const { return size() * itemsize(); }
  char kind() const { return kind_; }          // NumPy's dtype.kind: 'f', 'i', 'u', 'b', 'c', 'U', 'S', 'O', 'V'
  bool native_order() const { return native_; }  // little-endian here, or one byte
  std::string descr() const;                    // NumPy's dtype.str: "<f4", ">i8", "|b1", "<U5"
  bool c_contiguous() const;
  bool aligned() const;  // data and every stride multiples of the item size (NumPy's flags.aligned)

 private:
  struct Release {
    void operator()(Py_buffer* b) const;
  };
  static ArrayView make(const pybind11::handle& o, const std::string& parameter, bool writable);
  std::unique_ptr<Py_buffer, Release> buffer_;
  std::vector<std::int64_t> shape_, strides_;
  char kind_ = 'V';
  bool native_ = true;
};

// Returns: `a` as a contiguous C-order copy of its bytes (a's elements in C order).
std::vector<unsigned char> c_order_bytes(const ArrayView& a);

// An array the module returns: a NumPy array (numpy.asarray of a buffer this module owns) of
// `shape` in C order whose elements are of struct format `format` ("f", "d", "e", "H", "q", ...)
// and `itemsize` bytes. Writable; zero-filled.
struct NewArray {
  pybind11::object array;  // the numpy.ndarray
  void* data = nullptr;    // its first element
};
NewArray new_array(const std::string& format, std::int64_t itemsize, const std::vector<std::int64_t>& shape);

// Returns: a NumPy array viewing memory this module does not own, keeping `owner` alive as long
// as the array (and any view of it) lives: `data` with `shape` and byte `strides`, elements of
// `format`/`itemsize`. The array is writable.
pybind11::object view_array(void* data, const std::string& format, std::int64_t itemsize, const std::vector<std::int64_t>& shape,
                            const std::vector<std::int64_t>& strides, pybind11::object owner);

// Registers the buffer type behind new_array and view_array in module `m` (once, at import).
void register_array_buffer(pybind11::module_& m);

}  // namespace ropecheck::python
