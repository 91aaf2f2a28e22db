// The speed routine shared by the kernel benchmark and the report: medians (odd, even, infinite),
// the ratio as the median of per-pair ratios (not a ratio of medians), touched page-aligned
// buffers, and one timed pair that copies, then runs the implementation once.
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

TEST(MemorySpeed, APairCopiesThenRunsTheImplementationOnce) {
  TouchedBuffer in(1 << 20, 0x11), out(1 << 20, 0);
  int runs = 0;
  bool copied_first = false;
  const PairTiming t = time_against_memcpy(out.data(), in.data(), in.size(), [&] {
    ++runs;
    copied_first = out.data()[0] == 0x11 && out.data()[in.size() - 1] == 0x11;
    out.data()[0] = 0x22;
  });
  EXPECT_EQ(runs, 1);
  EXPECT_TRUE(copied_first);
  EXPECT_EQ(out.data()[0], 0x22);
  EXPECT_GE(t.memcpy_seconds, 0);
  EXPECT_GE(t.seconds, 0);
}

}  // namespace
}  // namespace ropecheck::accuracy
