// The main of a fuzz harness outside libFuzzer (the Release and sanitize builds, ctest
// fuzz.corpus.<target>): runs every file given, and every regular file of every directory given
// (not recursively, in name order), through LLVMFuzzerTestOneInput once, printing each file's name
// before it runs, so that the last name printed before a crash or a sanitizer report is its input.
// Exit 0 when every file ran; 1 when there was no file at all (a corpus folder gone missing must not
// pass) or one could not be read. Usage: ropecheck_fuzz_replay_<target> FILE_OR_DIR...
// As libFuzzer's -rss_limit_mb / -malloc_limit_mb do for scripts/fuzz, a single allocation above
// kMemoryLimit is a failure (an oom-* reproducer must fail here too, not page the machine to death):
// under AddressSanitizer through its malloc hook, else through the address-space limit.
#include <sys/resource.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define ROPECHECK_REPLAY_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ROPECHECK_REPLAY_ASAN 1
#endif
#endif
#ifdef ROPECHECK_REPLAY_ASAN
// The sanitizer runtimes' (GCC's and clang's) hook, declared in clang's sanitizer/allocator_interface.h only.
extern "C" int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void*, std::size_t),
                                                         void (*free_hook)(const volatile void*));
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

constexpr std::size_t kMemoryLimit = std::size_t{2} << 30;  // scripts/fuzz's -rss_limit_mb=2048

#ifdef ROPECHECK_REPLAY_ASAN
void malloc_hook(const volatile void*, std::size_t size) {
  if (size <= kMemoryLimit) return;
  std::fprintf(stderr, "replay: out-of-memory (malloc(%zu) above the %zu MB limit)\n", size, kMemoryLimit >> 20);
  std::abort();
}
void free_hook(const volatile void*) {}
#endif

void limit_memory() {
#ifdef ROPECHECK_REPLAY_ASAN
  __sanitizer_install_malloc_and_free_hooks(malloc_hook, free_hook);
#else
  // The whole address space, with room for the program itself beside one allocation at the limit.
  const rlimit limit{2 * kMemoryLimit, 2 * kMemoryLimit};
  setrlimit(RLIMIT_AS, &limit);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  limit_memory();
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    std::error_code ec;
    if (fs::is_directory(argv[i], ec)) {
      std::vector<fs::path> in_dir;
      for (const fs::directory_entry& e : fs::directory_iterator(argv[i]))
        if (e.is_regular_file()) in_dir.push_back(e.path());
      std::sort(in_dir.begin(), in_dir.end());
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else {
      files.emplace_back(argv[i]);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "%s: no corpus file in the arguments (usage: %s FILE_OR_DIR...)\n", argv[0], argv[0]);
    return 1;
  }
  for (const fs::path& f : files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "%s: cannot read %s\n", argv[0], f.c_str());
      return 1;
    }
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::printf("%s (%zu bytes)\n", f.c_str(), bytes.size());
    std::fflush(stdout);
    // A copy of exactly `size` bytes, as libFuzzer passes it: reading past the end is an ASan report.
    std::vector<std::uint8_t> data(bytes.begin(), bytes.end());
    LLVMFuzzerTestOneInput(data.data(), data.size());
  }
  std::printf("%zu file(s) ran\n", files.size());
  return 0;
}
