#include "proofs/ledger.h"

#include "../cli/run_cli.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "io/input_error.h"
#include "numeric/decimal.h"
#include "numeric/precision.h"
#include "proofs/ledger-expression.h"
#include "spectrum/frequencies.h"
#include "spectrum/request.h"

namespace ropecheck::proofs {
namespace {

LedgerEntry entry(const std::string& rule, const std::string& stated, const std::string& expression,
                  const std::string& bound = "") {
  LedgerEntry e;
  e.id = "t";
  e.rule = rule;
  e.stated = e.stated_value = stated;
  e.expression = expression;
  e.bound = bound;
  return e;
}

std::string gap_text(const EntryResult& r) {
  if (!r.relative_gap) return "none";
  return decimal_bounds(*r.relative_gap, 8).lower + " .. " + decimal_bounds(*r.relative_gap, 8).upper;
}

LedgerVerdict judge(const LedgerEntry& e) {
  ScopedPrecision p(180);
  const EntryResult r = judge_entry(e, "0.1");
  return r.verdict;
}

TEST(LedgerRule, RoundingWindowsInExactDecimal) {
  ScopedPrecision p(180);
  struct Case {
    const char* text;
    std::optional<int> digits;
    const char* lower;
    const char* upper;
    int n;
  };
  for (const Case& c : std::vector<Case>{{"0.0002", {}, "15e-5", "25e-5", 1},
                                         {"2.04", {}, "2035e-3", "2045e-3", 3},
                                         {"-85.5", {}, "-8555e-2", "-8545e-2", 3},
                                         {"+24.9", {}, "2485e-2", "2495e-2", 3},
                                         {"383.00", {}, "382995e-3", "383005e-3", 5},
                                         {"10000", 1, "50000e-1", "150000e-1", 1},
                                         {"0.25", 3, "2495e-4", "2505e-4", 3},
                                         {"0", {}, "-5e-1", "5e-1", 1}}) {
    const RoundingWindow w = rounding_window(c.text, c.digits);
    EXPECT_EQ(w.lower_text, c.lower) << c.text;
    EXPECT_EQ(w.upper_text, c.upper) << c.text;
    EXPECT_EQ(w.digits, c.n) << c.text;
  }
  EXPECT_THROW(rounding_window("10500", 1), std::invalid_argument);  // would drop the written 5
  EXPECT_THROW(rounding_window("1/3"), std::invalid_argument);
  EXPECT_THROW(rounding_window("abc"), std::invalid_argument);
}

TEST(LedgerRule, ValueOnTheRoundingBoundary) {
  // 0.25 is the upper end of the window of "0.2" and is dyadic: the window bound and the value are
  // the same exact point, so the closed window decides it (either tie rule rounds 0.25 to 0.2 or 0.3).
  EXPECT_EQ(judge(entry("digits", "0.2", "0.25")), LedgerVerdict::exact);
  EXPECT_EQ(judge(entry("digits", "0.2", "0.2499999")), LedgerVerdict::exact);
  // Just past it: 25% from 0.2, beyond the 10% tolerance.
  EXPECT_EQ(judge(entry("digits", "0.2", "0.2500001")), LedgerVerdict::erratum);
  // 0.15 is exactly on the lower boundary but not dyadic: both are enclosures of the same real, so
  // no precision can decide; the honest answer is inconclusive, never exact.
  EXPECT_EQ(judge(entry("digits", "0.2", "0.15")), LedgerVerdict::inconclusive);
  // Beyond the window but within 10%: approximate, and the gap is reported.
  ScopedPrecision p(180);
  const EntryResult r = judge_entry(entry("digits", "2.04", "131072*10000^-1/(2*pi)"), "0.1");
  EXPECT_EQ(r.verdict, LedgerVerdict::approximate) << gap_text(r);
  ASSERT_TRUE(r.relative_gap);
  // |2.0860756700940906 - 2.04| / 2.04 = 0.0225861..., computed in binary64 as a cross-check.
  EXPECT_LT(upper_of(*r.relative_gap), 0.02259);
  EXPECT_GT(lower_of(*r.relative_gap), 0.02258);
}

TEST(LedgerRule, EqualAtMostContains) {
  EXPECT_EQ(judge(entry("equal", "256", "128*2")), LedgerVerdict::exact);
  EXPECT_EQ(judge(entry("equal", "256", "257")), LedgerVerdict::approximate);
  EXPECT_EQ(judge(entry("equal", "1", "3")), LedgerVerdict::erratum);
  // An irrational equality cannot be certified as exact: it stays undecided, never a pass.
  EXPECT_EQ(judge(entry("equal", "pi", "4*(pi/4)")), LedgerVerdict::inconclusive);
  EXPECT_EQ(judge(entry("at-most", "r", "156.93", "203.65")), LedgerVerdict::exact);
  EXPECT_EQ(judge(entry("at-most", "r", "203.66", "203.65")), LedgerVerdict::erratum);
  EXPECT_EQ(judge(entry("at-most", "r", "0.5", "0.5")), LedgerVerdict::exact);  // dyadic: decided
  EXPECT_EQ(judge(entry("less-than", "r", "0.5", "0.5")), LedgerVerdict::erratum);
  EXPECT_EQ(judge(entry("at-most", "r", "203.65", "203.65")), LedgerVerdict::inconclusive);  // not dyadic: a tie
  EXPECT_EQ(judge(entry("contains", "-85.5", "interval(-86, -85)")), LedgerVerdict::exact);
  EXPECT_EQ(judge(entry("contains", "-84.5", "interval(-86, -85)")), LedgerVerdict::erratum);
  EXPECT_EQ(judge(entry("not-recomputable", "x", "")), LedgerVerdict::not_recomputable);
}

TEST(LedgerRule, CorrectionsAreChecked) {
  ScopedPrecision p(180);
  LedgerEntry e = entry("digits", "0.0001", "500000^(-40/64)");  // 2.742e-4
  e.corrected = "0.0003";
  EntryResult r = judge_entry(e, "0.1");
  EXPECT_EQ(r.verdict, LedgerVerdict::erratum);
  EXPECT_TRUE(r.corrected_confirmed);
  e.corrected = "0.0002";
  r = judge_entry(e, "0.1");
  EXPECT_FALSE(r.corrected_confirmed);
  EXPECT_TRUE(r.corrected_decided);
}

TEST(LedgerRule, BadExpressionNamesTheEntry) {
  LedgerEntry e = entry("digits", "1", "2 +");
  e.id = "broken-entry";
  try {
    judge(e);
    FAIL() << "accepted a malformed expression";
  } catch (const InputError& err) {
    EXPECT_EQ(err.input(), "--ledger");
    EXPECT_NE(std::string(err.what()).find("broken-entry"), std::string::npos) << err.what();
  }
}

// The ledger functions agree with the written formulas of the entries that use them.
TEST(LedgerRule, SpectrumFunctionsAgreeWithTheFormulas) {
  ScopedPrecision p(180);
  const auto gemma = frequencies<Interval>(resolve(SpectrumRequest{}, std::string("gemma-7b")).spectrum);
  EXPECT_TRUE(overlaps(gemma[118], evaluate_expression("10000^(-2*(119-1)/256)")));
  const auto llama = frequencies<Interval>(resolve(SpectrumRequest{}, std::string("llama-3.1-8b")).spectrum);
  // llama3 scaling divides pairs of wavelength > 8192 tokens by 8: pair 64 (2.56e6 tokens) and
  // pair 41 (exponent -40/64, 22,900 tokens).
  EXPECT_TRUE(overlaps(llama[63], evaluate_expression("500000^(-126/128)/8")));
  EXPECT_TRUE(overlaps(llama[40], evaluate_expression("500000^(-40/64)/8")));
}

std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path;
}

nlohmann::json default_ledger_json() {
  std::ifstream in(default_ledger_path());
  return nlohmann::json::parse(in);
}

TEST(Ledger, TheShippedLedgerHoldsAndFlagsItsErrata) {
  ClaimOptions o;
  const auto certs = check_ledger(o);
  ASSERT_EQ(certs.size(), 1u);
  const Certificate& c = certs[0];
  EXPECT_EQ(c.verdict, Verdict::holds) << c.details["differing"].dump() << c.details["undecided"].dump();
  bool flagged = false;
  for (const Quantity& q : c.quantities)
    if (q.name == "errata flagged") flagged = q.lower.find("appC-llama-band-start") != std::string::npos;
  EXPECT_TRUE(flagged);
  // The default ledger is named relative to the source tree, so every checkout writes the same
  // certificate (reports compare evidence byte for byte across clones).
  EXPECT_EQ(c.parameters["ledger"], "proofs/ledger.json");
  EXPECT_EQ(c.statement.find(default_ledger_path()), std::string::npos) << c.statement;
  for (const auto& row : c.details["entries"]) {
    EXPECT_TRUE(row["agrees"].get<bool>()) << row.dump(2);
    if (row["id"] == "appE1-g119") {
      // g_119 = 10^-3.6875 is irrational: its bounds print 50 significant digits each, and at >= 180
      // bits they agree in at least the first 48.
      const std::string lo = row["recomputed"]["lower"], hi = row["recomputed"]["upper"];
      EXPECT_EQ(std::count_if(lo.begin(), lo.end(), ::isdigit) - 1, 50) << lo;  // minus the exponent digit
      EXPECT_EQ(lo.substr(0, 49), hi.substr(0, 49)) << lo << " vs " << hi;
      EXPECT_EQ(lo.substr(0, 8), "2.053525") << lo;  // binary64: 0.0002053525026457146
    }
  }
  EXPECT_GE(c.parameters["precision_bits"].get<unsigned>(), 167u);
}

TEST(Ledger, TamperedStatedValueFails) {
  nlohmann::json j = default_ledger_json();
  for (auto& e : j["entries"])
    if (e["id"] == "appE1-g119") e["stated"] = "0.0003";  // the paper says 0.0002; g_119 = 2.05e-4
  ClaimOptions o;
  o.ledger = write_temp("ropecheck-ledger-tampered.json", j.dump()).string();
  const Certificate c = check_ledger(o)[0];
  EXPECT_EQ(c.verdict, Verdict::fails);
  EXPECT_NE(c.details["differing"].dump().find("appE1-g119"), std::string::npos) << c.details["differing"].dump();
  std::filesystem::remove(*o.ledger);
}

TEST(Ledger, TamperedExpectationFails) {
  nlohmann::json j = default_ledger_json();
  for (auto& e : j["entries"])
    if (e["id"] == "appC-llama-band-start") e["expected"] = "exact";  // hiding the erratum must not pass
  ClaimOptions o;
  o.ledger = write_temp("ropecheck-ledger-hidden.json", j.dump()).string();
  EXPECT_EQ(check_ledger(o)[0].verdict, Verdict::fails);
  std::filesystem::remove(*o.ledger);
}

TEST(Ledger, BadFilesAreInputErrors) {
  ClaimOptions o;
  o.ledger = "/nonexistent-ropecheck/ledger.json";
  EXPECT_THROW(check_ledger(o), InputError);
  o.ledger = write_temp("ropecheck-ledger-bad.json", "{ not json").string();
  EXPECT_THROW(check_ledger(o), InputError);
  std::ofstream(*o.ledger) << R"({"entries": [{"id": "x", "location": "l", "quote": "q", "stated": "1", "rule": "guess", "expression": "1", "expected": "exact"}]})";
  EXPECT_THROW(check_ledger(o), InputError);
  std::ofstream(*o.ledger) << R"({"entries": [{"id": "x", "location": "l", "quote": "q", "stated": "1", "rule": "digits", "expected": "exact"}]})";
  EXPECT_THROW(check_ledger(o), InputError);  // no expression
  std::filesystem::remove(*o.ledger);
}

TEST(Ledger, CliReportsABadLedgerOnOneLineWithExit2) {
  const auto [status, out] = test::run_cli("verify --claim ledger --ledger /nonexistent-ropecheck/l.json", true);
  EXPECT_EQ(status, 2) << out;
  EXPECT_NE(out.find("--ledger"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
}

// Every quote is an exact passage of the extracted paper (whitespace collapsed), so a reader can
// find it. Skipped only when the paper text is not beside the repository.
TEST(Ledger, QuotesAreInThePaperText) {
  std::ifstream in(ROPECHECK_PAPER_TEXT);
  if (!in) GTEST_SKIP() << "paper text not found at " << ROPECHECK_PAPER_TEXT;
  std::stringstream ss;
  ss << in.rdbuf();
  auto collapse = [](const std::string& s) { return std::regex_replace(s, std::regex("\\s+"), " "); };
  const std::string paper = collapse(ss.str());
  const Ledger ledger = load_ledger(default_ledger_path());
  for (const LedgerEntry& e : ledger.entries)
    EXPECT_NE(paper.find(collapse(e.quote)), std::string::npos) << e.id << ": " << e.quote;
}

}  // namespace
}  // namespace ropecheck::proofs
