// File: rotation.h
// The RoPE rotation R^n: chunk k (components 2k, 2k+1 of a vector; which memory layout a kernel
// uses does not matter here) is rotated by the angle n*g_k, rho(n g_k) = [[c, -s], [s, c]].
// Generic over float, double, Real and Interval (numeric/scalar.h). The angle is formed in T as
// T(n)*g_k with n an exact integer (exact in Real/Interval while |n| < 2^precision), and sin/cos
// are taken of that angle: for Real a correctly rounded sin_cos, for Interval an enclosure.
#pragma once

#include <Eigen/Core>
#include <boost/multiprecision/eigen.hpp>

#include <cstdint>
#include <vector>

#include "numeric/scalar.h"

namespace ropecheck {

template <Scalar T>
using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <Scalar T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;

// Returns: the angle n*g in T.
template <Scalar T>
T rotation_angle(std::int64_t n, const T& g) {
  if constexpr (std::is_floating_point_v<T>) return static_cast<T>(n) * g;
  else return T(T(static_cast<long long>(n)) * g);
}

// Returns: rho(phi) applied to the chunk (x, y), given c = cos(phi), s = sin(phi).
template <Scalar T>
void rotate_chunk(const T& x, const T& y, const T& c, const T& s, T& out_x, T& out_y) {
  out_x = T(c * x - s * y);
  out_y = T(s * x + c * y);
}

// Returns: R^n v for frequencies g (one per chunk). Preconditions: v.size() == 2 * g.size().
template <Scalar T>
Vector<T> rotate(const Vector<T>& v, std::int64_t n, const std::vector<T>& g) {
  Vector<T> out(v.size());
  T c, s;
  for (size_t k = 0; k < g.size(); ++k) {
    sin_cos(rotation_angle(n, g[k]), s, c);
    rotate_chunk(v[2 * k], v[2 * k + 1], c, s, out[2 * k], out[2 * k + 1]);
  }
  return out;
}

// Returns: the squared Euclidean norm of v (R^n preserves it).
template <Scalar T>
T squared_norm(const Vector<T>& v) {
  T sum(0);
  for (Eigen::Index i = 0; i < v.size(); ++i) sum += T(v[i] * v[i]);
  return sum;
}

}  // namespace ropecheck
