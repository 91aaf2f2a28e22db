// decimal_to_rational: the exact rational of a plain decimal, compared with the fraction written
// by hand; anything else is refused (the caller keeps its enclosure).
#include "numeric/decimal_rational.h"

#include <gtest/gtest.h>

#include <string>

#include "numeric/mp_handles.h"
#include "tests/support/show.h"

namespace ropecheck {
namespace {

std::string rational(const std::string& text) {
  Mpq q;
  if (!decimal_to_rational(text, q.v)) return "refused";
  return show(q.v);
}

TEST(DecimalRational, PlainDecimalsAreExact) {
  EXPECT_EQ(rational("1.43"), "143/100");
  EXPECT_EQ(rational("-2.5e-3"), "-1/400");
  EXPECT_EQ(rational("1e4"), "10000");
  EXPECT_EQ(rational("+.5"), "1/2");
  EXPECT_EQ(rational("5."), "5");
  EXPECT_EQ(rational("0.000"), "0");
  EXPECT_EQ(rational("1.3465735902799727"), "13465735902799727/10000000000000000");
  EXPECT_EQ(rational("12E-1"), "6/5");
  EXPECT_EQ(rational(" \t1.43"), "143/100");  // leading white space, as MPFR reads it
}

TEST(DecimalRational, EverythingElseIsRefused) {
  for (const char* text : {"", "-", ".", "e5", "1e", "1e+", "2 ", "1.2.3", "0x1p3", "inf", "nan", "1/2", "1e5000", "1e-99999999999"})
    EXPECT_EQ(rational(text), "refused") << "'" << text << "'";
}

}  // namespace
}  // namespace ropecheck
