// The x86-64 side of the architecture seam (cmake/Architecture.cmake): the CPUID/XCR0 probe
// (cpu/detail/probe.h) and the MXCSR guard (cpu/float_environment.h). The only file of cpu/ that
// knows the instruction set; built when ROPECHECK_X86 is on, in place of cpu/portable.cpp.
#include <cpuid.h>
#include <xmmintrin.h>

#include <cstdint>
#include <cstring>

#include "cpu/detail/probe.h"
#include "cpu/float_environment.h"

namespace ropecheck::cpu {
namespace detail {
namespace {

// The OS must save the vector registers on a context switch (XCR0), not only the CPU have them:
// a CPU with AVX-512 under an OS or hypervisor that does not enable ZMM state faults on the first
// AVX-512 instruction. Same probe as Highway's hwy/targets.cc.
std::uint64_t xgetbv0() {
  std::uint32_t eax = 0, edx = 0;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<std::uint64_t>(edx) << 32) | eax;
}

}  // namespace

CpuFeatures probe() {
  CpuFeatures f;
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return f;
  const bool osxsave = (c >> 27) & 1u;
  const bool fma = (c >> 12) & 1u;
  const bool f16c = (c >> 29) & 1u;  // VCVTPH2PS/VCVTPS2PH: the avx2 path's float16
  if (!osxsave) return f;
  const std::uint64_t xcr0 = xgetbv0();
  const bool ymm_state = (xcr0 & 0x6u) == 0x6u;              // SSE + AVX state
  const bool zmm_state = ymm_state && (xcr0 & 0xE0u) == 0xE0u;  // opmask, ZMM_Hi256, Hi16_ZMM
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return f;
  const bool avx2 = (b >> 5) & 1u;
  const bool avx512f = (b >> 16) & 1u, avx512dq = (b >> 17) & 1u, avx512bw = (b >> 30) & 1u,
             avx512vl = (b >> 31) & 1u;
  f.avx2 = ymm_state && avx2 && fma && f16c;
  f.avx512 = zmm_state && f.avx2 && avx512f && avx512dq && avx512bw && avx512vl;
  unsigned a1 = 0, b1 = 0, c1 = 0, d1 = 0;
  if (f.avx512 && __get_cpuid_count(7, 1, &a1, &b1, &c1, &d1)) f.avx512_bf16 = (a1 >> 5) & 1u;
  return f;
}

}  // namespace detail

namespace {
constexpr unsigned kDefaultMxcsr = 0x1F80;  // all exceptions masked, RNE, FTZ = DAZ = 0
constexpr unsigned kStickyFlags = 0x3F;     // the caller's exception flags, kept while inside
}  // namespace

DefaultFloatEnvironment::DefaultFloatEnvironment() {
  const unsigned saved = _mm_getcsr();
  std::memcpy(saved_, &saved, sizeof saved);
  _mm_setcsr(kDefaultMxcsr | (saved & kStickyFlags));
}

DefaultFloatEnvironment::~DefaultFloatEnvironment() {
  unsigned saved = 0;
  std::memcpy(&saved, saved_, sizeof saved);
  _mm_setcsr(saved);
}

}  // namespace ropecheck::cpu
