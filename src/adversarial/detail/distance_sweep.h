// File: detail/distance_sweep.h
// Certified activations of a head at distances 0, 1, 2, ... in order (a key s tokens before the
// query: a(s) = q^T R^(-s) k = sum over chunks of cos(s g) u - sin(s g) w, attention/activation.h), in raw MPFI at an explicit
// precision (no Boost temporaries in the inner loop: one sweep of 10^6 distances is ~10^7 interval
// operations).
//
// cos/sin(s g) per active chunk come from a rotation recurrence
//   c_{s+1} = c_s C - s_s S,  s_{s+1} = s_s C + c_s S,   C = cos g, S = sin g (enclosures),
// restarted from a direct mpfi_cos/mpfi_sin of s*g every B = clamp(floor(1/(4 g)), 1, 4096) steps.
// Why it stays tight: each step multiplies the width by at most |C| + |S| <= 1 + g and adds the
// rounding (~2^-bits), so over B <= 1/(4g) steps the width grows by at most e^(1/4). The result is
// intersected with [-1, 1]. g = 0 gives C = 1, S = 0 exactly: every distance gets identical
// endpoints (the position-free certificate relies on it).
#pragma once

#include <mpfi.h>

#include <memory>
#include <vector>

#include "adversarial/head.h"
#include "numeric/mp_handles.h"

namespace ropecheck::adversarial::detail {

class DistanceSweep {
 public:
  // types: the types whose activations are wanted (keys of `head`). bits >= 64.
  DistanceSweep(const Head& head, const std::vector<TypeId>& types, unsigned bits);

  // Moves to distance s (>= the current one; 0 at start) and returns the enclosure of the
  // activation of types[i] at that distance (valid until the next call).
  void advance_to(long long s);
  mpfi_srcptr activation(size_t i);
  // The activation of types[i] at the current distance, exponentiated (e^a).
  mpfi_srcptr exp_activation(size_t i);
  long long distance() const { return s_; }
  unsigned bits() const { return bits_; }

 private:
  struct Chunk {
    std::unique_ptr<Mpfi> g, C, S, c, s;
    long long block = 1, last_direct = 0;
  };
  void direct(Chunk& ch, long long s);
  void step(Chunk& ch);

  unsigned bits_;
  long long s_ = 0;
  std::vector<Chunk> chunks_;
  std::vector<std::unique_ptr<Mpfi>> u_, w_;   // [type * chunks + chunk]
  std::vector<std::unique_ptr<Mpfi>> a_, e_;   // per type
  std::vector<char> a_valid_, e_valid_;
  Mpfi t1_, t2_, unit_;
};

}  // namespace ropecheck::adversarial::detail
