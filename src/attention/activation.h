// File: activation.h
// The RoPE activation (the paper's eq. 3):
//   a_{i,j} = (R^i q_i)^T (R^j k_j) = q_i^T R^(j-i) k_j = sum_k q^(k)T rho(g_k)^(j-i) k^(k),
// evaluated per chunk as x^T rho(phi) y = cos(phi) (x1 y1 + x2 y2) + sin(phi) (x2 y1 - x1 y2).
// The tests check the relative form against the absolute one (rotate both, then dot).
#pragma once

#include <cstdint>
#include <vector>

#include "rotation/rotation.h"

namespace ropecheck {

// Returns: the contribution of one chunk, x^T rho(phi) y, from c = cos(phi), s = sin(phi).
template <Scalar T>
T chunk_activation(const T& x1, const T& x2, const T& y1, const T& y2, const T& c, const T& s) {
  return T(c * (x1 * y1 + x2 * y2) + s * (x2 * y1 - x1 * y2));
}

// Returns: q^T R^rel k for frequencies g. Preconditions: q, k of size 2 * g.size().
template <Scalar T>
T activation(const Vector<T>& q, const Vector<T>& k, std::int64_t rel, const std::vector<T>& g) {
  T sum(0), c, s;
  for (size_t p = 0; p < g.size(); ++p) {
    sin_cos(rotation_angle(rel, g[p]), s, c);
    sum += chunk_activation(q[2 * p], q[2 * p + 1], k[2 * p], k[2 * p + 1], c, s);
  }
  return sum;
}

// Returns: q^T R^rel k where cos_rel[p], sin_rel[p] are cos and sin of rel*g_p, precomputed (a
// table shared by many queries and keys at the same relative distance).
template <Scalar T>
T activation(const Vector<T>& q, const Vector<T>& k, const std::vector<T>& cos_rel, const std::vector<T>& sin_rel) {
  T sum(0);
  for (size_t p = 0; p < cos_rel.size(); ++p)
    sum += chunk_activation(q[2 * p], q[2 * p + 1], k[2 * p], k[2 * p + 1], cos_rel[p], sin_rel[p]);
  return sum;
}

// The per-chunk products of q and k that do not depend on the distance,
//   u_p = x1 y1 + x2 y2,  w_p = x2 y1 - x1 y2,  so that  q^T R^rel k = sum_p cos(rel g_p) u_p + sin(rel g_p) w_p.
// Computing them once turns a sweep over many distances into 2 products per chunk per distance.
template <Scalar T>
struct PairProducts {
  std::vector<T> u;
  std::vector<T> w;
};

template <Scalar T>
PairProducts<T> pair_products(const Vector<T>& q, const Vector<T>& k) {
  PairProducts<T> pp;
  const size_t pairs = static_cast<size_t>(q.size() / 2);
  pp.u.reserve(pairs);
  pp.w.reserve(pairs);
  for (size_t p = 0; p < pairs; ++p) {
    pp.u.push_back(T(q[2 * p] * k[2 * p] + q[2 * p + 1] * k[2 * p + 1]));
    pp.w.push_back(T(q[2 * p + 1] * k[2 * p] - q[2 * p] * k[2 * p + 1]));
  }
  return pp;
}

// Returns: q^T R^rel k from its pair products and cos, sin of rel*g_p.
template <Scalar T>
T activation(const PairProducts<T>& pp, const std::vector<T>& cos_rel, const std::vector<T>& sin_rel) {
  T sum(0);
  for (size_t p = 0; p < pp.u.size(); ++p) sum += T(cos_rel[p] * pp.u[p] + sin_rel[p] * pp.w[p]);
  return sum;
}

// Returns: (R^i q)^T (R^j k), the absolute form: both vectors rotated, then a dot product.
template <Scalar T>
T absolute_activation(const Vector<T>& q, std::int64_t i, const Vector<T>& k, std::int64_t j, const std::vector<T>& g) {
  const Vector<T> rq = rotate(q, i, g);
  const Vector<T> rk = rotate(k, j, g);
  T sum(0);
  for (Eigen::Index t = 0; t < rq.size(); ++t) sum += T(rq[t] * rk[t]);
  return sum;
}

}  // namespace ropecheck
