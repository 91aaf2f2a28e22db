// File: experiment.h
// What a Monte Carlo run computes: the experiment, its series (one curve of a figure each), the
// distances, the trials, the seed and the arithmetic. Everything a result depends on is here and
// is written into every partial and result file; nothing else (thread count, shard split, machine)
// can change a result bit.
//
// Activation. Query at position p_q, key at position p_k (p_q - p_k = r, the distance), both rotated:
//     a = (R^{p_q} q)^T (R^{p_k} k) / d = q^T R^{-r} k / d = (1/d) sum_k (c_k u_k - s_k w_k),
// with c_k, s_k = cos, sin(r g_k) and the pair products of attention/activation.h,
// u_k = q_a k_a + q_b k_b, w_k = q_b k_a - q_a k_b over the pair (a, b) = (2k, 2k+1). The paper's
// q^T rho(g)^{j-i} k with the query later (i > j).
//
// Experiments (defaults: theta 1e4, d = 256 -- the paper's second run is --dim 128 -- distances
// 0..5000):
//   fig2a     q = k = (1, ..., 1), one deterministic "trial": a(r) = (2/d) sum_k cos(r g_k).
//   fig2b     fresh q, k ~ N(0, I_d) for every (distance, trial).
//   fig9      one q, k ~ N(0, I_d) per trial (a "draw"), evaluated at every distance.
//   fig8      Random RoPE: per trial, positions p_0 < ... < p_{n-1} uniform without replacement
//             from [0, L), sorted; index distance r uses the gap p_r - p_0. Series: every L in
//             --fig8-L (default n, 2n, 4n, 8n with n = 1000) x vectors {ones, gaussian} (one q, k
//             per trial).
//   variance  as fig2b but unnormalised: x(r) = q^T R^{-r} k, whose law is the same for every r:
//             variance d and kurtosis 3 + 6/d exactly (a sum of d products of independent normals).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "numeric/dtype.h"
#include "spectrum/spectrum.h"

namespace ropecheck::montecarlo {

// The version of the Monte Carlo files (partial.h, analysis.h), both of which hold the params:
//   2  each series' spectrum in the schema of spectrum/spectrum_json.h (written);
//   1  the spectrum as {dim, theta, variant, fraction, scaling: {kind, factor, low_freq_factor,
//      high_freq_factor, original_context}, describe} (read only: files written before stay usable).
inline constexpr int kFileVersion = 2;

enum class Experiment { fig2a, fig2b, fig9, fig8, variance };
enum class Vectors { ones, gaussian };

std::string experiment_name(Experiment e);
// Throws InputError("--experiment", the names, text).
Experiment parse_experiment(const std::string& text);
// The arithmetic of a run is a Dtype (numeric/dtype.h): f64, or the kernel's f32 or bf16.
// Returns: the dtype `text` names (every dtype). Throws InputError("--arith", "f64, f32 or bf16", text).
Dtype parse_arith(const std::string& text);

struct SeriesSpec {
  std::string label;        // e.g. "d=256", "L=2000 gaussian"
  std::string spectrum_name;  // the configuration name or "custom" (resolve())
  Spectrum spectrum;
  Vectors vectors = Vectors::gaussian;
  std::int64_t L = 0;       // fig8 only: the position range [0, L)
  std::int64_t trials = 0;  // fig2a: 1 (deterministic)
  std::uint32_t code = 0;   // the series' stream code (streams.h), unique within the run
};

struct Params {
  Experiment experiment = Experiment::fig2b;
  Dtype arith = Dtype::f64;
  std::uint64_t seed = 1;
  std::int64_t max_distance = 0;  // distances 0..max_distance (fig8: n - 1)
  std::int64_t fig8_n = 0;        // fig8 only
  std::int64_t base_position = 0; // f32/bf16: the key's position (query at base + distance)
  double level = 0.999;           // confidence level of the per-distance intervals
  double alpha = 0.001;           // level of every test
  std::vector<SeriesSpec> series;

  // The window of "near" and "far" distances of the two-sample test: [0, round(R/100)] and
  // [ceil(0.8 R), R], R = max_distance ([0, 50] and [4000, 5000] for R = 5000).
  std::int64_t near_end() const;
  std::int64_t far_begin() const;
  bool deterministic() const;  // fig2a: no randomness, one trial

  // Canonical JSON (sorted keys, exact decimal/hex values): equal params, equal text. `version`:
  // kFileVersion, or 1 for the form version-1 files hold (to check their round trip).
  nlohmann::json to_json(int version = kFileVersion) const;
  // Returns: the params to_json(version) wrote, read from file `input`. Throws InputError naming the
  // file and the field (io/json_fields.h: "f.json: params.series[0].trials") when a field is missing,
  // unknown, has the wrong type or is out of range, when the params are not exactly what
  // to_json(version) writes for the values they name (an edit), and for a version other than 1 and
  // kFileVersion.
  static Params from_json(const nlohmann::json& j, const std::string& input, int version = kFileVersion);
};

// Returns: the default trials for an experiment with head dimension d: enough that the standard
// error of each per-distance mean of a (variance 1/d for Gaussian q, k) is below 1e-3 with margin:
// ceil(1.1 * 10^6 / d) (the 1.1 covers the sampling fluctuation of the per-distance standard
// deviation: its relative sd is sqrt(2/T) ~ 2%, and the largest of 5001 is ~4 sd above).
std::int64_t default_trials(int d);

}  // namespace ropecheck::montecarlo
