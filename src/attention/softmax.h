// File: softmax.h
// Softmax and causal attention in log-sum-exp form: alpha_j = exp(a_j - L), with
// L = m + log(sum_l exp(a_l - m)). The identity holds for any real m; m = the largest activation
// keeps every exp(.) <= 1 so nothing overflows at any precision. For an Interval row m is a point
// (the largest midpoint), so the shift adds no width and each alpha_j encloses the exact value.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "attention/activation.h"

namespace ropecheck {

// Returns: log(sum_j exp(a_j)). Preconditions: a non-empty.
template <Scalar T>
T log_sum_exp(const Vector<T>& a) {
  if (a.size() == 0) throw std::invalid_argument("log_sum_exp of an empty row");
  // The shift m is a point of the working type; for intervals the largest midpoint.
  T m;
  if constexpr (is_interval_v<T>) {
    Real best = midpoint(a[0]);
    for (Eigen::Index j = 1; j < a.size(); ++j) {
      Real mj = midpoint(a[j]);
      if (mj > best) best = mj;
    }
    m = T(best);
  } else {
    m = a[0];
    for (Eigen::Index j = 1; j < a.size(); ++j)
      if (a[j] > m) m = a[j];
  }
  T sum(0);
  for (Eigen::Index j = 0; j < a.size(); ++j) {
    if constexpr (std::is_floating_point_v<T>) sum += std::exp(a[j] - m);
    else sum += T(exp(T(a[j] - m)));
  }
  if constexpr (std::is_floating_point_v<T>) return m + std::log(sum);
  else return T(m + log(sum));
}

// Returns: softmax(a). Preconditions: a non-empty.
template <Scalar T>
Vector<T> softmax(const Vector<T>& a) {
  const T lse = log_sum_exp(a);
  Vector<T> alpha(a.size());
  for (Eigen::Index j = 0; j < a.size(); ++j) {
    if constexpr (std::is_floating_point_v<T>) alpha[j] = std::exp(a[j] - lse);
    else alpha[j] = T(exp(T(a[j] - lse)));
  }
  return alpha;
}

// Returns: the causal activation matrix A (n x n): A(i, j) = q_i^T R^(p_j - p_i) k_j for j <= i and
// 0 above the diagonal, for query rows Q, key rows K (n x d) at positions p.
template <Scalar T>
Matrix<T> causal_activations(const Matrix<T>& Q, const Matrix<T>& K, const std::vector<std::int64_t>& positions,
                             const std::vector<T>& g) {
  const Eigen::Index n = Q.rows();
  if (K.rows() != n || static_cast<Eigen::Index>(positions.size()) != n)
    throw std::invalid_argument("causal_activations: Q, K and positions disagree in length");
  Matrix<T> A(n, n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const Vector<T> q = Q.row(i).transpose();
    for (Eigen::Index j = 0; j < n; ++j) {
      if (j > i) {
        A(i, j) = T(0);
        continue;
      }
      const Vector<T> k = K.row(j).transpose();
      A(i, j) = activation(q, k, positions[j] - positions[i], g);
    }
  }
  return A;
}

// Returns: the causal attention matrix: row i is softmax of A(i, 0..i), zeros above the diagonal.
template <Scalar T>
Matrix<T> causal_attention(const Matrix<T>& A) {
  const Eigen::Index n = A.rows();
  Matrix<T> alpha(n, n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const Vector<T> row = A.row(i).head(i + 1).transpose();
    const Vector<T> s = softmax(row);
    for (Eigen::Index j = 0; j < n; ++j) alpha(i, j) = j <= i ? s[j] : T(0);
  }
  return alpha;
}

}  // namespace ropecheck
