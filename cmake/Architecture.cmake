# The architecture seam (CONTRIBUTING.md, "A new SIMD path or architecture"). Everything x86-specific
# hangs on ROPECHECK_X86: the CPUID/XCR0 probe (src/cpu/x86.cpp, else src/cpu/portable.cpp), the
# SIMD twins (the files listed under `if(ROPECHECK_X86)` in src/CMakeLists.txt) and their -m flags.
# Off x86 the library builds its scalar paths only: cpu::available_paths() is {scalar}, and the
# x86 paths keep their names (files written on another machine still parse) but never run.
# The C++ sees the choice as the macro ROPECHECK_X86 (0 or 1) on every target linking ropecheck_base.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set(_x86_default ON)
else()
  set(_x86_default OFF)
endif()
option(ROPECHECK_X86 "Build the x86-64 SIMD paths and the CPUID probe (default: on when the target processor is x86-64)" ${_x86_default})
if(ROPECHECK_X86 AND NOT _x86_default)
  message(FATAL_ERROR "ROPECHECK_X86=ON needs an x86-64 target; CMAKE_SYSTEM_PROCESSOR is '${CMAKE_SYSTEM_PROCESSOR}'")
endif()

# ROPECHECK_KERNEL_ONLY: libropecheck.so, the libraries under it (ropecheck_base, ropecheck_kernel)
# and their tests (tests/{io,numeric,cpu,kernel}), with only their dependencies (Boost headers,
# MPFR, MPFI, GMP, nlohmann-json, Random123, GoogleTest). For cross builds (scripts/test --aarch64
# runs the tests under qemu-user) and for a machine that wants the kernel alone.
option(ROPECHECK_KERNEL_ONLY "Build only libropecheck.so, the libraries under it and their tests" OFF)
