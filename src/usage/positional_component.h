// File: positional_component.h
// Which heads put attention at a fixed offset BECAUSE of position (issue 54), decided over
// sequences against a position-free null computed from the same capture. The row rule of
// head_kind.h asks "is the mass at offset delta above chance?", with rows as its unit and uniform
// attention as chance; it cannot tell position from content (a head whose query matches its own
// token's key scores as diagonal with RoPE or without) and its count is set by its mass cut. This
// test asks "how much of the mass at offset delta does the rotation add?":
//   null      the same head's attention with every pair held still (head_attention.h's
//             position-free attention: the same q and k, frequency 0 on every pair, so scores
//             depend on content alone; a pass-through pair is unchanged).
//   effect    per sequence s and offset delta, e_s = mean over the rows of s (those where i - delta
//             is visible) of w(i, i - delta) - w_free(i, i - delta); the head's effect at delta is
//             the mean of e_s over sequences.
//   interval  two-sided Student t over the n sequences (df n - 1), simultaneous at 1 - alpha over
//             the family heads x (max_offset + 1) by Bonferroni: t quantile 1 - alpha / (2 family).
//             The unit is the sequence: rows of a sequence are dependent, sequences are taken as
//             independent draws (they are, for captures of disjoint text windows). Exact for
//             normal e_s, asymptotic otherwise. With fewer than 2 sequences no interval exists:
//             [-inf, +inf], nothing is decided.
//   component a head HAS A POSITIONAL COMPONENT at delta when its effect's lower bound is at least
//             `cut` (default the kind rule's min_mass, 0.1); its component offset is the one with the
//             largest effect among those. This is weaker than the paper's "positional head" (which
//             also keeps its pattern on random tokens): the name says what the test finds.
//   curve     for each cut c, how many heads have max_delta effect >= c (the point count) and the
//             interval [heads whose max lower bound >= c, heads whose max upper bound >= c]: when every
//             simultaneous interval covers (probability >= 1 - alpha), the true count lies inside.
// Everything is a MEASUREMENT on the capture.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ropecheck::usage {

// One sequence's means of one head: per offset, over that sequence's rows where the key is visible.
struct SequenceOffsets {
  std::vector<double> mass, position_free;  // entry delta; NaN where no row had it visible
};

struct OffsetEffect {
  int offset = 0;
  long long sequences = 0;        // sequences with at least one such row
  double mass = 0, position_free = 0;  // means over those sequences
  double effect = 0;              // mean of the per-sequence differences
  double lo = 0, hi = 0;          // the simultaneous interval (+-inf with fewer than 2 sequences)
};

struct HeadComponent {
  std::vector<OffsetEffect> offsets;  // delta = 0 .. max_offset
  std::optional<int> offset;          // the component offset at the default cut; none: no component
};

struct ComponentCurvePoint {
  double cut = 0;
  long long count = 0, lo = 0, hi = 0;
};

struct ComponentTest {
  double cut = 0.1;                 // the default cut (effect-size threshold)
  double alpha = 0.01;              // family-wise
  long long family = 0;             // heads x offsets
  long long sequences = 0;          // the capture's (the unit)
  double t_critical = 0;            // the simultaneous quantile; +inf with fewer than 2 sequences
  long long heads = 0, with_component = 0;
  std::vector<ComponentCurvePoint> curve;  // cuts 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5
  std::string statement;            // one line: the count at the default cut and its interval
};

// Returns: the t quantile of the family (the interval's half-width is it times the standard error).
double component_t_critical(double alpha, long long family, long long sequences);

// Returns: one head's effects from its per-sequence means (all sequences), intervals at `level`
// (statistics/inference.h's mean_interval: 1 - alpha / family for the simultaneous ones).
HeadComponent head_component(const std::vector<SequenceOffsets>& per_sequence, double level, double cut);

// Returns: the test's summary over every head (per head: its HeadComponent), for the given rule.
ComponentTest component_curve(const std::vector<const HeadComponent*>& heads, double cut, double alpha, long long family,
                              long long sequences, double t_critical);

}  // namespace ropecheck::usage
