// File: replay.h
// `ropecheck replay FILE...`: every counterexample file re-checked by value in certified
// arithmetic, whatever target wrote it.
#pragma once

#include <string>

#include "adversarial/certify.h"

namespace ropecheck::adversarial {

struct ReplayOutcome {
  std::string file;
  std::string target;   // "channel", "band", "kernel"
  ReplayVerdict verdict = ReplayVerdict::inconclusive;
  std::string detail;   // one line: the certified quantities that decided
};

// Re-checks one file: channel/band through check_attack (certify.h), kernel through
// replay_kernel_counterexample (accuracy/kernel_counterexample.h). Throws InputError naming the file and field for a
// malformed file (read_json_file, counterexample_from_json).
ReplayOutcome replay_file(const std::string& path);

}  // namespace ropecheck::adversarial
