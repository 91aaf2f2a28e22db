#include "adversarial/random_search.h"

#include <gtest/gtest.h>

#include "adversarial/presets.h"
#include "adversarial/scan.h"

namespace ropecheck::adversarial {
namespace {

// The baseline is seeded and never beats the guided scan's certified shortest context (it samples
// the same family the scan decides exhaustively).
TEST(RandomSearch, SeededAndNeverShorterThanTheGuidedScan) {
  const Head h = preset_head("gemma-7b-apostrophe");
  const ScanCandidate g = guided_scan(h, 4 * 11865);
  ASSERT_TRUE(g.found);
  const RandomSearchResult a = random_search(h, 4 * 11865, 5, 200000);
  const RandomSearchResult b = random_search(h, 4 * 11865, 5, 200000);
  EXPECT_EQ(a.hits, b.hits);
  EXPECT_EQ(a.shortest_context, b.shortest_context);
  EXPECT_EQ(a.evaluations, 200000);
  ASSERT_GT(a.hits, 0);
  EXPECT_GE(a.shortest_context, g.context);
  const RandomSearchResult c = random_search(h, 4 * 11865, 6, 200000);
  EXPECT_FALSE(c.hits == a.hits && c.shortest_context == a.shortest_context) << "another seed draws other candidates";
}

}  // namespace
}  // namespace ropecheck::adversarial
