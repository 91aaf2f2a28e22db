#include "adversarial/moved_key.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "attention/activation.h"
#include "io/input_error.h"
#include "numeric/precision.h"
#include "spectrum/frequencies.h"

namespace ropecheck::adversarial {
namespace {

// One pair turning 1 rad per token (d = 2: g = theta^0 = 1), q = k = (1, 0): a(t) = cos t exactly.
MovedKey cosine_against(double runner_constant) {
  MovedKey m;
  m.spectrum = Spectrum(2, "10000");
  m.query = {1, 0};
  m.key = {1, 0};
  m.runner = {0, 0};
  m.query_pass = {1};
  m.key_pass = {0};
  m.runner_pass = {runner_constant};  // a' = runner_constant at every distance
  m.runner_distance = 5;
  return m;
}

TEST(MovedKey, CosineLosesFirstAtTwo) {
  // cos 0 = 1, cos 1 = 0.54 > 0.5, cos 2 = -0.42 < 0.5: the shortest losing distance is 2.
  const MovedKeyBreak b = certify_moved_key_break(cosine_against(0.5), 100);
  EXPECT_EQ(b.outcome, MovedKeyBreak::Outcome::found) << outcome_name(b.outcome);
  EXPECT_EQ(b.distance, 2);
  EXPECT_EQ(b.mpfi_distances, 0);
}

TEST(MovedKey, NeverLosesBelowTheCosinesFloor) {
  const MovedKeyBreak b = certify_moved_key_break(cosine_against(-1.5), 1000);
  EXPECT_EQ(b.outcome, MovedKeyBreak::Outcome::none) << outcome_name(b.outcome) << " at " << b.distance;
  EXPECT_EQ(b.max_distance, 1000);
}

TEST(MovedKey, AnExactTieIsUndecidedNotAWin) {
  // The runner-up is the key itself at distance 0: a(0) = a' exactly, which no precision separates.
  MovedKey m = cosine_against(0);
  m.runner = m.key;
  m.runner_distance = 0;
  const MovedKeyBreak b = certify_moved_key_break(m, 10);
  EXPECT_EQ(b.outcome, MovedKeyBreak::Outcome::undecided) << outcome_name(b.outcome);
  EXPECT_EQ(b.distance, 0);
  EXPECT_GT(b.mpfi_distances, 0);
}

// Against a direct MPFI evaluation at every distance: the certified answer is the first distance
// whose enclosure lies below the runner-up's, and every earlier one lies above.
TEST(MovedKey, AgreesWithMpfiAtEveryDistance) {
  MovedKey m;
  m.spectrum = Spectrum(8, "10000");
  m.query = {0.9, -0.3, 0.2, 0.7, -0.4, 0.1, 1.3, 0.2};
  m.key = {1.1, -0.2, 0.3, 0.5, -0.2, 0.4, 1.0, -0.1};
  m.runner = {0.2, 0.8, -0.5, 0.3, 0.6, 0.2, 0.9, 0.3};
  m.runner_distance = 3;
  const long long max_distance = 400;
  const MovedKeyBreak b = certify_moved_key_break(m, max_distance);
  ASSERT_EQ(b.outcome, MovedKeyBreak::Outcome::found) << outcome_name(b.outcome);
  ScopedPrecision precision(128);
  const std::vector<Interval> g = frequencies<Interval>(m.spectrum);
  Vector<Interval> q(8), k(8), r(8);
  for (int i = 0; i < 8; ++i) {
    q[i] = Interval(m.query[static_cast<size_t>(i)]);
    k[i] = Interval(m.key[static_cast<size_t>(i)]);
    r[i] = Interval(m.runner[static_cast<size_t>(i)]);
  }
  const Interval runner = activation<Interval>(q, r, -m.runner_distance, g);
  for (long long t = 0; t <= b.distance; ++t) {
    const Interval a = activation<Interval>(q, k, -t, g);
    if (t < b.distance)
      EXPECT_TRUE(lower_of(a) > upper_of(runner)) << "t=" << t << " a=" << lower_of(a) << " runner=" << upper_of(runner);
    else
      EXPECT_TRUE(upper_of(a) < lower_of(runner)) << "t=" << t << " a=" << upper_of(a) << " runner=" << lower_of(runner);
  }
}

TEST(MovedKey, RefusesBadVectors) {
  MovedKey m = cosine_against(0.5);
  m.key = {1, 0, 0};
  EXPECT_THROW(certify_moved_key_break(m, 10), InputError);
  m = cosine_against(0.5);
  m.query[1] = std::nan("");
  EXPECT_THROW(certify_moved_key_break(m, 10), InputError);
  m = cosine_against(0.5);
  EXPECT_THROW(certify_moved_key_break(m, -1), InputError);
  m.runner_distance = -2;
  EXPECT_THROW(certify_moved_key_break(m, 10), InputError);
}

}  // namespace
}  // namespace ropecheck::adversarial

namespace ropecheck::adversarial {
namespace {

// Moved back from where it is: cos t < 0.5 first at t = 2, but from t = 5 on (cos 5 = 0.28) it is
// already losing; from 6 (cos 6 = 0.96) the next loss is at 8 (cos 7 = 0.75, cos 8 = -0.15).
TEST(MovedKey, SearchesFromTheKeysOwnDistance) {
  MovedKey m = cosine_against(0.5);
  m.from_distance = 6;
  const MovedKeyBreak b = certify_moved_key_break(m, 100);
  EXPECT_EQ(b.outcome, MovedKeyBreak::Outcome::found);
  EXPECT_EQ(b.distance, 8);
  EXPECT_THROW(certify_moved_key_break(m, 5), InputError);  // max_distance below from_distance
}

}  // namespace
}  // namespace ropecheck::adversarial

namespace ropecheck::adversarial {
namespace {

// A margin raises the bar: with a' = 0.5 and m = 0.3 the key loses once cos t < 0.8, first at
// t = 1 (cos 1 = 0.540); with m = -1.6 it never does (cos t >= -1 > 0.5 - 1.6).
TEST(MovedKey, AMarginMovesTheThreshold) {
  MovedKey m = cosine_against(0.5);
  m.margin_low = m.margin_high = 0.3;
  MovedKeyBreak b = certify_moved_key_break(m, 100);
  EXPECT_EQ(b.outcome, MovedKeyBreak::Outcome::found) << outcome_name(b.outcome);
  EXPECT_EQ(b.distance, 1);
  m.margin_low = m.margin_high = -1.6;
  b = certify_moved_key_break(m, 1000);
  EXPECT_EQ(b.outcome, MovedKeyBreak::Outcome::none) << outcome_name(b.outcome) << " at " << b.distance;
}

// A margin known only to lie in [0, 0.1] cannot decide t = 1, where a(1) - a' = cos 1 - 0.5 = 0.040
// lies inside it: undecided there, not a win (t = 0 wins: 0.5 > 0.1).
TEST(MovedKey, AMarginIntervalThatCoversTheGapIsUndecided) {
  MovedKey m = cosine_against(0.5);
  m.margin_low = 0;
  m.margin_high = 0.1;
  const MovedKeyBreak b = certify_moved_key_break(m, 100);
  EXPECT_EQ(b.outcome, MovedKeyBreak::Outcome::undecided) << outcome_name(b.outcome);
  EXPECT_EQ(b.distance, 1);
  m.margin_low = 0.2;  // above margin_high
  EXPECT_THROW(certify_moved_key_break(m, 100), InputError);
  m.margin_low = -std::numeric_limits<double>::infinity();
  EXPECT_THROW(certify_moved_key_break(m, 100), InputError);
}

}  // namespace
}  // namespace ropecheck::adversarial
