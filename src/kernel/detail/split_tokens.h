// File: detail/split_tokens.h
// Runs fn(t0, t1, worker) over `workers` contiguous token ranges, worker 0 on the calling thread.
// Each token is computed by exactly one worker with the same arithmetic, so the result does not
// depend on the split. If a thread cannot be started, the ones started are joined before the
// exception leaves (a joinable std::thread destroyed by unwinding would std::terminate).
#pragma once

#include <cstdint>
#include <thread>
#include <vector>

namespace ropecheck::kernel::detail {

template <typename Fn>
void split_tokens(std::int64_t tokens, std::int64_t workers, Fn&& fn) {
  std::vector<std::thread> pool;
  try {
    for (std::int64_t i = 1; i < workers; ++i) pool.emplace_back(fn, tokens * i / workers, tokens * (i + 1) / workers, i);
  } catch (...) {
    for (auto& th : pool) th.join();
    throw;
  }
  fn(std::int64_t{0}, tokens / workers, std::int64_t{0});
  for (auto& th : pool) th.join();
}

}  // namespace ropecheck::kernel::detail
