// File: detail/mpfr_workers.h
// split_tokens for work that runs MPFR (the reference in audit and kernel-check): at most
// `threads` workers (never more than tokens), fn(worker, t0, t1). MPFR keeps per-thread caches
// (pi, the sin/cos argument reduction); each worker thread frees its own before it ends, or they
// leak (LeakSanitizer reports them). The calling thread keeps its caches.
#pragma once

#include <mpfr.h>

#include <algorithm>
#include <cstdint>

#include "cpu/split_tokens.h"

namespace ropecheck::accuracy::detail {

template <typename Fn>
void split_tokens_mpfr(std::int64_t tokens, int threads, Fn&& fn) {
  const std::int64_t workers = std::max<std::int64_t>(1, std::min<std::int64_t>(threads, tokens));
  cpu::split_tokens(tokens, workers, [&](std::int64_t t0, std::int64_t t1, std::int64_t worker) {
    struct ReleaseCaches {
      bool worker_thread;
      ~ReleaseCaches() {
        if (worker_thread) mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);
      }
    } release{worker != 0};
    fn(static_cast<int>(worker), t0, t1);
  });
}

}  // namespace ropecheck::accuracy::detail
