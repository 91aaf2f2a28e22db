// File: dyadic_vector.h
// Seeded random vectors whose components are exact in every working type: uniform in [-1, 1),
// multiples of 2^-52 (CounterRng::uniform_dyadic), so float64, MPFR and MPFI all hold the same
// numbers and a computation can be compared across types on identical inputs.
#pragma once

#include <cstdint>

#include "random/counter_rng.h"
#include "rotation/rotation.h"

namespace ropecheck {

// Returns: a d-vector whose component i is CounterRng(seed, stream).uniform_dyadic(i).
template <Scalar T>
Vector<T> random_dyadic_vector(int d, std::uint64_t seed, std::uint64_t stream) {
  const CounterRng rng(seed, stream);
  Vector<T> v(d);
  for (int i = 0; i < d; ++i) v[i] = T(rng.uniform_dyadic(static_cast<std::uint64_t>(i)));
  return v;
}

}  // namespace ropecheck
