// File: shrink.h
// Shrinking a found counterexample toward a simple one: fewer non-zero chunks and simpler numbers
// (components rounded to 1, 2, 3 significant decimal digits, then to a power of two), accepting a
// step only when the guided scan still finds, and MPFI still certifies, a break within max_context.
// The context may move (usually it does little); the shrunk case is re-certified from scratch.
#pragma once

#include "adversarial/scan.h"

namespace ropecheck::adversarial {

struct ShrinkResult {
  Head head;
  ScanResult scan;  // the certified break of the shrunk head
  int steps = 0;    // accepted simplifications
  int tried = 0;
};

// `found` is the head's own certified break (scan_and_certify(head, max_context, false)), kept
// when no simplification survives. Preconditions: found.found.
ShrinkResult shrink(const Head& head, ScanResult found, long long max_context, int max_tries = 64);

}  // namespace ropecheck::adversarial
