// File: table-1.h
// Table 1 of the paper (NoPE / RoPE / p-RoPE x positional / semantic), every cell derived from a
// certified computation of the checks it summarises:
//   positional: can a head reach alpha_{i,i} (diagonal) and alpha_{i,i-1} (previous-token)
//               > 1 - epsilon for every i <= N on a sequence of one repeated token?
//               yes: thm-5.3's construction, a certified finite norm bracket on that spectrum;
//               no:  prop-5.2's obstruction, alpha_{3,3} = alpha_{3,2} < 1/2 certified on [x, x, x].
//   semantic:   does the apostrophe channel (Appendix E.1, pair 119 of gemma-7b, at the frequency
//               the encoding gives that pair) keep alpha > 1 - epsilon under every arrangement of
//               the sequence up to context N?
//               yes: the pair does not rotate (g = 0 exactly), so every activation is position-free
//                    and alpha_L = 1/(1 + L e^{a_o - a_t}) for every arrangement: certified at L = N;
//               no:  thm-6.1's swap search certifies an attended arrangement (alpha > 1 - epsilon)
//                    and a swap after which alpha <= 1/2, at some L <= N.
#pragma once

#include <string>
#include <vector>

#include "claims/claim.h"

namespace ropecheck::proofs {

// A cell: yes, no, or undecided (a certificate that could not be completed is never a yes or no).
enum class Cell { yes, no, undecided };

// Returns: "yes", "no", "undecided".
std::string cell_name(Cell c);

struct TableCell {
  std::string encoding;  // "NoPE", "RoPE", "p-RoPE"
  std::string property;  // "positional", "semantic"
  Cell value = Cell::undecided;
  Cell paper = Cell::undecided;  // the paper's Table 1
  std::string evidence;          // one line: the certified numbers behind the value
};

// The `table-1` check: one certificate holding the six cells. Defaults: gemma-7b spectra (RoPE;
// p-RoPE 0.75 as in the paper's Table 2; NoPE), epsilon = 0.1, positional N = gemma-7b's context
// 8192 (or --context), norm spread over the 16 fastest rotating pairs; semantic N = 32768 (--max-n),
// four times the context, because the channel is certified stable within 8192 (thm-6.1).
// Reads options.epsilon, max_n, spectrum.context, spectrum.fraction (--p-rope P), precision.
// Verdict: holds when every cell is decided and equals the paper's; fails when a decided cell
// differs; inconclusive otherwise.
std::vector<Certificate> check_table_1(const ClaimOptions& options);

}  // namespace ropecheck::proofs
