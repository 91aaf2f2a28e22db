// File: requests.h
// Python keyword arguments as the library's requests, and the library's InputError as the Python
// module's ropecheck.InputError naming the Python parameter.
//
// The Python layer (ropecheck/__init__.py) checks the types and ranges of its arguments and passes
// a dict of str, int and bool values; the library parses decimals itself (a theta or fraction given
// as text keeps its exact value).
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "claims/claim.h"
#include "spectrum/request.h"

namespace ropecheck::python {

// Keys (all optional): config, dim (int), theta (str), variant (a name of kVariants, parsed by
// parse_variant: "nope", "p-rope", ...), fraction (str), scaling (str: parse_scaling's forms), context (int), model,
// layer_type, sequence_length (int), vllm_dynamic (bool). Throws InputError naming the key.
SpectrumRequest spectrum_request(const pybind11::dict& d);

// The spectrum keys above under "spectrum" (a dict), and precision, max_precision, seed, epsilon,
// frequency, phase, tolerance, max_n, trials, ledger, distances, query_lengths, query.
ClaimOptions claim_options(const pybind11::dict& d);

// Returns: the Python parameter an InputError's input names: "--layer-type" -> "layer_type",
// "scaling.factor" -> "scaling", anything else as is.
std::string python_parameter(const std::string& input);

// Registers the translation of InputError into `error_class` (ropecheck.InputError, constructed
// as error_class(parameter, accepted, got)), and of any other C++ exception into RuntimeError
// "ropecheck internal error: ...".
void register_errors(const pybind11::object& error_class);

}  // namespace ropecheck::python
