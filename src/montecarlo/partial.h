// File: partial.h
// What a run (or one shard of it) has accumulated: per series, the exact power sums of the
// activation at every distance, the exact sums of every trial's regression slope, and every
// trial's two-sample-test value. Everything is exact (numeric/exact_sum.h) or keyed by trial, so
// merging shards is exact and order-free: merge(shards) has the very bits of one process's run.
//
// File format (JSON, written atomically): {"format": "ropecheck-montecarlo-partial", "version": 2,
// "params": Params::to_json(), "shards": [{"index", "count"}, ...], "series": [...], "sha256": hex
// of the compact dump of everything else}. A file that is truncated or edited fails the checksum
// and is refused. Version 1 files (experiment.h's kFileVersion: the spectrum in its old form) are
// read, checksum included, and merge with version 2 partials of the same run.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "io/json_reader.h"
#include "montecarlo/experiment.h"
#include "montecarlo/streams.h"
#include "statistics/moments.h"

namespace ropecheck::montecarlo {

struct SeriesAccumulator {
  std::vector<statistics::Moments> distance;  // [r]: the activation at distance r over trials
  statistics::Moments slope;                  // the least-squares slope of each trial's a(r) on r
  std::vector<std::pair<std::int64_t, double>> choice;  // (trial, a(r_trial)): the two-sample test's values

  void add(const SeriesAccumulator& other);  // exact; choice values are kept sorted by trial
};

struct Shard {
  std::int64_t index = 0, count = 1;
  // The trials [begin, end) of shard K of N: [floor(T K / N), floor(T (K+1) / N)).
  std::int64_t trial_begin(std::int64_t trials) const;
  std::int64_t trial_end(std::int64_t trials) const;
};

struct Partial {
  Params params;
  std::vector<Shard> shards;  // the shards this partial holds (one, or all after a merge)
  std::vector<SeriesAccumulator> series;

  bool complete() const;  // the shards cover every trial exactly once
};

// The partials' JSON limits (io/json_reader.h): a partial nests 6 deep; its longest lists are the
// per-distance sums (max_distance + 1 <= 2^24) and the two-sample values (one per trial <= 2^32).
inline constexpr JsonLimits kPartialJsonLimits{std::size_t{1} << 36, 16, static_cast<std::size_t>(kMaxTrials)};

// Returns: the JSON file text (with its sha256).
std::string partial_text(const Partial& p);
// Returns: the partial in `text` (file `input`). Throws InputError naming the file and the field
// when the JSON is malformed, the format or version is unknown, the checksum does not match
// (truncated or edited), or the content is inconsistent with the params.
Partial parse_partial(const std::string& text, const std::string& input);

// Returns: the union of `parts` (exact sums). Throws InputError when they were made with different
// parameters (experiment, seed, trials, spectra, ... naming the first difference) or when two hold
// the same shard.
Partial merge_partials(const std::vector<Partial>& parts, const std::vector<std::string>& inputs);

}  // namespace ropecheck::montecarlo
