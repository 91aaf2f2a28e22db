// File: dynamic-ntk-cache.h
// What transformers' run-time dynamic-NTK rule (dynamic_rope_update; statement in
// dynamic-ntk-cache.md) does to a key already in the KV cache. Not a statement of the paper: a
// consequence of a rule released models run (issue 16, "Dynamic NTK, done right and shown wrong").
//
// Setting. M = max_position_embeddings, f = factor, d = rotary width, g_p = theta^(-2p/d) the
// original frequencies. A forward whose positions reach S = max(position_ids) + 1 > M recomputes
// the frequencies from theta'(S) = theta (f S/M - (f - 1))^(d/(d-2)): g'_p(S) = theta'(S)^(-2p/d)
// (spectrum/scaling.h, "dynamic"); at S <= M nothing is recomputed, g' = g. A key k cached at
// position j <= M - 1 was rotated with g; the query at i = S - 1 is rotated with g'(S). So, per
// chunk p (activation.h's u_p, w_p and sign convention),
//   a_mixed = (R_{g'}^i q)^T (R_g^j k) = sum_p cos(phi_p) u_p + sin(phi_p) w_p,
//   phi_p = j g_p - i g'_p = (j - i) g_p - e_p,   e_p = i (g'_p - g_p),
// against the consistent activations at the same distance r = i - j:
//   a_old(r) = q^T R_g^(-r) k (no growth), a_new(r) = q^T R_{g'}^(-r) k (a fresh recompute), and
//   a_vllm(r) with vLLM's static base theta (f^2 - (f - 1))^(d/(d-2)) for query and key alike.
// e_p is the per-pair phase error of the cached key against a_old.
#pragma once

#include <cstdint>
#include <vector>

#include "attention/activation.h"
#include "claims/claim.h"

namespace ropecheck::proofs {

// The frequencies a query sees under transformers' run-time rule at sequence length S.
struct DynamicFrequencies {
  std::vector<Interval> original;  // g: the base the cached key was rotated with (rule at S <= M)
  std::vector<Interval> query;     // g'(S); the very same enclosures as `original` when S <= M
  std::vector<Interval> change;    // g'_p(S) - g_p; exactly 0 for every pair when S <= M
  Interval theta;                  // theta'(S); theta itself when S <= M
  bool recomputed = false;         // S > M (decided on integers)
};

// Returns: the frequencies of `dynamic_spectrum` (its scaling's kind is dynamic; its factor and
// max_position are read, its sequence_length and vllm_static are not) as transformers' run-time
// rule gives them at sequence length S, at the current precision. A pair whose exponent is 0 has
// g' = g = 1 exactly, so its change is exactly 0.
// Throws std::invalid_argument unless the scaling is dynamic and S >= 1.
DynamicFrequencies transformers_dynamic_frequencies(const Spectrum& dynamic_spectrum, long long S);

// Returns: the frequencies of vLLM's static rule (one base, theta (f^2 - (f - 1))^(d/(d-2)), for
// every position and sequence length). Throws std::invalid_argument unless the scaling is dynamic.
std::vector<Interval> vllm_dynamic_frequencies(const Spectrum& dynamic_spectrum);

// Returns: a_mixed = (R_{g + change}^i q)^T (R_g^j k) from the pair products of q and k, evaluated
// as sum_p cos(phi_p) u_p + sin(phi_p) w_p with phi_p = (j - i) g_p - i change_p. With every change_p
// exactly 0 this is, operation for operation, consistent_activation(pp, g, i - j): the same
// enclosure. Preconditions: pp, g, change of one length; 0 <= j, i < 2^52.
Interval mixed_activation(const PairProducts<Interval>& pp, const std::vector<Interval>& g, const std::vector<Interval>& change,
                          std::int64_t i, std::int64_t j);

// Returns: q^T R_g^(-r) k, the activation of a key r tokens before the query when both were rotated
// with g. Preconditions: pp and g of one length; |r| < 2^52.
Interval consistent_activation(const PairProducts<Interval>& pp, const std::vector<Interval>& g, std::int64_t r);

// The `dynamic-ntk-cache` check. Spectrum: --model NAME|config.json whose layer type has a dynamic
// rope_scaling (--layer-type picks it), or by default the explicit example "LlamaConfig() with
// rope_scaling {"rope_type": "dynamic", "factor": 2.0}" (d = 128, theta = 10000, M = 2048; not a
// released model). q = k = all ones. Rows: every --query-length S (default M, M + 1, 2M, 4M; with
// --model and no --query-length, --sequence-length S if given) times every --distance r (default:
// the keys at j = M - 1, M/2 and 0, i.e. r = S - 1 - j). Certifies, per row: S <= M gives
// a_mixed = a_old (no base change, identical enclosures); S > M gives a_mixed disjoint from both
// a_old(r) and a_new(r). Per grown S: the phase error e of the slowest rotating pair is certainly
// negative and its size grows with S; the fastest pair's is reported (exactly 0 for theta^0).
// Reads spectrum, precision_bits, max_precision_bits, distances, query_lengths.
// Throws InputError: --distance outside [max(0, S - M), S - 1] for some S (the key must be cached
// within the original context), a model without dynamic scaling, --config/--dim/--theta/--scaling or
// a variant flag without --model.
std::vector<Certificate> check_dynamic_ntk_cache(const ClaimOptions& options);

}  // namespace ropecheck::proofs
