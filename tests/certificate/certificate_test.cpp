#include "certificate/certificate.h"

#include <gtest/gtest.h>

#include "numeric/precision.h"

namespace ropecheck {
namespace {

TEST(Certificate, VerdictNames) {
  EXPECT_EQ(verdict_name(Verdict::holds), "holds");
  EXPECT_EQ(verdict_name(Verdict::not_confirmed), "not-confirmed");
  EXPECT_EQ(verdict_name(Verdict::inconclusive), "inconclusive");
}

TEST(Certificate, InconclusiveNeverAgreesWithThePaper) {
  Certificate c;
  c.expected = Verdict::holds;
  c.verdict = Verdict::inconclusive;
  EXPECT_FALSE(c.as_paper_states());
  c.verdict = Verdict::holds;
  EXPECT_TRUE(c.as_paper_states());
}

TEST(Certificate, EnclosureQuantityBracketsTheValueAndJsonCarriesEverything) {
  ScopedPrecision p(128);
  Certificate c;
  c.claim_id = "x";
  c.parameters = {{"configuration", "gemma-7b"}};
  c.quantities.push_back(enclosure("third", Interval(1) / 3, 6));
  c.quantities.push_back(exact_integer("n", 710));
  EXPECT_EQ(c.quantities[0].lower, "3.33333e-1");
  EXPECT_EQ(c.quantities[0].upper, "3.33334e-1");
  const nlohmann::json j = to_json(c);
  EXPECT_EQ(j["claim"], "x");
  EXPECT_EQ(j["verdict"], "inconclusive");
  EXPECT_EQ(j["as_paper_states"], false);
  EXPECT_EQ(j["quantities"][1]["lower"], "710");
  const std::string table = format_table({c});
  EXPECT_NE(table.find("DIFFERS"), std::string::npos) << table;
  EXPECT_NE(table.find("third in [3.33333e-1, 3.33334e-1]"), std::string::npos) << table;
  EXPECT_NE(table.find("parameters: {\"configuration\":\"gemma-7b\"}"), std::string::npos) << table;
}

}  // namespace
}  // namespace ropecheck

namespace ropecheck {
namespace {

TEST(Certificate, RealBoundsRoundOutward) {
  ScopedPrecision p(256);
  const Real third = Real(1) / 3;
  const Quantity q = real_bounds("third", third, third, 5);
  EXPECT_EQ(q.lower, "3.3333e-1");
  EXPECT_EQ(q.upper, "3.3334e-1");
  EXPECT_EQ(q.kind, "enclosure");
}

}  // namespace
}  // namespace ropecheck
