// The architecture seam off x86 (cmake/Architecture.cmake, ROPECHECK_X86 off): no SIMD path is
// built, so the probe (cpu/detail/probe.h) finds none, and the default floating-point environment
// (cpu/float_environment.h) comes from <cfenv>. A new architecture's SIMD paths get a file of
// their own beside this one (CONTRIBUTING.md, "A new SIMD path or architecture").
#include <cfenv>
#include <cstring>

#include "cpu/detail/probe.h"
#include "cpu/float_environment.h"

namespace ropecheck::cpu {

detail::CpuFeatures detail::probe() { return {}; }

static_assert(sizeof(std::fenv_t) <= 32, "DefaultFloatEnvironment::saved_ must hold an fenv_t");

DefaultFloatEnvironment::DefaultFloatEnvironment() {
  std::fenv_t saved;
  std::fegetenv(&saved);
  std::memcpy(saved_, &saved, sizeof saved);
  std::fesetenv(FE_DFL_ENV);
}

DefaultFloatEnvironment::~DefaultFloatEnvironment() {
  std::fenv_t saved;
  std::memcpy(&saved, saved_, sizeof saved);
  std::fesetenv(&saved);
}

}  // namespace ropecheck::cpu
