// File: dlpack.h
// DLPack (https://dmlc.github.io/dlpack/, the pre-1.0 "dltensor" capsule that NumPy >= 1.22 and
// PyTorch exchange) for the Python module: any CPU tensor exposing __dlpack__ viewed as a NumPy
// array, and a NumPy uint16 array exported as a bfloat16 tensor, which NumPy has no dtype for.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

namespace ropecheck::python {

// Returns: a NumPy array viewing the memory of `tensor` (an object with __dlpack__), no copy
// (python/array_view.h's view_array: through the buffer protocol, any NumPy version):
// float32 as float32, bfloat16 as uint16 bit patterns, every other DLPack dtype as NumPy's own
// (int, uint, float of 8 to 64 bits). The view keeps the producer's tensor alive. Throws InputError
// naming `parameter`: no __dlpack__, a device other than the CPU, a dtype with lanes or of another
// kind (complex, bool).
pybind11::object dlpack_to_numpy(const pybind11::object& tensor, const std::string& parameter);

// Returns: a "dltensor" capsule viewing `bits` (a uint16 array of bfloat16 bit patterns) as a
// bfloat16 DLPack tensor (dtype code kDLBfloat, 16 bits), keeping `bits` (and its buffer) alive
// until the consumer releases it: torch.from_dlpack(...) then sees torch.bfloat16. Throws
// InputError("bits", ...) for another dtype.
pybind11::capsule bfloat16_capsule(const pybind11::object& bits);

}  // namespace ropecheck::python
