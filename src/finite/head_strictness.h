// File: head_strictness.h
// Theorem 5.3 in finite precision (proofs/positional-heads.h): are the diagonal and previous-token heads
// still strict after each rotator and dtype (finite_arithmetic.h: inputs, dtypes, layout, what is
// measured and what is certified)?
//
// psi = construction_query(weights 1/K on the K fastest pairs, s) (proofs/positional-heads.h) rounded to
// the dtype; queries psi at positions 1..N; keys psi (diagonal) or R psi (previous-token, rounded
// from the exact rotation). Strict: for every row i and every key j <= i other than the target
// (j = i, resp. i - 1), a_{i,target} > a_{i,j}. Activations: dot_f32_sequential
// (numeric/float32_dot.h) over the chunks where psi is non-zero.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "cpu/path.h"
#include "finite/finite_arithmetic.h"
#include "spectrum/spectrum.h"

namespace ropecheck::finite {

struct HeadStrictness {
  Implementation rotator = Implementation::kernel;
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

// Throws InputError: dtypes empty or f64 (--dtype), N outside [2, 65536] (--rows), a spectrum
// without a rotating pair (--config), K < 1 (--pairs), s not a decimal > 0 (--norm).
HeadConstruction thm_5_3_finite(const std::string& label, const Spectrum& spectrum, bool previous_token,
                                const std::vector<Dtype>& dtypes, const HeadSettings& settings, cpu::Path path);

nlohmann::json to_json(const HeadConstruction& c);

}  // namespace ropecheck::finite
