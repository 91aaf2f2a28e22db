// File: argmax_at_distance.h
// Proposition 3.1 in finite precision (proofs/prop-3.1.h): the argmax at distance r, run through
// each rotator and dtype (finite_arithmetic.h: inputs, dtypes, layout, what is measured and what is
// certified).
//
// For a context of r + 1 tokens (positions 0..r) the query q sits at the last position r and every
// key is k = R^r q (the proposition's key); the key at position 0 is r tokens before the query and
// must have the strictly largest activation over the r + 1 keys (a tie counts as a failure).
// Activations: dot_f32_sequential (numeric/float32_dot.h).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "cpu/path.h"
#include "finite/finite_arithmetic.h"
#include "spectrum/spectrum.h"

namespace ropecheck::finite {

struct ArgmaxFailure {
  long long r = -1;           // the context distance that fails
  long long position = -1;    // key position whose activation >= the target's (distance r - position)
  float a_target = 0, a_other = 0;
};

struct ArgmaxScan {
  Implementation rotator = Implementation::kernel;
  Dtype dtype = Dtype::f32;
  long long exhaustive_limit = 0;  // every r in [0, limit] checked against every key position
  long long holds_up_to = -1;      // largest r with every r' <= r passing (== limit when none fails)
  ArgmaxFailure first_failure;     // the smallest failing r (r == -1: none up to the limit)
  // Probes beyond the limit: r = 2^e, keys only within `probe_window` positions of the target and
  // of the query (sampled: a failure is a witness, a pass proves nothing about other keys).
  long long probe_window = 0;
  std::vector<long long> probed;   // the r probed
  ArgmaxFailure first_probe_failure;
  double min_margin = 0;           // smallest a_target - a_other seen (exhaustive part), in double
};

struct ExactArgmax {
  long long limit = 0;
  bool holds = false;        // certified: min over offsets 1..limit of a_r - a_j > 0
  double margin_lower = 0;   // certified bounds of min_{1 <= m <= limit} (a_r - a_{r-m}), rounded outward
  double margin_upper = 0;
  long long runner_up_offset = 0;
};

struct ArgmaxConstruction {
  std::string label;         // e.g. "gemma-7b" or "d=2 (g=1)"
  std::string spectrum;      // Spectrum::describe()
  std::uint64_t seed = 0, stream = 0;
  std::vector<Dtype> dtypes;
  std::vector<ExactArgmax> exact;  // one per dtype (the rounded query differs)
  std::vector<ArgmaxScan> scans;   // rotator x dtype
};

struct ArgmaxSettings {
  long long max_distance = 1024;  // exhaustive limit (>= 1)
  int max_shift_log2 = 40;        // probes r = 2^e up to this (baselines: up to min(this, 31))
  long long probe_window = 64;
  std::uint64_t seed = 1;         // the query: random_dyadic_vector(d, seed, kProp31QueryStream)
};

// Throws InputError: dtypes empty or f64 (--dtype), max_distance outside [1, 2^20]
// (--max-distance), max_shift_log2 outside [0, 40] (--max-shift-log2), probe_window < 1.
ArgmaxConstruction prop_3_1_finite(const std::string& label, const Spectrum& spectrum, const std::vector<Dtype>& dtypes,
                                   const ArgmaxSettings& settings, cpu::Path path);

nlohmann::json to_json(const ArgmaxConstruction& c);

}  // namespace ropecheck::finite
