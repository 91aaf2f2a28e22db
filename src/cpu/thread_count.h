// File: thread_count.h
// The thread counts every surface accepts: the CLI's --threads, the C ABI, Python's threads=, the
// kernel's KernelOptions and Monte Carlo's workers, all [1, kMaxThreads]. The bound is far above
// any core count this code runs on, and keeps a garbage count from asking for millions of threads.
#pragma once

#include <string>

#include "io/input_error.h"

namespace ropecheck::cpu {

inline constexpr int kMaxThreads = 256;

// Returns: "an integer in [1, 256]", the accepted range as messages and help texts write it.
// (Appended, not "literal" + std::string: GCC 12 warns, falsely, -Wstringop-overread on that form here.)
inline std::string thread_count_range() {
  std::string range = "an integer in [1, ";
  range += std::to_string(kMaxThreads);
  range += "]";
  return range;
}

// Throws InputError(input, thread_count_range(), threads) unless threads is in [1, kMaxThreads].
inline void check_thread_count(long long threads, const std::string& input) {
  if (threads < 1 || threads > kMaxThreads) throw InputError(input, thread_count_range(), std::to_string(threads));
}

}  // namespace ropecheck::cpu
