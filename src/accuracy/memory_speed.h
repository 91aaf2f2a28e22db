// File: memory_speed.h
// An implementation's speed against memory speed, the one routine behind the kernel benchmark
// (bench/kernel_bench.cpp) and the report's kernel section (report/kernel_section.h).
//
// The project's rule for timings on this shared, noisy machine: a ratio is measured against a
// baseline in the same run, and repeated runs are summarised by their median. The baseline here
// is memcpy of the same number of bytes, the physical limit of an out-of-place pass (it reads and
// writes what the implementation must). Method (what a caller sees):
//  - The baseline copies between its OWN two buffers (MemcpyBaseline), never the implementation's:
//    a copy from the implementation's input into its output just before it runs would leave the
//    implementation's data in the cache (at 16-64 MiB, about this machine's L3) and flatter it.
//  - Each repetition is a timed pair, memcpy and the implementation back to back, so a slow phase
//    of the machine hits both alike; the order within each pair is drawn from a seeded SplitMix64
//    (PairOrders), so neither side always runs on the cache state the other left.
//  - Repetitions are summarised by medians: of the implementation's times, of memcpy's times, and
//    of the per-pair ratios memcpy / implementation (summarize_speed).
//
// Timings are measurements, not results: nothing here is deterministic, and no caller writes them
// to a result (the report puts them in timings, which `report --compare` does not hold to equality).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>

#include "numeric/small_floats.h"

namespace ropecheck::accuracy {

// A page-aligned (4096-byte) buffer of `bytes` bytes, every byte set to `fill` beforehand, so that
// first-touch page faults are not part of any measurement. Throws std::bad_alloc.
class TouchedBuffer {
 public:
  TouchedBuffer(std::size_t bytes, int fill);
  unsigned char* data() { return data_.get(); }
  const unsigned char* data() const { return data_.get(); }
  std::size_t size() const { return bytes_; }

 private:
  struct Free {
    void operator()(void* p) const;
  };
  std::unique_ptr<unsigned char, Free> data_;
  std::size_t bytes_;
};

// Keeps the compiler from dropping a store nobody reads (a memcpy into a buffer freed unread) or
// moving memory accesses across a timing point.
inline void clobber_memory(const void* p) { asm volatile("" : : "r"(p) : "memory"); }

// The baseline: memcpy of `bytes` bytes from its own touched source buffer into its own touched
// destination buffer (both page-aligned, like the implementations' buffers). With threads > 1
// (the baseline of a multi-threaded implementation) the bytes are split into `threads` contiguous
// parts, each copied by one thread, started per run as the kernel starts its workers
// (cpu::split_tokens: part 0 on the calling thread).
class MemcpyBaseline {
 public:
  explicit MemcpyBaseline(std::size_t bytes, int threads = 1);
  std::size_t bytes() const { return src_.size(); }
  int threads() const { return threads_; }
  const unsigned char* destination() const { return dst_.data(); }
  void run();  // memcpy(destination, source, bytes) over threads(), then clobber_memory(destination)

 private:
  TouchedBuffer src_, dst_;
  int threads_;
};

// SplitMix64 (Steele, Lea and Flood 2014): a tiny seeded generator, the same sequence for the same
// seed on every machine (no std:: distribution involved).
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
  }

 private:
  std::uint64_t state_;
};

// Fills `n` elements with values uniform in (-4, 4) from SplitMix64(seed) (53 random bits, then
// rounded to the type): ordinary activations, on which the kernel's rounding tests fail as often
// as on a caller's data (a bfloat16 output about once in 2^13; a constant input would hide that).
void fill_uniform(float* data, std::size_t n, std::uint64_t seed);
void fill_uniform(Bf16Bits* data, std::size_t n, std::uint64_t seed);
void fill_uniform(F16Bits* data, std::size_t n, std::uint64_t seed);

enum class PairOrder { memcpy_first, implementation_first };

// The order of each pair: one bit of SplitMix64(seed) per pair (the top bit of each output).
class PairOrders {
 public:
  explicit PairOrders(std::uint64_t seed) : seed_(seed), rng_(seed) {}
  std::uint64_t seed() const { return seed_; }
  PairOrder next() { return (rng_.next() >> 63) != 0 ? PairOrder::implementation_first : PairOrder::memcpy_first; }

 private:
  std::uint64_t seed_;
  SplitMix64 rng_;
};

// One repetition: baseline.run() and run() in `order`, each timed alone (std::chrono::steady_clock;
// `run` must end its own memory effects, e.g. by clobber_memory on what it wrote, or write through
// a pointer the compiler cannot see through, as apply_rope does).
struct PairTiming {
  double memcpy_seconds = 0;
  double seconds = 0;
};
PairTiming time_against_memcpy(MemcpyBaseline& baseline, const std::function<void()>& run, PairOrder order);

// The medians of repeated pairs. ratio_to_memcpy is the median over the pairs of
// memcpy_seconds / seconds (each ratio within one pair; 1 = memory speed; +inf for a pair whose
// implementation took 0 s). For an even count the median is the mean of the two middle values.
struct SpeedSummary {
  int repetitions = 0;
  double median_seconds = 0;          // the implementation's
  double median_memcpy_seconds = 0;   // the baseline's, over the same pairs
  double ratio_to_memcpy = 0;
};
// Throws std::invalid_argument for an empty span (a programming error: no repetition ran).
SpeedSummary summarize_speed(std::span<const PairTiming> pairs);

// The median of `values` (copied; the mean of the two middle values for an even count).
// Throws std::invalid_argument for an empty span.
double median(std::span<const double> values);

// bytes / seconds in GB/s (1e9 bytes per second); +inf for 0 s.
double gb_per_s(double bytes, double seconds);

}  // namespace ropecheck::accuracy
