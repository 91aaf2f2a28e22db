// File: head_kind.h
// What a head does, decided against chance (issue 42). The kinds, one list:
//   diagonal        its attention goes to the query's own token (offset 0)
//   previous-token  to the token before (offset 1)
//   offset          to the token a fixed delta back, 2 <= delta <= max_offset (a slash head)
//   first-token     to token 0 (an attention sink)
//   induction       to the tokens that followed earlier occurrences of the current token
//   other           none of these: a content (semantic) head, or mixed
// The rule (docs/usage.md, "Head kinds"): a score (head_scores.h) is SIGNIFICANT when
//   (1) its mean mass over rows is at least kind_rule.min_mass, and
//   (2) the one-sided z-test of H0: E[w - lift * b] <= 0 over rows rejects at the family-wise level
//       alpha, Bonferroni-corrected over every score of every head tested (family = heads x scores),
// i.e. the head puts at least `lift` times uniform attention there, beyond chance. The head's kind
// is its significant offset or induction score with the largest mean mass (ties: the order above);
// when none is significant, first-token if that score is (a head parks its attention on the first
// token, the attention sink, when it has nothing to do: the sink names a head only alone); else
// `other`.
// The z-test treats rows as independent (asymptotic normal); rows of one sequence are not, which is
// why the rule also asks for an effect size (min_mass, lift) and why its false-positive rate is
// MEASURED on Gaussian captures of the same shapes (usage.h, `null`), not assumed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "usage/head_scores.h"

namespace ropecheck::usage {

enum class HeadKind { diagonal, previous_token, offset, first_token, induction, other };
inline constexpr HeadKind kHeadKinds[] = {HeadKind::diagonal, HeadKind::previous_token, HeadKind::offset,
                                          HeadKind::first_token, HeadKind::induction, HeadKind::other};

// Returns: "diagonal", "previous-token", "offset", "first-token", "induction", "other": the one
// spelling the CLI, the JSON, the report and Python print.
const char* head_kind_name(HeadKind kind);
// Returns: the kind of that name; throws InputError(input, ...) for another.
HeadKind head_kind_from_name(const std::string& name, const std::string& input);
// Positional kinds (the paper's Section 5 group): diagonal, previous-token, offset.
bool is_positional(HeadKind kind);
// Content kinds (Theorem 6.1 applies): induction and other.
bool is_content(HeadKind kind);

struct KindRule {
  int max_offset = 16;    // offsets 0 .. max_offset are scored, in [1, 4096]
  double lift = 2;        // at least this many times uniform attention, > 1
  double min_mass = 0.1;  // and at least this mean mass, in (0, 1]
  double alpha = 0.01;    // family-wise, in (0, 1)
};

// One score of one head: the measurement and its test.
struct ScoreTest {
  long long rows = 0;
  double mass = 0;             // mean attention over rows
  double lo = 0, hi = 0;       // 95% interval of the mean over rows (normal approximation)
  double baseline = 0;         // mean uniform attention on the same keys
  double ratio = 0;            // mass / baseline (0 when no rows)
  double z = 0;                // (mean of w - lift b) / its standard error; +-inf when that is 0
  bool significant = false;
};

ScoreTest test_score(const ScoreSums& s, const KindRule& rule, double z_critical);

// Returns: the one-sided critical z of the Bonferroni-corrected family: Phi^-1(1 - alpha / tests).
double kind_critical_z(const KindRule& rule, long long tests);

struct HeadClass {
  HeadKind kind = HeadKind::other;
  int offset = -1;                   // the offset of diagonal (0), previous-token (1) and offset kinds
  std::vector<ScoreTest> offsets;    // delta = 0 .. max_offset
  ScoreTest first;
  std::optional<ScoreTest> induction;  // none without token ids
};

// Precondition: scores.offsets has rule.max_offset + 1 entries.
HeadClass classify_head(const HeadScores& scores, bool with_induction, const KindRule& rule, double z_critical);

// Returns: the scores one head is tested on (offsets, first token, induction when token ids exist).
long long scores_per_head(const KindRule& rule, bool with_induction);

}  // namespace ropecheck::usage
