// File: environment.h
// The arithmetic a certificate was computed with: library versions and compiler, so a reader of a
// JSON certificate can tell which MPFR/MPFI/Boost produced it.
#pragma once

#include <nlohmann/json.hpp>

namespace ropecheck {

// Returns: {"mpfr": "4.2.0", "mpfi": "1.5.3", "gmp": ..., "boost": "1_74", "eigen": "3.4.0",
// "compiler": "GCC 12.2.0", "cxx_standard": 202002, "fast_math": false}.
nlohmann::json arithmetic_environment();

}  // namespace ropecheck
