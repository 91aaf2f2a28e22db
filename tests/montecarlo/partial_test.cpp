// Partial files: an exact round trip, a checksum that refuses any edit or truncation, and a merge
// that refuses partials of another run (naming the parameter that differs).
#include <gtest/gtest.h>

#include "io/input_error.h"
#include "montecarlo/partial.h"
#include "montecarlo/simulate.h"

namespace ropecheck::montecarlo {
namespace {

Params params(std::uint64_t seed) {
  Params p;
  p.experiment = Experiment::fig9;
  p.seed = seed;
  p.max_distance = 20;
  SeriesSpec s{"d=8", "custom", Spectrum(8, "10000")};
  s.trials = 12;
  s.code = 32;
  p.series.push_back(s);
  return p;
}

TEST(MontecarloPartial, RoundTripsExactly) {
  const Partial a = simulate(params(1), Shard{1, 3}, RunOptions{1, false});
  const std::string text = partial_text(a);
  const Partial b = parse_partial(text, "a.json");
  EXPECT_EQ(partial_text(b), text);
  EXPECT_FALSE(b.complete());
  EXPECT_EQ(b.series[0].choice.size(), 4u);  // trials [4, 8)
  EXPECT_EQ(b.series[0].choice.front().first, 4);
}

TEST(MontecarloPartial, RefusesEditsAndTruncation) {
  const std::string text = partial_text(simulate(params(1), Shard{0, 2}, RunOptions{1, false}));
  EXPECT_THROW(parse_partial(text.substr(0, text.size() - 10), "t.json"), InputError);
  for (size_t at : {text.find("\"seed\":1") + 7, text.find("\"distance\":[[") + 13}) {
    std::string edited = text;
    edited[at] = edited[at] == '1' ? '2' : '1';
    try {
      parse_partial(edited, "e.json");
      ADD_FAILURE() << "an edit at byte " << at << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("e.json"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(parse_partial("{}", "empty.json"), InputError);
  EXPECT_THROW(parse_partial("", "nothing.json"), InputError);
}

TEST(MontecarloPartial, MergeRefusesAnotherRun) {
  const Partial a = simulate(params(1), Shard{0, 2}, RunOptions{1, false});
  const Partial b = simulate(params(2), Shard{1, 2}, RunOptions{1, false});
  try {
    merge_partials({a, b}, {"a.json", "b.json"});
    ADD_FAILURE() << "partials of different seeds merged";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("seed differs"), std::string::npos) << e.what();
  }
  EXPECT_THROW(merge_partials({a, a}, {"a.json", "a2.json"}), InputError);
  const Partial c = simulate(params(1), Shard{1, 2}, RunOptions{1, false});
  EXPECT_TRUE(merge_partials({a, c}, {"a.json", "c.json"}).complete());
}

}  // namespace
}  // namespace ropecheck::montecarlo
