#include "proofs/table-1.h"

#include <gtest/gtest.h>

#include "io/input_error.h"

namespace ropecheck::proofs {
namespace {

std::string cell_of(const Certificate& c, const std::string& encoding, const std::string& property) {
  for (const auto& row : c.details["cells"])
    if (row["encoding"] == encoding && row["property"] == property) return row["value"].get<std::string>();
  return "missing";
}

TEST(Table1, DefaultsReproduceThePapersTableFromCertificates) {
  ClaimOptions o;
  const auto certs = check_table_1(o);
  ASSERT_EQ(certs.size(), 1u);
  const Certificate& c = certs[0];
  EXPECT_EQ(c.verdict, Verdict::holds) << c.details.dump(1);
  EXPECT_EQ(cell_of(c, "NoPE", "positional"), "no");
  EXPECT_EQ(cell_of(c, "NoPE", "semantic"), "yes");
  EXPECT_EQ(cell_of(c, "RoPE", "positional"), "yes");
  EXPECT_EQ(cell_of(c, "RoPE", "semantic"), "no");
  EXPECT_EQ(cell_of(c, "p-RoPE", "positional"), "yes");
  EXPECT_EQ(cell_of(c, "p-RoPE", "semantic"), "yes");
  // The RoPE semantic break lies beyond gemma-7b's context (thm-6.1 certifies it stable within 8192).
  const long long L = c.details["RoPE"]["semantic"]["shortest_breaking_context"].get<long long>();
  EXPECT_GT(L, 8192) << c.details["RoPE"]["semantic"].dump();
  EXPECT_LE(L, 32768);
}

TEST(Table1, TheRoPESemanticCellDependsOnTheContextChecked) {
  // Within 8192 tokens no arrangement breaks the channel, so "RoPE is not semantic" cannot be
  // certified there: the cell is undecided and the table inconclusive, never a pass by default.
  ClaimOptions o;
  o.max_n = 8192;
  const Certificate c = check_table_1(o)[0];
  EXPECT_EQ(cell_of(c, "RoPE", "semantic"), "undecided") << c.details["RoPE"]["semantic"].dump();
  EXPECT_EQ(c.verdict, Verdict::inconclusive);
}

TEST(Table1, APRoPEThatKeepsTheChannelsPairRotatingContradictsThePaper) {
  // p = 1 keeps every pair, pair 119 included: p-RoPE is then RoPE and its semantic cell is "no",
  // which contradicts the paper's "yes": the check must say fails, not holds.
  ClaimOptions o;
  o.spectrum.variant = Variant::p_rope;
  o.spectrum.fraction = "1";
  const Certificate c = check_table_1(o)[0];
  EXPECT_EQ(cell_of(c, "p-RoPE", "semantic"), "no");
  EXPECT_EQ(c.verdict, Verdict::fails);
}

TEST(Table1, RejectsAnEpsilonOutsideTheOpenHalfInterval) {
  ClaimOptions o;
  o.epsilon = "0.5";
  EXPECT_THROW(check_table_1(o), InputError);
  o.epsilon = "0";
  EXPECT_THROW(check_table_1(o), InputError);
  o.epsilon = "abc";
  EXPECT_THROW(check_table_1(o), InputError);
}

}  // namespace
}  // namespace ropecheck::proofs
