#include "report/run_info.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>

#include "certificate/environment.h"
#include "cpu/path.h"
#include "report/child_process.h"

// Set by src/CMakeLists.txt; the fallbacks keep the file compiling outside that build.
#ifndef ROPECHECK_SOURCE_DIR
#define ROPECHECK_SOURCE_DIR ""
#endif
#ifndef ROPECHECK_BUILD_TYPE
#define ROPECHECK_BUILD_TYPE "unknown"
#endif
#ifndef ROPECHECK_CXX_FLAGS
#define ROPECHECK_CXX_FLAGS "unknown"
#endif
#ifndef ROPECHECK_CXX_COMPILER_ID
#define ROPECHECK_CXX_COMPILER_ID "unknown"
#endif
#ifndef ROPECHECK_CXX_COMPILER_VERSION
#define ROPECHECK_CXX_COMPILER_VERSION __VERSION__
#endif
#ifndef ROPECHECK_SANITIZE
#define ROPECHECK_SANITIZE 0
#endif

namespace ropecheck::report {

namespace {

// git, dpkg-query and gnuplot answer in well under a second; 20 s covers a cold, shared machine.
constexpr double kToolSeconds = 20;

std::string trim(const std::string& s) {
  const std::size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

bool is_commit(const std::string& s) {
  if (s.size() != 40) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// The value of `-ffp-contract=` last given in the flags (the one GCC uses), "compiler default" if none.
std::string fp_contract(const std::string& flags) {
  const std::string key = "-ffp-contract=";
  const std::size_t p = flags.rfind(key);
  if (p == std::string::npos) return "compiler default";
  const std::size_t a = p + key.size();
  return flags.substr(a, flags.find_first_of(" \t", a) - a);
}

// {package: version or "not installed"}, one dpkg-query for all; every value "unknown" when
// dpkg-query cannot be run (not a Debian system).
std::map<std::string, std::string> package_versions(const std::vector<std::string>& packages) {
  std::map<std::string, std::string> versions;
  std::vector<std::string> argv = {"dpkg-query", "-W", "-f=${Package}\t${Status}\t${Version}\n"};
  argv.insert(argv.end(), packages.begin(), packages.end());
  // Exit status 1 only says some package is unknown to dpkg; the lines of the others are valid.
  const ChildOutcome run = run_child(argv, "", "", kToolSeconds);
  const bool answered = run.started && !run.timed_out && (run.exit_code == 0 || run.exit_code == 1);
  for (const std::string& p : packages) versions[p] = answered ? "not installed" : "unknown";
  if (!answered) return versions;
  std::istringstream lines(run.out);
  std::string line;
  while (std::getline(lines, line)) {
    const std::size_t t1 = line.find('\t'), t2 = line.find('\t', t1 + 1);
    if (t1 == std::string::npos || t2 == std::string::npos) continue;
    const std::string name = line.substr(0, t1);
    auto it = versions.find(name);
    if (it != versions.end() && line.substr(t1 + 1, t2 - t1 - 1) == "install ok installed") it->second = line.substr(t2 + 1);
  }
  return versions;
}

std::string os_pretty_name() {
  std::ifstream in("/etc/os-release");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("PRETTY_NAME=", 0) != 0) continue;
    std::string v = trim(line.substr(12));
    if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) v = v.substr(1, v.size() - 2);
    return v.empty() ? "unknown" : v;
  }
  return "unknown";
}

std::string kernel_release() {
  struct utsname u;
  if (::uname(&u) != 0) return "unknown";
  return u.release;
}

// The first processor's "model name" and "flags" lines of /proc/cpuinfo.
nlohmann::json cpu_info() {
  std::string model = "unknown", flags;
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon));
    if (key == "model name" && model == "unknown") model = trim(line.substr(colon + 1));
    if (key == "flags" && flags.empty()) flags = " " + trim(line.substr(colon + 1)) + " ";
  }
  nlohmann::json present = nlohmann::json::array();
  for (const char* f : {"sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512_bf16"})
    if (flags.find(std::string(" ") + f + " ") != std::string::npos) present.push_back(f);
  const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  return {{"model", model}, {"logical_cpus", cpus > 0 ? cpus : 0}, {"flags", present}};
}

std::string gnuplot_version() {
  const ChildOutcome run = run_child({"gnuplot", "--version"}, "", "", kToolSeconds);
  if (!run.started) return "not found";
  const std::string v = trim(run.out);
  return run.ok() && !v.empty() ? v : "unknown";
}

}  // namespace

nlohmann::json source_info() {
  const std::string dir = ROPECHECK_SOURCE_DIR;
  std::string commit = "unknown";
  nlohmann::json dirty = "unknown";
  if (!dir.empty()) {
    const ChildOutcome head = run_child({"git", "-C", dir, "rev-parse", "HEAD"}, "", "", kToolSeconds);
    if (head.ok() && is_commit(trim(head.out))) commit = trim(head.out);
    // --no-optional-locks: a status must not write the index while someone else commits there.
    // Untracked files (new reports, scratch files) are not a modification of the source.
    const ChildOutcome status =
        run_child({"git", "--no-optional-locks", "-C", dir, "status", "--porcelain", "--untracked-files=no"}, "", "", kToolSeconds);
    if (status.ok() && commit != "unknown") dirty = !trim(status.out).empty();
  }
#ifdef __FAST_MATH__
  constexpr bool fast_math = true;
#else
  constexpr bool fast_math = false;
#endif
  const std::string flags = ROPECHECK_CXX_FLAGS;
  return {{"commit", commit},
          {"dirty", dirty},
          {"source_dir", dir.empty() ? std::string("unknown") : dir},
          {"build_type", std::string(ROPECHECK_BUILD_TYPE).empty() ? std::string("unknown") : std::string(ROPECHECK_BUILD_TYPE)},
          {"compiler", ROPECHECK_CXX_COMPILER_ID},
          {"compiler_version", ROPECHECK_CXX_COMPILER_VERSION},
          {"cxx_flags", flags},
          {"fast_math", fast_math},
          {"fp_contract", fp_contract(flags)},
          {"sanitizers", ROPECHECK_SANITIZE ? "address,undefined" : ""}};
}

const std::vector<std::string>& dependency_packages() {
  // scripts/setup's `packages=( ... )`, read by src/CMakeLists.txt at configure time.
  static const std::vector<std::string> packages = [] {
    std::vector<std::string> words;
    std::istringstream in(ROPECHECK_SETUP_PACKAGES);
    for (std::string w; in >> w;) words.push_back(w);
    return words;
  }();
  return packages;
}

nlohmann::json machine_environment() {
  const std::map<std::string, std::string> versions = package_versions(dependency_packages());
  nlohmann::json packages = nlohmann::json::object();
  for (const std::string& p : dependency_packages()) packages[p] = versions.at(p);

  nlohmann::json libraries = arithmetic_environment();
  libraries["rapidcheck"] = versions.at("librapidcheck-dev");

  nlohmann::json available = nlohmann::json::array();
  for (cpu::Path p : cpu::available_paths()) available.push_back(cpu::path_name(p));
  // default_path() throws InputError for a bad ROPECHECK_KERNEL: bad input, let it reach the user.
  const std::string default_path = cpu::path_name(cpu::default_path());

  return {{"os", os_pretty_name()},
          {"kernel", kernel_release()},
          {"packages", packages},
          {"libraries", libraries},
          {"cpu", cpu_info()},
          {"kernel_paths", {{"available", available}, {"default", default_path}}},
          {"gnuplot", gnuplot_version()}};
}

}  // namespace ropecheck::report
