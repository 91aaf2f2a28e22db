// File: memory_speed.h
// An implementation's speed against memory speed, the one routine behind the kernel benchmark
// (bench/kernel_bench.cpp) and the report's kernel section (report/kernel_section.h).
//
// The project's rule for timings on this shared, noisy machine: a ratio is measured against a
// baseline in the same run, and repeated runs are summarised by their median. The baseline here
// is memcpy of the same bytes, the physical limit of an out-of-place pass (it reads and writes
// what the implementation must). Each repetition is a timed pair: memcpy, then the
// implementation, back to back, so a slow phase of the machine hits both alike.
//
// Timings are measurements, not results: nothing here is deterministic, and no caller writes them
// to a result (the report puts them in timings, which `report --compare` does not hold to equality).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>

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

// One repetition: the seconds of memcpy(dst, src, bytes), then of run() (which writes dst), each
// followed by clobber_memory(dst) before the clock is read (std::chrono::steady_clock).
struct PairTiming {
  double memcpy_seconds = 0;
  double seconds = 0;
};
PairTiming time_against_memcpy(void* dst, const void* src, std::size_t bytes, const std::function<void()>& run);

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
