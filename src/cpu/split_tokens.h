// File: split_tokens.h
// Runs fn(t0, t1, worker) over `workers` contiguous token ranges, worker 0 on the calling thread.
// Each token is computed by exactly one worker with the same arithmetic, so the result does not
// depend on the split. An exception in any worker is rethrown on the calling thread after every
// worker has finished (the first in worker order); if a thread cannot be started, the ones started
// are joined before the exception leaves (a joinable std::thread destroyed by unwinding would
// std::terminate).
#pragma once

#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

namespace ropecheck::cpu {

template <typename Fn>
void split_tokens(std::int64_t tokens, std::int64_t workers, Fn&& fn) {
  std::vector<std::exception_ptr> errors(static_cast<size_t>(workers));
  auto guarded = [&](std::int64_t t0, std::int64_t t1, std::int64_t worker) {
    try {
      fn(t0, t1, worker);
    } catch (...) {
      errors[static_cast<size_t>(worker)] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  try {
    for (std::int64_t i = 1; i < workers; ++i) pool.emplace_back(guarded, tokens * i / workers, tokens * (i + 1) / workers, i);
  } catch (...) {
    for (auto& th : pool) th.join();
    throw;
  }
  guarded(std::int64_t{0}, tokens / workers, std::int64_t{0});
  for (auto& th : pool) th.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace ropecheck::cpu
