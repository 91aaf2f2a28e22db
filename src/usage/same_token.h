// File: same_token.h
// A semantic head chosen by a stated criterion (issue 54, the paper's Appendix E): attention given
// a token class against the head's unconditional rate. The class is the query's own token: row i's
// SAME-TOKEN keys are the j < i (in the window) with token[j] == token[i] (head_scores.h's
// InductionTargets, which needs the capture's token ids). Per sequence s, over its rows with at
// least one such key:
//   mass      the mean over those rows of the attention on their same-token keys;
//   expected  the mean over the same rows of what the head puts at those keys' distances anyway:
//             sum over the row's same-token keys of profile_s(i - j), profile_s(d) the head's mean
//             attention at distance d over every row of s that sees d. A head that attends by
//             distance alone (a diagonal, previous-token or recency head) has mass = expected up to
//             chance; the rows counted in the profile include the same-token rows themselves, which
//             only shrinks the excess (conservative).
//   excess    mass - expected, per sequence; the head's excess is the mean over sequences.
// Interval: two-sided Student t over the sequences (the unit: rows of a sequence are dependent),
// simultaneous over the heads tested by Bonferroni (level 1 - alpha / heads). The SEMANTIC HEAD is the
// head whose interval's lower bound is largest, when that bound is above 0; otherwise there is none.
// Everything here is a MEASUREMENT on the capture; the token class is one class (the query's own
// token), so "semantic" means "attends to its own token's earlier occurrences beyond its distance
// profile", a stated and testable reading, not the paper's (which names one head by inspection).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ropecheck::usage {

struct SequenceSameToken {
  double mass = 0, expected = 0;  // means over the sequence's rows with a same-token key
  long long rows = 0;             // those rows
};

struct SameTokenTest {
  long long sequences = 0, rows = 0;       // sequences with such rows, and the rows
  double mass = 0, expected = 0, excess = 0;  // means over sequences
  double lo = 0, hi = 0;                      // the simultaneous interval of the excess ([-inf, inf] below 2 sequences)
};

// Returns: the test of one head at `level` (the simultaneous level, in (0, 1)).
SameTokenTest same_token_test(const std::vector<SequenceSameToken>& per_sequence, double level);

struct SemanticHead {
  int layer = 0, head = 0;
  SameTokenTest test;
};

}  // namespace ropecheck::usage
