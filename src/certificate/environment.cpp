#include "certificate/environment.h"

#include <Eigen/Core>
#include <boost/version.hpp>
#include <gmp.h>
#include <mpfi.h>
#include <mpfr.h>

#include <string>

namespace ropecheck {

nlohmann::json arithmetic_environment() {
#ifdef __FAST_MATH__
  constexpr bool fast_math = true;
#else
  constexpr bool fast_math = false;
#endif
  return {{"mpfr", mpfr_get_version()},
          {"mpfi", mpfi_get_version()},
          {"gmp", gmp_version},
          {"boost", BOOST_LIB_VERSION},
          {"eigen", std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." + std::to_string(EIGEN_MINOR_VERSION)},
          {"compiler", std::string("GCC ") + __VERSION__},
          {"cxx_standard", static_cast<long>(__cplusplus)},
          {"fast_math", fast_math}};
}

}  // namespace ropecheck
