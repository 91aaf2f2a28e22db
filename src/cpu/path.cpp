#include "cpu/path.h"

#include <cstdlib>

#include "cpu/detail/probe.h"
#include "io/input_error.h"
#include "io/named_values.h"

namespace ropecheck::cpu {
namespace {

const detail::CpuFeatures& features() {
  static const detail::CpuFeatures f = detail::probe();
  return f;
}

// The probe of each path: what kPaths' `needs` says, read off CPUID and XCR0.
bool runs(Path p) {
  const detail::CpuFeatures& f = features();
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
