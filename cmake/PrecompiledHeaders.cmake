# Precompiled headers: the heavy third-party headers parsed once per target instead of once per
# file. Measured before this file existed: <CLI/CLI.hpp> alone costs 7.5 s of CPU per file that
# includes it, Eigen + Boost.Multiprecision 3.8 s, nlohmann/json 2.2 s, GoogleTest 1.6 s, and a
# 40-line test file 10 s in all; the unit tests (80 files) were 80% of a cold build.
# Every header here is also included by the files that use it, so a build without precompiled
# headers (ROPECHECK_PRECOMPILE=OFF) compiles the same code.
option(ROPECHECK_PRECOMPILE "Precompile the heavy third-party headers (faster cold builds)" ON)

set(ROPECHECK_PCH_NUMERIC <boost/multiprecision/mpfr.hpp> <boost/multiprecision/mpfi.hpp> <Eigen/Core>
    <boost/multiprecision/eigen.hpp> <nlohmann/json.hpp> <cmath> <cstdint> <string> <vector>)

# ropecheck_precompile(TARGET header...): precompiles the headers for TARGET; files compiled with
# their own instruction-set flags (the SIMD twins) must set SKIP_PRECOMPILE_HEADERS.
function(ropecheck_precompile target)
  if(ROPECHECK_PRECOMPILE)
    target_precompile_headers(${target} PRIVATE ${ARGN})
  endif()
endfunction()
