#include "cpu/path.h"

#include <cpuid.h>

#include <cstdlib>

#include "io/input_error.h"

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
  if (!osxsave) return f;
  const std::uint64_t xcr0 = xgetbv0();
  const bool ymm_state = (xcr0 & 0x6u) == 0x6u;              // SSE + AVX state
  const bool zmm_state = ymm_state && (xcr0 & 0xE0u) == 0xE0u;  // opmask, ZMM_Hi256, Hi16_ZMM
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return f;
  const bool avx2 = (b >> 5) & 1u;
  const bool avx512f = (b >> 16) & 1u, avx512dq = (b >> 17) & 1u, avx512bw = (b >> 30) & 1u,
             avx512vl = (b >> 31) & 1u;
  f.fma = fma;
  f.avx2 = ymm_state && avx2 && fma;
  f.avx512 = zmm_state && f.avx2 && avx512f && avx512dq && avx512bw && avx512vl;
  unsigned a1 = 0, b1 = 0, c1 = 0, d1 = 0;
  if (f.avx512 && __get_cpuid_count(7, 1, &a1, &b1, &c1, &d1)) f.avx512_bf16 = (a1 >> 5) & 1u;
  return f;
}

const CpuFeatures& features() {
  static const CpuFeatures f = probe();
  return f;
}

}  // namespace

std::string path_name(Path p) {
  switch (p) {
    case Path::scalar: return "scalar";
    case Path::avx2: return "avx2";
    case Path::avx512: return "avx512";
    case Path::avx512_bf16: return "avx512-bf16";
  }
  return "unknown";
}

std::vector<Path> available_paths() {
  std::vector<Path> paths{Path::scalar};
  const CpuFeatures& f = features();
  if (f.avx2) paths.push_back(Path::avx2);
  if (f.avx512) paths.push_back(Path::avx512);
  if (f.avx512_bf16) paths.push_back(Path::avx512_bf16);
  return paths;
}

void require_available(Path path, const std::string& input) {
  for (Path p : available_paths())
    if (p == path) return;
  throw InputError(input, "a path this CPU runs", path_name(path));
}

Path parse_path(const std::string& name, const std::string& input) {
  const std::vector<Path> available = available_paths();
  std::string accepted;
  for (Path p : available) accepted += (accepted.empty() ? "" : "|") + path_name(p);
  accepted = "one of the paths this CPU runs (" + accepted + ")";
  for (Path p : {Path::scalar, Path::avx2, Path::avx512, Path::avx512_bf16}) {
    if (name != path_name(p)) continue;
    for (Path q : available)
      if (q == p) return p;
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
