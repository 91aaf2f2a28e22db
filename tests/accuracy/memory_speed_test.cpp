// The speed routine shared by the kernel benchmark and the report: medians (odd, even, infinite),
// the ratio as the median of per-pair ratios (not a ratio of medians), touched page-aligned
// buffers, the seeded pair order, the multi-threaded baseline, and one timed pair that copies the baseline's own buffers and runs
// the implementation once, in the order given.
#include "accuracy/memory_speed.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

namespace ropecheck::accuracy {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

TEST(MemorySpeed, Median) {
  EXPECT_EQ(median(std::vector<double>{3}), 3);
  EXPECT_EQ(median(std::vector<double>{5, 1, 4}), 4);
  EXPECT_EQ(median(std::vector<double>{4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median(std::vector<double>{kInfinity, 1, kInfinity}), kInfinity);
  EXPECT_EQ(median(std::vector<double>{kInfinity, kInfinity}), kInfinity);
  EXPECT_THROW(median(std::vector<double>{}), std::invalid_argument);
}

TEST(MemorySpeed, SummaryTakesTheMedianOfThePairRatios) {
  // memcpy {1, 4, 2}, implementation {2, 2, 4} -> ratios {0.5, 2, 0.5}: median 0.5, while
  // median(memcpy) / median(implementation) = 2 / 2 = 1.
  const std::vector<PairTiming> pairs = {{1, 2}, {4, 2}, {2, 4}};
  const SpeedSummary s = summarize_speed(pairs);
  EXPECT_EQ(s.repetitions, 3);
  EXPECT_EQ(s.median_seconds, 2);
  EXPECT_EQ(s.median_memcpy_seconds, 2);
  EXPECT_EQ(s.ratio_to_memcpy, 0.5);
  EXPECT_EQ(summarize_speed(std::vector<PairTiming>{{1, 0}}).ratio_to_memcpy, kInfinity);
  EXPECT_THROW(summarize_speed(std::vector<PairTiming>{}), std::invalid_argument);
}

TEST(MemorySpeed, GigabytesPerSecond) {
  EXPECT_EQ(gb_per_s(2e9, 0.5), 4);
  EXPECT_EQ(gb_per_s(1, 0), kInfinity);
}

TEST(MemorySpeed, BuffersArePageAlignedAndTouched) {
  for (std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{4096}, std::size_t{10000}}) {
    TouchedBuffer b(bytes, 0x3C);
    EXPECT_EQ(b.size(), bytes);
    ASSERT_NE(b.data(), nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b.data()) % 4096, 0u) << bytes;
    for (std::size_t i = 0; i < bytes; ++i) ASSERT_EQ(b.data()[i], 0x3C) << i;
  }
}

TEST(MemorySpeed, SplitMixIsTheReferenceSequence) {
  // The published SplitMix64 outputs for seeds 0 and 1234567.
  SplitMix64 zero(0);
  EXPECT_EQ(zero.next(), 0xE220A8397B1DCDAFu);
  EXPECT_EQ(zero.next(), 0x6E789E6AA1B965F4u);
  SplitMix64 r(1234567);
  EXPECT_EQ(r.next(), 6457827717110365317u);
  EXPECT_EQ(r.next(), 3203168211198807973u);
  EXPECT_EQ(r.next(), 9817491932198370423u);
}

TEST(MemorySpeed, PairOrdersAreSeededAndMixBothOrders) {
  PairOrders a(42), b(42);
  EXPECT_EQ(a.seed(), 42u);
  int first = 0;
  for (int i = 0; i < 200; ++i) {
    const PairOrder o = a.next();
    EXPECT_EQ(o, b.next()) << i;
    first += o == PairOrder::memcpy_first;
  }
  EXPECT_GT(first, 50);
  EXPECT_LT(first, 150);
}

TEST(MemorySpeed, APairCopiesItsOwnBuffersAndRunsTheImplementationOnceInTheGivenOrder) {
  MemcpyBaseline baseline(1 << 20);
  ASSERT_EQ(baseline.bytes(), std::size_t{1} << 20);
  for (PairOrder order : {PairOrder::memcpy_first, PairOrder::implementation_first}) {
    MemcpyBaseline fresh(1 << 20);
    int runs = 0;
    bool copied_before = false;
    const PairTiming t = time_against_memcpy(fresh, [&] {
      ++runs;
      copied_before = fresh.destination()[0] == 0x3C && fresh.destination()[fresh.bytes() - 1] == 0x3C;
    }, order);
    EXPECT_EQ(runs, 1);
    EXPECT_EQ(copied_before, order == PairOrder::memcpy_first);
    // The copy happened either way, into the baseline's own destination.
    EXPECT_EQ(fresh.destination()[0], 0x3C);
    EXPECT_EQ(fresh.destination()[fresh.bytes() - 1], 0x3C);
    EXPECT_GE(t.memcpy_seconds, 0);
    EXPECT_GE(t.seconds, 0);
  }
}

TEST(MemorySpeed, ATwoThreadBaselineCopiesEveryByteOnce) {
  // An odd size: the parts need not be equal or aligned.
  for (int threads : {2, 3}) {
    MemcpyBaseline baseline((1 << 20) + 7, threads);
    EXPECT_EQ(baseline.threads(), threads);
    baseline.run();
    int wrong = 0;
    for (std::size_t i = 0; i < baseline.bytes(); ++i) wrong += baseline.destination()[i] != 0x3C;
    EXPECT_EQ(wrong, 0) << threads << " threads";
  }
  EXPECT_THROW(MemcpyBaseline(64, 0), std::invalid_argument);
}

}  // namespace
}  // namespace ropecheck::accuracy
