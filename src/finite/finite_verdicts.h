// File: finite_verdicts.h
// Which of the paper's positional constructions survive float32 and bfloat16: each construction is
// run through a rotation implementation (this kernel, kernel/apply_rope.h, or one of the two
// baselines of accuracy/baselines.h) and its activations are dot products accumulated in float32 in
// a fixed order (dot_f32 below); each result stands next to the exact verdict for the same inputs,
// certified in MPFI.
//
// Inputs. A construction's real vectors are rounded once to the dtype (round to nearest even),
// and the exact verdicts are for those rounded inputs, so "exact" and "finite" differ only by the
// arithmetic of the rotation and the dot product, never by the data. Keys that are rotations of
// the query (R^r q) are formed from an MPFI enclosure of the exact rotation of the rounded query and
// rounded once (certified: both endpoints must round alike, else std::logic_error).
//
// Layout: interleaved (chunk k = elements 2k, 2k+1, as rotation/rotation.h), single thread.
// Every path of the kernel computes bit-identical rotations (cpu/path.h), so the verdicts do not
// depend on the path; the results name the one that ran.
//
// Accuracy figures: margins, errors and holds-up-to limits below are measured values of one
// deterministic computation (exhaustive over the stated ranges); the only bounds are the kernel's
// shift-invariance bound (shift_invariance_bound, proved from the ulp contract) and the exact
// verdicts (certified enclosures).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cpu/path.h"
#include "kernel/rope_plan.h"
#include "spectrum/spectrum.h"

namespace ropecheck::finite {

enum class Dtype { f32, bf16 };
// Returns: "f32" or "bf16".
std::string dtype_name(Dtype t);
// Returns: the dtypes `name` names ("f32", "bf16", "both"). Throws InputError(input, ...).
std::vector<Dtype> parse_dtypes(const std::string& name, const std::string& input);

// Who rotates: this kernel, or a baseline (accuracy/baselines.h).
enum class Rotator { kernel, f32_angle, f64_angle };
// Returns: "kernel", "f32-angle", "f64-angle".
std::string rotator_name(Rotator r);
inline constexpr Rotator kAllRotators[] = {Rotator::kernel, Rotator::f32_angle, Rotator::f64_angle};

// Returns: x rounded to the nearest value of dtype t (ties to even), as a float.
float round_to(Dtype t, double x);

// Returns: the rotated tensor [positions.size()][heads][plan.dim()] of `in` (same shape, values
// representable in t) by rotator r in dtype t, as floats (bf16 widened exactly).
// Throws InputError as apply_rope does (shape disagreements).
std::vector<float> rotate(Rotator r, Dtype t, const kernel::RopePlan& plan, std::span<const std::int64_t> positions,
                          std::span<const float> in, std::int64_t heads, cpu::Path path);

// Returns: sum_i x[i] y[i] in float32: each product rounded to float32, then added left to right
// into one float32 accumulator starting at 0 (no FMA: products and sums are formed in double and
// rounded once to float, which equals float arithmetic because double rounding is innocuous for
// one operation when 53 >= 2*24 + 2, and cannot be contracted by the compiler).
float dot_f32(const float* x, const float* y, int n);

// ---- Proposition 3.1: the argmax at distance r ----------------------------------------------
// For a context of r + 1 tokens (positions 0..r) the query q sits at the last position r and every
// key is k = R^r q (the proposition's key); the key at position 0 is r tokens before the query and
// must have the strictly largest activation over the r + 1 keys (a tie counts as a failure).
struct ArgmaxFailure {
  long long r = -1;           // the context distance that fails
  long long position = -1;    // key position whose activation >= the target's (distance r - position)
  float a_target = 0, a_other = 0;
};

struct ArgmaxScan {
  Rotator rotator = Rotator::kernel;
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

ArgmaxConstruction prop_3_1_finite(const std::string& label, const Spectrum& spectrum, const std::vector<Dtype>& dtypes,
                                   const ArgmaxSettings& settings, cpu::Path path);

// ---- Theorem 5.3: diagonal and previous-token heads ----------------------------------------
// psi = construction_query(weights 1/K on the K fastest pairs, s) (proofs/positional-heads.h) rounded to
// the dtype; queries psi at positions 1..N; keys psi (diagonal) or R psi (previous-token, rounded
// from the exact rotation). Strict: for every row i and every key j <= i other than the target
// (j = i, resp. i - 1), a_{i,target} > a_{i,j}.
struct HeadStrictness {
  Rotator rotator = Rotator::kernel;
  Dtype dtype = Dtype::f32;
  bool strict = false;
  double min_margin = 0;       // min over rows and keys of a_{i,target} - a_{i,j} (double of two floats)
  long long min_row = 0, min_key = 0;
  float a_target = 0, a_other = 0;  // at (min_row, min_key)
  long long failing_rows = 0;  // rows with some a_{i,j} >= a_{i,target}
};

struct HeadConstruction {
  std::string label;
  std::string spectrum;
  std::string head;            // "diagonal" or "previous-token"
  int K = 1;
  std::string s = "1";         // ||psi||^2 (decimal)
  long long N = 0;
  std::vector<Dtype> dtypes;
  // Exact: certified min over the offsets of row N of s(1 - c(m)), for each dtype's rounded psi.
  std::vector<bool> exact_strict;
  std::vector<double> exact_margin_lower, exact_margin_upper;
  std::vector<long long> exact_offset;
  std::vector<HeadStrictness> rows;
};

struct HeadSettings {
  long long N = 1024;  // rows 1..N (>= 2)
  int K = 16;          // clamped to the spectrum's rotated pairs
  std::string s = "1";
};

HeadConstruction thm_5_3_finite(const std::string& label, const Spectrum& spectrum, bool previous_token,
                                const std::vector<Dtype>& dtypes, const HeadSettings& settings, cpu::Path path);

// The d = 2, g = 1 witness: cos(710) = 1 - 1.8e-9 (710 / 113 is a convergent of 2 pi) rounds to
// 1.0 in float32, and the kernel's float32 rotation of (1, 0) by 710 returns exactly 1.0 as its
// first component.
struct Cos710 {
  double cos_lower = 0, cos_upper = 0;   // certified enclosure of cos(710), rounded outward
  float cos_f32 = 0;                     // fl32(cos 710)
  float kernel_x = 0, kernel_y = 0;      // kernel f32 rotation of (1, 0) at position 710, d = 2
};
Cos710 cos_710(cpu::Path path);

// ---- Shift invariance -----------------------------------------------------------------------
// a(m, n) = (R^m q) . (R^n k) through a rotator and dot_f32, q and k seeded dyadic vectors rounded
// to the dtype; error(s) = |a(m + s, n + s) - a(m, n)| for s = 0 and 2^e, e = 0..max.
struct ShiftPoint {
  int log2_shift = -1;         // -1: s = 0
  std::int64_t shift = 0;
  float a = 0;                 // a(m + s, n + s)
  double error = 0;            // |a(m+s, n+s) - a(m, n)|
  double error_vs_exact = 0;   // |a(m+s, n+s) - A|, A the exact activation of the rounded inputs
};

struct ShiftSeries {
  Rotator rotator = Rotator::kernel;
  Dtype dtype = Dtype::f32;
  std::vector<ShiftPoint> points;
  double bound = -1;           // kernel only: proved bound on every error (shift_invariance_bound); -1 otherwise
  bool within_bound = true;
  double max_error = 0;
};

struct ShiftInvariance {
  std::string label, spectrum;
  std::int64_t m = 10, n = 3;
  std::uint64_t seed = 0;
  std::vector<double> exact;   // A per dtype (nearest double)
  std::vector<Dtype> dtypes;
  std::vector<ShiftSeries> series;
};

struct ShiftSettings {
  int max_shift_log2 = 40;     // kernel; baselines up to min(this, 31)
  std::int64_t m = 10, n = 3;
  std::uint64_t seed = 1;
};

// Returns: the proved bound on |a(m + s, n + s) - a(m, n)| for this kernel in dtype t, for any m,
// n, s, given the rounded inputs' pair norms (||q_k||, ||k_k|| per chunk k, unchanged by rotation).
// Derivation (apply_rope.h's contract): an output component y~ of a pair P = (x_a, x_b) has
// |y~ - y| <= c max(ulp(y~), 2^-p' ||P||), c = 1/2 + 2^-25 (f32, p' = 24) or 1/2 + 2^-14 (bf16,
// p' = 8), and ulp(y~) <= 2^(1-p') |y~| <= 2^(1-p') (||P|| + |y~ - y|) for normal y~ (inputs with
// pair norms >= 2^-100 keep every output within the normal range or below the floor). Hence
// |y~ - y| <= eps ||P||, eps = c 2^(1-p') / (1 - c 2^(1-p')). For x~, y~ the rotated q and k, per
// chunk k (X_k, Y_k the exact rotated chunks, ||X_k|| = ||q_k||, ||Y~_k|| <= (1 + sqrt2 eps) ||Y_k||):
//   sum over the chunk of |x~_i - x_i| |y~_i| + |x_i| |y~_i - y_i|
//     <= eps ||X_k|| sqrt2 ||Y~_k|| + eps ||Y_k|| sqrt2 ||X_k|| <= (2 sqrt2 eps + 2 eps^2) ||q_k|| ||k_k||,
// so |x~.y~ - x.y| <= (2 sqrt2 eps + 2 eps^2) S, S = sum_k ||q_k|| ||k_k||; the float32 dot (products
// rounded, recursive sum; Higham, Accuracy and Stability, (3.5)) adds at most
// gamma_d sum |x~_i y~_i| <= gamma_d (1 + sqrt2 eps)^2 S, gamma_d = d u / (1 - d u), u = 2^-24.
// Both activations are within B = (2 sqrt2 eps + 2 eps^2 + gamma_d (1 + sqrt2 eps)^2) S of the
// same exact, shift-invariant value, so the shift error is <= 2B, whatever s.
double shift_invariance_bound(Dtype t, std::span<const float> q, std::span<const float> k);

ShiftInvariance shift_invariance(const std::string& label, const Spectrum& spectrum, const std::vector<Dtype>& dtypes,
                                 const ShiftSettings& settings, cpu::Path path);

// ---- JSON -------------------------------------------------------------------------------------
nlohmann::json to_json(const ArgmaxConstruction& c);
nlohmann::json to_json(const HeadConstruction& c);
nlohmann::json to_json(const Cos710& c);
nlohmann::json to_json(const ShiftInvariance& s);

}  // namespace ropecheck::finite
