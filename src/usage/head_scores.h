// File: head_scores.h
// Where a head's attention goes, scored against chance (issue 42): per query row i >= 1 of a
// causal head, the attention mass w on a set of keys and its uniform baseline b = |set| / len (len:
// the keys the row may attend to, i - lo + 1 with the window's lo), for
//   offset delta   the key i - delta, delta = 0 .. max_offset (a slash profile; rows where that key
//                  is visible: i - delta >= lo; delta 0 is the diagonal, 1 the previous token)
//   first token    key 0 (rows where it is visible: lo = 0)
//   induction      the keys j + 1 that follow an earlier occurrence of the row's token:
//                  token[j] = token[i], lo <= j + 1 <= i - 1 (rows with at least one; needs the
//                  capture's token_ids)
// Sums over rows are plain binary64 sums in row, then sequence order (deterministic, any thread
// count); w and b lie in [0, 1], so the variance from these sums loses at most ~n * 2^-53 against
// its value, far below the row-to-row variation it measures.
#pragma once

#include <vector>

namespace ropecheck::usage {

struct ScoreSums {
  long long rows = 0;
  double w = 0, w2 = 0, b = 0, b2 = 0, wb = 0;  // sums of w, w^2, b, b^2, w b over rows

  void add_row(double mass, double baseline) {
    rows += 1;
    w += mass;
    w2 += mass * mass;
    b += baseline;
    b2 += baseline * baseline;
    wb += mass * baseline;
  }
  void add(const ScoreSums& o) {
    rows += o.rows;
    w += o.w;
    w2 += o.w2;
    b += o.b;
    b2 += o.b2;
    wb += o.wb;
  }
};

struct HeadScores {
  std::vector<ScoreSums> offsets;  // entry delta = 0 .. max_offset
  ScoreSums first, induction;

  void add(const HeadScores& o);  // sizes must agree (or this one empty)
};

// The induction targets of one sequence, for every row: targets(i) lists the keys j + 1 with
// token[j] == token[i], j + 1 <= i - 1, ascending (the window's lo is applied by the caller).
class InductionTargets {
 public:
  InductionTargets() = default;
  explicit InductionTargets(const std::vector<long long>& tokens);
  bool empty() const { return start_.empty(); }
  // Keys of row i: [begin(i), end(i)).
  const long long* begin(long long i) const { return keys_.data() + start_[static_cast<size_t>(i)]; }
  const long long* end(long long i) const { return keys_.data() + start_[static_cast<size_t>(i) + 1]; }
  // Same-token keys of row i: every j < i with token[j] == token[i], ascending (same_token.h).
  const long long* same_begin(long long i) const { return same_keys_.data() + same_start_[static_cast<size_t>(i)]; }
  const long long* same_end(long long i) const { return same_keys_.data() + same_start_[static_cast<size_t>(i) + 1]; }

 private:
  std::vector<long long> keys_, same_keys_;
  std::vector<size_t> start_, same_start_;
};

}  // namespace ropecheck::usage
