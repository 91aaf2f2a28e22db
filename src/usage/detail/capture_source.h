// File: detail/capture_source.h
// What every CaptureSource (usage/capture.h) shares: the geometry, dtypes, positions, token ids and
// the sequence-major block loop; a source supplies the bytes of each block (read_block). The file,
// memory and Gaussian-null sources derive from it. Private to src/usage.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "usage/capture.h"
#include "usage/detail/capture_checks.h"

namespace ropecheck::usage {

struct SourceParts {
  CaptureGeometry geometry;
  Dtype q_dtype = Dtype::f32, k_dtype = Dtype::f32;
  CaptureNames names;
  std::vector<std::vector<long long>> positions;  // one entry (every sequence) or one per sequence
  std::optional<std::string> source;
  std::vector<std::vector<long long>> token_ids;  // as positions; empty without token ids
};

class SourceBase : public CaptureSource {
 public:
  explicit SourceBase(SourceParts parts) : p_(std::move(parts)) {}

  const CaptureGeometry& geometry() const override { return p_.geometry; }
  Dtype q_dtype() const override { return p_.q_dtype; }
  Dtype k_dtype() const override { return p_.k_dtype; }
  const std::vector<long long>& positions(long long sequence) const override;
  std::optional<std::string> source() const override { return p_.source; }
  bool has_token_ids() const override { return !p_.token_ids.empty(); }
  const std::vector<long long>* token_ids(long long sequence) const override;
  std::string describe() const override { return describe_capture(p_.names.label, p_.geometry, p_.q_dtype, p_.k_dtype); }
  // Sets the block's shape and sizes its buffers, calls read_block, then checks every value finite
  // (InputError naming the element).
  bool next(CaptureBlock& block) override;

 protected:
  // Fills block.q_bytes and block.k_bytes (sized; block.sequence and block.layer set) with the
  // block's data; `last`: no block follows.
  virtual void read_block(CaptureBlock& block, bool last) = 0;

 private:
  SourceParts p_;
  long long sequence_ = 0, layer_ = 0;
};

}  // namespace ropecheck::usage
