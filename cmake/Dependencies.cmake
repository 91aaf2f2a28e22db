# Every dependency is a Debian 12 package (scripts/setup installs the main job's, and with --test
# the tests'); nothing is vendored or downloaded. Packages without a (usable) CMake config (MPFI, MPFR, GMP, Random123, libzip) are found by hand.

find_package(Boost 1.74 REQUIRED)                 # header-only: Multiprecision, Math
find_package(nlohmann_json 3 CONFIG REQUIRED)
if(ROPECHECK_BUILD_TESTS OR ROPECHECK_KERNEL_ONLY)
  find_package(GTest CONFIG REQUIRED)
endif()
if(NOT ROPECHECK_KERNEL_ONLY)  # (cmake/Architecture.cmake: the kernel alone needs none of these)
  find_package(Eigen3 3.4 REQUIRED NO_MODULE)
  find_package(CLI11 CONFIG REQUIRED)
  if(ROPECHECK_BUILD_TESTS)
    find_package(rapidcheck CONFIG REQUIRED)      # Debian ships no version file: no version here
  endif()
  if(ROPECHECK_BUILD_BENCH)
    find_package(benchmark CONFIG REQUIRED)
  endif()
endif()

find_path(MPFI_INCLUDE_DIR mpfi.h REQUIRED)
find_library(MPFI_LIBRARY mpfi REQUIRED)
find_path(MPFR_INCLUDE_DIR mpfr.h REQUIRED)
find_library(MPFR_LIBRARY mpfr REQUIRED)
find_path(GMP_INCLUDE_DIR gmp.h REQUIRED)
find_library(GMP_LIBRARY gmp REQUIRED)
find_path(RANDOM123_INCLUDE_DIR Random123/philox.h REQUIRED)

add_library(ropecheck_mp INTERFACE)
target_include_directories(ropecheck_mp INTERFACE ${MPFI_INCLUDE_DIR} ${MPFR_INCLUDE_DIR} ${GMP_INCLUDE_DIR})
# Order matters for static links: MPFI needs MPFR needs GMP.
target_link_libraries(ropecheck_mp INTERFACE Boost::headers ${MPFI_LIBRARY} ${MPFR_LIBRARY} ${GMP_LIBRARY})

if(NOT ROPECHECK_KERNEL_ONLY)
  # libzip (.npz captures, io/npz.h; Debian libzip-dev 1.7.3) by hand too: Debian 12's
  # libzip-config.cmake refuses to load unless the zipcmp, zipmerge and ziptool programs (three more
  # packages) are installed, though only the library is needed.
  find_path(LIBZIP_INCLUDE_DIR zip.h REQUIRED)
  find_library(LIBZIP_LIBRARY zip REQUIRED)
  add_library(libzip::zip INTERFACE IMPORTED)
  target_include_directories(libzip::zip INTERFACE ${LIBZIP_INCLUDE_DIR})
  target_link_libraries(libzip::zip INTERFACE ${LIBZIP_LIBRARY})
endif()

add_library(ropecheck_random123 INTERFACE)
target_include_directories(ropecheck_random123 SYSTEM INTERFACE ${RANDOM123_INCLUDE_DIR})
