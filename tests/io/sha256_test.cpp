#include "io/sha256.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace ropecheck {
namespace {

std::string to_hex(const std::array<std::uint8_t, 32>& digest) {
  std::string out;
  char buf[3];
  for (const std::uint8_t byte : digest) {
    std::snprintf(buf, sizeof buf, "%02x", byte);
    out += buf;
  }
  return out;
}

// FIPS 180-4's examples (NIST "SHA256.pdf" and the long-message vector of FIPS 180-2 appendix B.3).
TEST(Sha256, Fips180Vectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),  // 448 bits
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrs"
                       "mnopqrstnopqrstu"),  // 896 bits
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// The padding's branch points: 55 bytes is the longest message whose length fits in its last block,
// 56..63 need one more block, 64 exactly fills one. Expected digests from Python's hashlib.
TEST(Sha256, PaddingBoundaries) {
  const std::pair<std::size_t, const char*> cases[] = {
      {55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
      {56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
      {63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
      {64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
      {65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"},
      {119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
      {120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"},
  };
  for (const auto& [length, expected] : cases) EXPECT_EQ(sha256_hex(std::string(length, 'a')), expected) << length;
}

TEST(Sha256, IncrementalEqualsOneShotAtEverySplit) {
  std::string message(200, '\0');
  for (std::size_t i = 0; i < message.size(); ++i) message[i] = static_cast<char>((i * 37 + 11) % 256);
  // Independent reference: hashlib.sha256(bytes((i*37+11)%256 for i in range(200))).hexdigest().
  const std::string expected = "5e48d64839a8bff5e2471507af6a49f9990817df437857f4a2007df41266e1b5";
  ASSERT_EQ(sha256_hex(message), expected);
  const std::string_view view(message);
  for (std::size_t split = 0; split <= message.size(); ++split) {
    Sha256 two;
    two.update(view.substr(0, split));
    two.update(view.substr(split));
    EXPECT_EQ(to_hex(two.finish()), expected) << "split at " << split;
  }
  // Byte by byte: every partial-block path.
  Sha256 bytewise;
  for (const char c : message) bytewise.update(std::string_view(&c, 1));
  EXPECT_EQ(to_hex(bytewise.finish()), expected);
}

}  // namespace
}  // namespace ropecheck
