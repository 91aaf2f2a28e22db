// File: sha256.h
// SHA-256 (FIPS 180-4), for content checksums of result files (Monte Carlo partials, reports,
// counterexamples). Own implementation: no crypto library is among the project's dependencies, and
// these are integrity checks against truncation and editing, not a security boundary.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace ropecheck {

// Returns: the SHA-256 digest of `bytes` as 64 lower-case hex characters.
std::string sha256_hex(std::string_view bytes);

// Incremental form, for large inputs.
class Sha256 {
 public:
  Sha256();
  void update(std::string_view bytes);
  std::array<std::uint8_t, 32> finish();  // the object must not be updated afterwards
 private:
  std::array<std::uint32_t, 8> h_;
  std::array<std::uint8_t, 64> block_;
  std::uint64_t length_ = 0;  // bytes seen
  std::size_t used_ = 0;      // bytes in block_
};

}  // namespace ropecheck
