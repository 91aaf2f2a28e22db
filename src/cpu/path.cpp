#include "cpu/path.h"

#include <cpuid.h>

#include <cstdlib>

#include "io/input_error.h"
#include "io/named_values.h"

namespace ropecheck::cpu {
namespace {

struct CpuFeatures {
  bool avx2 = false, fma = false, avx512 = false, avx512_bf16 = false;
};

// The OS must save the vector registers on a context switch (XCR0), not only the CPU have them:
// a CPU with AVX-512 under an OS or hypervisor that does not enable ZMM state faults on the first
// AVX-512 instruction. Same probe as Highway's hwy/targets.cc.
std::uint64_t xgetbv0() {
  std::uint32_t eax = 0, edx = 0;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<std::uint64_t>(edx) << 32) | eax;
}

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
  f.fma = fma;
  f.avx2 = ymm_state && avx2 && fma && f16c;
  f.avx512 = zmm_state && f.avx2 && avx512f && avx512dq && avx512bw && avx512vl;
  unsigned a1 = 0, b1 = 0, c1 = 0, d1 = 0;
  if (f.avx512 && __get_cpuid_count(7, 1, &a1, &b1, &c1, &d1)) f.avx512_bf16 = (a1 >> 5) & 1u;
  return f;
}

const CpuFeatures& features() {
  static const CpuFeatures f = probe();
  return f;
}

// The probe of each path: what kPaths' `needs` says, read off CPUID and XCR0.
bool runs(Path p) {
  const CpuFeatures& f = features();
  switch (p) {
    case Path::scalar: return true;
    case Path::avx2: return f.avx2;
    case Path::avx512: return f.avx512;
    case Path::avx512_bf16: return f.avx512_bf16;
  }
  return false;
}

}  // namespace

std::string path_name(Path p) { return name_in(kPaths, p); }

std::vector<Path> all_paths() { return values_in(kPaths); }

std::vector<Path> available_paths() {
  std::vector<Path> paths;
  for (Path p : all_paths())
    if (runs(p)) paths.push_back(p);
  return paths;
}

void require_available(Path path, const std::string& input) {
  if (!runs(path)) throw InputError(input, "a path this CPU runs", path_name(path));
}

Path parse_any_path(const std::string& name, const std::string& input) { return parse_name_in(kPaths, name, input); }

Path parse_path(const std::string& name, const std::string& input) {
  std::string runnable;
  for (Path p : available_paths()) runnable += (runnable.empty() ? "" : "|") + path_name(p);
  const std::string accepted = "one of the paths this CPU runs (" + runnable + ")";
  for (const PathInfo& i : kPaths) {
    if (name != i.name) continue;
    if (runs(i.value)) return i.value;
    throw InputError(input, accepted, name + ", which this CPU lacks");
  }
  throw InputError(input, accepted, name);
}

Path default_path() {
  if (const char* forced = std::getenv("ROPECHECK_KERNEL"); forced != nullptr && *forced != '\0')
    return parse_path(forced, "ROPECHECK_KERNEL");
  return available_paths().back();
}

}  // namespace ropecheck::cpu
