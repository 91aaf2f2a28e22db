// Tests for numeric/exact_sum.h: every sum is compared with MPFR at 2200 bits, which holds any sum
// of fewer than 2^100 doubles exactly (their bits span 2^-1074 .. 2^1024 plus the carries), so
// every expectation below is exact: no tolerance anywhere.
#include "numeric/exact_sum.h"
#include "io/printf_string.h"

#include <gtest/gtest.h>
#include <mpfr.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "io/input_error.h"
#include "numeric/precision.h"
#include "random/counter_rng.h"
#include "tests/support/show.h"

namespace ropecheck {

// The carry threshold, reached without 2^30 real adds (see CarryThreshold below).
struct ExactSumTestAccess {
  static std::int64_t* digits(ExactSum& s) { return s.digit_; }
  static std::uint32_t& pending(ExactSum& s) { return s.pending_; }
};

namespace {

constexpr mpfr_prec_t kExactBits = 2200;

struct Ref {
  mpfr_t v;
  Ref() {
    mpfr_init2(v, kExactBits);
    mpfr_set_zero(v, 1);
  }
  ~Ref() { mpfr_clear(v); }
  void add(double x) { ASSERT_EQ(mpfr_add_d(v, v, x, MPFR_RNDN), 0) << "reference not exact"; }
};

std::string text_of(const mpfr_t x) {
  char* s = nullptr;
  mpfr_asprintf(&s, "%Ra", x);
  std::string out(s);
  mpfr_free_str(s);
  return out;
}

double bits_to_double(std::uint64_t b) {
  double x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

// A finite double from random bits, every exponent equally likely (subnormals included).
double any_finite(std::uint64_t b) {
  if (((b >> 52) & 0x7ff) == 0x7ff) b &= ~(std::uint64_t{1} << 62);
  return bits_to_double(b);
}

// Checks value() independently of mpfr_get_d: |exact - v| <= ulp(v)/2 with ties to an even
// significand, overflow to inf exactly at or beyond DBL_MAX + ulp/2 (ties go to inf: DBL_MAX is odd).
void expect_correctly_rounded(const mpfr_t exact, double v) {
  SCOPED_TRACE("exact " + text_of(exact) + " value " + show(v));
  mpfr_t err, half;
  mpfr_inits2(kExactBits + 64, err, half, nullptr);
  if (std::isinf(v)) {
    mpfr_set_d(half, DBL_MAX, MPFR_RNDN);
    mpfr_add_d(half, half, std::ldexp(1.0, 970), MPFR_RNDN);  // the overflow threshold
    mpfr_abs(err, exact, MPFR_RNDN);
    EXPECT_GE(mpfr_cmp(err, half), 0);
    EXPECT_EQ(std::signbit(v), mpfr_sgn(exact) < 0);
  } else {
    mpfr_sub_d(err, exact, v, MPFR_RNDN);  // exact at this precision
    mpfr_abs(err, err, MPFR_RNDN);
    int e = 0;
    std::frexp(v, &e);
    const double ulp = (v == 0 || std::fabs(v) < DBL_MIN) ? std::ldexp(1.0, -1074) : std::ldexp(1.0, e - 53);
    mpfr_set_d(half, ulp, MPFR_RNDN);
    mpfr_div_2ui(half, half, 1, MPFR_RNDN);
    const int c = mpfr_cmp(err, half);
    EXPECT_LE(c, 0);
    if (c == 0) {
      std::uint64_t b;
      std::memcpy(&b, &v, sizeof b);
      EXPECT_EQ(b & 1, 0u) << "tie not rounded to even";
    }
  }
  mpfr_clears(err, half, nullptr);
}

// Everything the contract says about one sum, against its exact reference.
void expect_matches(const ExactSum& s, const Ref& ref) {
  SCOPED_TRACE("text " + s.to_text() + " exact " + text_of(ref.v));
  const double v = s.value();
  EXPECT_EQ(show(v), show(mpfr_get_d(ref.v, MPFR_RNDN)));
  expect_correctly_rounded(ref.v, v);
  if (mpfr_zero_p(ref.v)) {
    EXPECT_EQ(s.bits_needed(), 0);
  } else {
    EXPECT_EQ(s.bits_needed(), mpfr_get_exp(ref.v) + 1074);  // |sum| in [2^(e-1), 2^e)
  }
  ScopedPrecision precision(kExactBits + 100);
  const Real r = s.to_real();
  EXPECT_EQ(mpfr_cmp(r.backend().data(), ref.v), 0) << "to_real " << text_of(r.backend().data());
  mpfr_t exact;
  mpfr_init2(exact, std::max<long>(s.bits_needed(), 2));
  s.to_mpfr(exact);
  EXPECT_EQ(mpfr_cmp(exact, ref.v), 0);
  mpfr_clear(exact);
}

void check_terms(const std::vector<double>& terms) {
  ExactSum s;
  Ref ref;
  for (double x : terms) {
    s.add(x);
    ref.add(x);
  }
  expect_matches(s, ref);
}

TEST(ExactSum, EmptyIsZero) {
  const ExactSum s;
  EXPECT_EQ(show(s.value()), show(0.0));
  EXPECT_EQ(s.bits_needed(), 0);
  EXPECT_EQ(s.to_text(), "0");
  EXPECT_EQ(s.non_finite(), 0u);
}

TEST(ExactSum, HandMadeCancellationsAndRounding) {
  const double max = DBL_MAX, tiny = std::ldexp(1.0, -1074);
  const std::vector<std::vector<double>> cases = {
      {1e308, 1, -1e308},                            // 1 survives the cancellation
      {max, max, -max},                              // the intermediate exceeds binary64
      {max, std::ldexp(1.0, 970)},                   // tie at the overflow threshold: inf
      {max, std::ldexp(1.0, 970), -tiny},            // just below it: DBL_MAX
      {-max, -max},                                  // -inf
      {1, std::ldexp(1.0, -53)},                     // tie: 1 (even)
      {1, std::ldexp(1.0, -52), std::ldexp(1.0, -53)},  // tie: 1 + 2^-51 (even)
      {1, std::ldexp(1.0, -53), tiny},               // above the tie: 1 + 2^-52
      {-1, -std::ldexp(1.0, -53), -tiny},
      {DBL_MIN, -tiny},                              // the largest subnormal
      {tiny, tiny, tiny},                            // 3 * 2^-1074
      {std::ldexp(1.0, -1000), -std::ldexp(1.0, -1000), tiny},
      {0.1, 0.2, -0.3},                              // exactly 2^-55, not 0
      {1e300, 1e-300, -1e300},
  };
  for (const auto& terms : cases) check_terms(terms);
  ExactSum s;
  s.add(1e308);
  s.add(1);
  s.add(-1e308);
  EXPECT_EQ(show(s.value()), show(1.0));
}

TEST(ExactSum, RandomSumsOverTheWholeRange) {
  const CounterRng rng(20240611, 1);
  std::uint64_t index = 0;
  for (int trial = 0; trial < 60; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const int count = 1 + static_cast<int>(rng.bits(index++) % 300);
    std::vector<double> terms;
    const int kind = trial % 4;
    // Kinds: 0 any bit pattern; 1 a narrow exponent window (heavy cancellation, rounding decides);
    // 2 subnormals only; 3 pairs x, -x(1 + small) cancelling down to their differences.
    const int center = static_cast<int>(rng.bits(index++) % 2000) + 20;  // biased exponent
    for (int i = 0; i < count; ++i) {
      const std::uint64_t b = rng.bits(index++);
      if (kind == 0) {
        terms.push_back(any_finite(b));
      } else if (kind == 1) {
        const std::uint64_t e = static_cast<std::uint64_t>(center + static_cast<int>((b >> 52) % 40) - 20);
        terms.push_back(bits_to_double((b & 0x800fffffffffffffULL) | (e << 52)));
      } else if (kind == 2) {
        terms.push_back(bits_to_double(b & 0x800fffffffffffffULL));
      } else {
        const double x = any_finite(b);
        terms.push_back(x);
        terms.push_back(-std::nextafter(x, 0.0));
      }
    }
    check_terms(terms);
  }
}

// The canonical objects and texts of shuffled, split and merged sums are identical.
TEST(ExactSum, OrderAndGroupingDoNotMatter) {
  const CounterRng rng(7, 2);
  std::vector<double> terms;
  for (std::uint64_t i = 0; i < 2000; ++i) {
    const std::uint64_t b = rng.bits(i);
    // Mixed magnitudes: half any pattern, half near 1 (where sums of doubles round the most).
    terms.push_back(i % 2 ? any_finite(b) : bits_to_double((b & 0x800fffffffffffffULL) | (1023ULL + (b >> 60)) << 52));
  }
  ExactSum forward;
  for (double x : terms) forward.add(x);
  std::vector<double> shuffled = terms;  // Fisher-Yates from the counter RNG
  for (std::size_t i = shuffled.size() - 1; i > 0; --i) std::swap(shuffled[i], shuffled[rng.bits(10000 + i) % (i + 1)]);
  ExactSum backward, reshuffled;
  for (auto it = terms.rbegin(); it != terms.rend(); ++it) backward.add(*it);
  for (double x : shuffled) reshuffled.add(x);
  std::vector<ExactSum> parts(7);
  for (std::size_t i = 0; i < shuffled.size(); ++i) parts[rng.bits(20000 + i) % 7].add(shuffled[i]);
  ExactSum merged_up, merged_down;
  for (const auto& p : parts) merged_up.add(p);
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) merged_down.add(*it);
  ExactSum tree = parts[0];
  ExactSum right = parts[4];
  for (int i = 1; i < 4; ++i) tree.add(parts[i]);
  for (int i = 5; i < 7; ++i) right.add(parts[i]);
  tree.add(right);
  for (const ExactSum* s : {&backward, &reshuffled, &merged_up, &merged_down, &tree}) {
    EXPECT_TRUE(*s == forward) << s->to_text() << " vs " << forward.to_text();
    EXPECT_EQ(s->to_text(), forward.to_text());
  }
  // Merging a sum into itself doubles it.
  ExactSum doubled = forward;
  doubled.add(doubled);
  ExactSum twice = forward;
  for (double x : terms) twice.add(x);
  EXPECT_TRUE(doubled == twice);
  // Equal values from different terms are equal objects: 3 = 1 + 2 = 4 - 1.
  ExactSum a, b;
  a.add(1);
  a.add(2);
  b.add(4);
  b.add(-1);
  EXPECT_TRUE(a == b);
  ExactSum cancelled;
  cancelled.add(0.1);
  cancelled.add(-0.1);
  EXPECT_TRUE(cancelled == ExactSum());
  EXPECT_EQ(cancelled.to_text(), "0");
}

// Carry safety at the propagation threshold, reached through the test hook instead of 2^30 real adds
// (~2 s, too slow for the sanitizer runs; DISABLED_ManyAddsOfOneValue below does it for real).
// The slots are preloaded with the state K = 2^30 - 3 adds of x produce (x's three digits times K,
// the largest digits any double has: m = 2^53 - 1 shifted by 31), then 10 more adds cross the
// threshold; the result must be exactly (K + 10) x and the counter must have restarted.
TEST(ExactSum, CarryThreshold) {
  for (const double x : {std::ldexp(9007199254740991.0, 31 - 1074 + 32 * 10), -std::ldexp(9007199254740991.0, 31 - 1074 + 32 * 10)}) {
    SCOPED_TRACE("x " + show(x));
    ExactSum s;
    ExactSum one;  // one unpropagated add: the (signed) digits each further add of x contributes
    one.add(x);
    constexpr std::int64_t kAlready = (std::int64_t{1} << 30) - 3;
    std::int64_t* d = ExactSumTestAccess::digits(s);
    const std::int64_t* unit = ExactSumTestAccess::digits(one);
    for (int i = 0; i < 70; ++i) d[i] = unit[i] * kAlready;  // unpropagated: |slot| up to 2^62
    ExactSumTestAccess::pending(s) = static_cast<std::uint32_t>(kAlready);
    for (int i = 0; i < 10; ++i) s.add(x);
    EXPECT_LT(ExactSumTestAccess::pending(s), 10u) << "no propagation at the threshold";
    mpfr_t expected;
    mpfr_init2(expected, kExactBits);
    mpfr_set_d(expected, x, MPFR_RNDN);
    mpfr_mul_si(expected, expected, kAlready + 10, MPFR_RNDN);
    Ref ref;
    mpfr_set(ref.v, expected, MPFR_RNDN);
    expect_matches(s, ref);
    mpfr_clear(expected);
  }
}

// 3 * 2^30 adds of the value with the largest digits (~5 s in Release): run by hand with
// --gtest_also_run_disabled_tests.
TEST(ExactSum, DISABLED_ManyAddsOfOneValue) {
  const double x = std::ldexp(9007199254740991.0, 31 - 1074 + 32 * 20);
  const std::int64_t count = 3 * (std::int64_t{1} << 30);
  ExactSum s;
  for (std::int64_t i = 0; i < count; ++i) s.add(x);
  Ref ref;
  mpfr_set_d(ref.v, x, MPFR_RNDN);
  mpfr_mul_si(ref.v, ref.v, count, MPFR_RNDN);
  expect_matches(s, ref);
}

TEST(ExactSum, NonFiniteTermsAreCountedNotAdded) {
  ExactSum s;
  s.add(1.5);
  s.add(std::numeric_limits<double>::infinity());
  s.add(-std::numeric_limits<double>::infinity());
  s.add(std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(s.non_finite(), 3u);
  EXPECT_TRUE(std::isnan(s.value()));
  EXPECT_EQ(s.to_text(), "3p-1;nf=3");
  EXPECT_EQ(s.bits_needed(), 1075);  // 1.5 * 2^1074 = 3 * 2^1073
  ScopedPrecision precision(64);
  EXPECT_TRUE(boost::multiprecision::isnan(s.to_real()));
  ExactSum finite;
  finite.add(1.5);
  EXPECT_FALSE(s == finite);
  ExactSum merged = finite;
  merged.add(s);
  EXPECT_EQ(merged.non_finite(), 3u);
  EXPECT_EQ(merged.to_text(), "3p0;nf=3");
}

TEST(ExactSum, TextIsCanonical) {
  const auto text = [](std::initializer_list<double> terms) {
    ExactSum s;
    for (double x : terms) s.add(x);
    return s.to_text();
  };
  EXPECT_EQ(text({1}), "1p0");
  EXPECT_EQ(text({-0.75}), "-3p-2");
  EXPECT_EQ(text({std::ldexp(1.0, -1074)}), "1p-1074");
  EXPECT_EQ(text({DBL_MAX}), "1fffffffffffffp971");
  EXPECT_EQ(text({DBL_MAX, DBL_MAX}), "1fffffffffffffp972");
  EXPECT_EQ(text({0.5, 0.25}), "3p-2");
  EXPECT_EQ(text({-0.0, 0.0}), "0");
}

TEST(ExactSum, TextRoundTrips) {
  const CounterRng rng(99, 3);
  for (std::uint64_t t = 0; t < 200; ++t) {
    ExactSum s;
    const int count = static_cast<int>(rng.bits(t * 1000) % 20);
    for (int i = 0; i < count; ++i) s.add(any_finite(rng.bits(t * 1000 + 1 + i)));
    if (t % 17 == 0) s.add(std::numeric_limits<double>::quiet_NaN());
    const std::string text = s.to_text();
    const ExactSum back = ExactSum::from_text(text, "--test");
    EXPECT_TRUE(back == s) << text;
    EXPECT_EQ(back.to_text(), text);
    EXPECT_EQ(back.bits_needed(), s.bits_needed()) << text;
  }
  // The extremes from_text accepts.
  for (const char* text : {"1p-1074", "-1p1165", "1p1165", "ffffffffffffffffffffffffffffffffp1037", "0;nf=18446744073709551615", "-3p1164"}) {
    EXPECT_EQ(ExactSum::from_text(text, "--test").to_text(), text);
  }
  const ExactSum big = ExactSum::from_text("1p1165", "--test");
  EXPECT_EQ(big.value(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(big.bits_needed(), 1165 + 1074 + 1);
}

TEST(ExactSum, MalformedTextIsRefusedNamingTheInput) {
  for (const char* text : {"", "-", "p0", "1", "1p", "1p+1", "1p01", "1p-0", "-0", "0p0", "01p0", "2p0", "1ap0",
                           "1Fp0", "0x1p0", "1.5p0", "1p-1075", "1p1166", "-1p1166", "1p0;", "1p0;nf=", "1p0;nf=0",
                           "1p0;nf=01", "1p0;nf=-1", "1p0;NF=1", "1p0;nf=1;nf=1", " 1p0", "1p0 ", "g1p0", "1p99999999", "3p1165",
                           "1p0;nf=18446744073709551616"}) {
    SCOPED_TRACE(std::string("text '") + text + "'");
    try {
      (void)ExactSum::from_text(text, "partial.json: s1");
      ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.input(), "partial.json: s1");
      EXPECT_NE(std::string(e.what()).find("canonical exact-sum text"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace ropecheck
