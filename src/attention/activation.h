// File: activation.h
// The RoPE activation (the paper's eq. 3):
//   a_{i,j} = (R^i q_i)^T (R^j k_j) = q_i^T R^(j-i) k_j = sum_k q^(k)T rho(g_k)^(j-i) k^(k),
// evaluated per chunk as x^T rho(phi) y = cos(phi) (x1 y1 + x2 y2) + sin(phi) (x2 y1 - x1 y2).
// The tests check the relative form against the absolute one (rotate both, then dot).
//
// The one sign convention of the project: the pair products
//   u_p = x1 y1 + x2 y2,  w_p = x2 y1 - x1 y2,   a = sum_p cos(rel g_p) u_p + sin(rel g_p) w_p,
// rel = j - i. For a key r tokens BEFORE the query (rel = -r: Monte Carlo's distances, the
// adversarial scan, thm-6.1's channels) that is a(r) = sum_p cos(r g_p) u_p - sin(r g_p) w_p.
#pragma once

#include <cstddef>
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

// Returns: u, and w, of one chunk (x1, x2) of q and (y1, y2) of k.
template <Scalar T>
T pair_u(const T& x1, const T& x2, const T& y1, const T& y2) {
  return T(x1 * y1 + x2 * y2);
}
template <Scalar T>
T pair_w(const T& x1, const T& x2, const T& y1, const T& y2) {
  return T(x2 * y1 - x1 * y2);
}

template <Scalar T>
PairProducts<T> pair_products(const Vector<T>& q, const Vector<T>& k) {
  PairProducts<T> pp;
  const size_t pairs = static_cast<size_t>(q.size() / 2);
  pp.u.reserve(pairs);
  pp.w.reserve(pairs);
  for (size_t p = 0; p < pairs; ++p) {
    pp.u.push_back(pair_u(q[2 * p], q[2 * p + 1], k[2 * p], k[2 * p + 1]));
    pp.w.push_back(pair_w(q[2 * p], q[2 * p + 1], k[2 * p], k[2 * p + 1]));
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

// ---- binary64 hot loops: raw arrays, the same u, w ----
// For loops that evaluate one (q, k) at many distances (Monte Carlo trials, bench/activation_bench,
// the adversarial scan). IEEE binary64 throughout, no fused multiply-add (the build has
// -ffp-contract=off), so every result has the same bits on every machine.

// Writes u[p], w[p] for p < pairs, q and k stored as pairs (2p, 2p+1).
inline void pair_products(const double* q, const double* k, int pairs, double* u, double* w) {
  for (int p = 0; p < pairs; ++p) {
    const double q1 = q[2 * p], q2 = q[2 * p + 1], k1 = k[2 * p], k2 = k[2 * p + 1];
    u[p] = pair_u(q1, q2, k1, k2);
    w[p] = pair_w(q1, q2, k1, k2);
  }
}

// Returns: a(r) = sum_p (c_p u_p - s_p w_p) for a key r tokens before the query, from
// c_p = cos(r g_p), s_p = sin(r g_p): the pairs summed in eight interleaved partial sums (p mod 8)
// combined as ((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7)), a fixed order the compiler vectorises.
// Error: two products and at most pairs/8 + 4 additions on the path of each term, so
// |a - exact| <= (pairs/8 + 6) 2^-53 sum_p (|c_p u_p| + |s_p w_p|) (first order).
inline double lagged_activation(const double* u, const double* w, const double* c, const double* s, int pairs) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  const int full = pairs - pairs % 8;  // pairs >= 0
  for (int p = 0; p < full; p += 8)
    for (int j = 0; j < 8; ++j) acc[j] = acc[j] + (c[p + j] * u[p + j] - s[p + j] * w[p + j]);
  for (int j = 0; j < pairs % 8; ++j) acc[j] = acc[j] + (c[full + j] * u[full + j] - s[full + j] * w[full + j]);
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

// Returns: the same a(r), the pairs added one after another from p = 0 (activation()'s order).
inline double lagged_activation_in_order(const double* u, const double* w, const double* c, const double* s, std::size_t pairs) {
  double a = 0;
  for (std::size_t p = 0; p < pairs; ++p) a += c[p] * u[p] - s[p] * w[p];
  return a;
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
