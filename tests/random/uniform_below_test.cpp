#include "random/uniform_below.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace ropecheck {
namespace {

// Feeds `first` to the first call and the all-ones word afterwards (which Lemire's test always
// accepts: its low half 2^w - s is >= 2^w mod s for every s), noting whether a second call came.
template <class Word>
struct OneWord {
  Word first;
  int calls = 0;
  Word operator()() { return calls++ == 0 ? first : static_cast<Word>(~Word{0}); }
};

// Exactness, exhaustively: for w-bit words and a given s, the accepted words (those answered on
// the first call) must map to each value of [0, s) exactly floor(2^w / s) times. That is the whole
// uniformity argument; it is checked for every s at w = 8 and for a spread of s at w = 16.
template <class Word, class Wide>
void expect_exact(std::uint32_t s) {
  constexpr std::uint64_t kWords = std::uint64_t{1} << std::numeric_limits<Word>::digits;
  std::vector<std::uint64_t> count(s, 0);
  for (std::uint64_t x = 0; x < kWords; ++x) {
    OneWord<Word> source{static_cast<Word>(x)};
    const Word value = uniform_below<Word, Wide>(static_cast<Word>(s), source);
    ASSERT_LT(value, s) << "s=" << s << " x=" << x;
    ASSERT_LE(source.calls, 2);
    if (source.calls == 1) ++count[value];
  }
  for (std::uint32_t v = 0; v < s; ++v) {
    ASSERT_EQ(count[v], kWords / s) << "w=" << std::numeric_limits<Word>::digits << " s=" << s << " value " << v;
  }
}

TEST(UniformBelow, ExactlyUniformForEveryRangeOnEightBitWords) {
  for (std::uint32_t s = 1; s <= 255; ++s) expect_exact<std::uint8_t, std::uint16_t>(s);
}

TEST(UniformBelow, ExactlyUniformOnSixteenBitWords) {
  for (std::uint32_t s : {1u, 2u, 3u, 5u, 7u, 10u, 100u, 255u, 256u, 257u, 1000u, 4097u, 21845u, 21846u, 32767u,
                          32768u, 32769u, 40000u, 65535u}) {
    expect_exact<std::uint16_t, std::uint32_t>(s);
  }
}

TEST(UniformBelow, SixtyFourBitRejectionConsumesTheNextWord) {
  // s = 3: 2^64 mod 3 = 1, so exactly the word 0 (low half 0) is rejected. Words 0 then 2^63:
  // 3 * 2^63 = 2^64 + 2^63, high half 1.
  std::vector<std::uint64_t> words = {0, std::uint64_t{1} << 63};
  std::size_t used = 0;
  const auto next = [&] { return words.at(used++); };
  EXPECT_EQ(uniform_below_u64(3, next), 1u);
  EXPECT_EQ(used, 2u);
  // s = 2^63 + 1: 2^64 mod s = 2^63 - 1; the word 1 gives low half s (accepted, value 0), the word
  // 2 gives low half 2 (rejected), the word 2^64 - 1 gives low half 2^64 - s = 2^63 - 1 (accepted)
  // and value s - 1.
  const std::uint64_t big = (std::uint64_t{1} << 63) + 1;
  words = {2, ~std::uint64_t{0}};
  used = 0;
  EXPECT_EQ(uniform_below_u64(big, next), big - 1);
  EXPECT_EQ(used, 2u);
  words = {1};
  used = 0;
  EXPECT_EQ(uniform_below_u64(big, next), 0u);
  EXPECT_EQ(used, 1u);
}

}  // namespace
}  // namespace ropecheck
