#include "accuracy/memory_speed.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>
#include <vector>

#include "cpu/split_tokens.h"
#include "numeric/small_floats.h"

namespace ropecheck::accuracy {

void TouchedBuffer::Free::operator()(void* p) const { std::free(p); }

TouchedBuffer::TouchedBuffer(std::size_t bytes, int fill) : bytes_(bytes) {
  // aligned_alloc wants a size that is a multiple of the alignment (and at least one page here).
  const std::size_t rounded = std::max<std::size_t>(1, (bytes + 4095) / 4096) * 4096;
  auto* p = static_cast<unsigned char*>(std::aligned_alloc(4096, rounded));
  if (p == nullptr) throw std::bad_alloc();
  std::memset(p, fill, bytes);
  data_.reset(p);
}

MemcpyBaseline::MemcpyBaseline(std::size_t bytes, int threads) : src_(bytes, 0x3C), dst_(bytes, 0), threads_(threads) {
  if (threads < 1) throw std::invalid_argument("MemcpyBaseline: threads must be >= 1");
}

void MemcpyBaseline::run() {
  if (threads_ == 1) {
    std::memcpy(dst_.data(), src_.data(), src_.size());
  } else {
    const auto bytes = static_cast<std::int64_t>(src_.size());
    cpu::split_tokens(bytes, std::min<std::int64_t>(threads_, std::max<std::int64_t>(bytes, 1)),
                      [&](std::int64_t b0, std::int64_t b1, std::int64_t) {
                        std::memcpy(dst_.data() + b0, src_.data() + b0, static_cast<std::size_t>(b1 - b0));
                      });
  }
  clobber_memory(dst_.data());
}

PairTiming time_against_memcpy(MemcpyBaseline& baseline, const std::function<void()>& run, PairOrder order) {
  using clock = std::chrono::steady_clock;
  auto timed = [](auto&& fn) {
    const auto t0 = clock::now();
    fn();
    clobber_memory(nullptr);
    return std::chrono::duration<double>(clock::now() - t0).count();
  };
  PairTiming t;
  if (order == PairOrder::memcpy_first) {
    t.memcpy_seconds = timed([&] { baseline.run(); });
    t.seconds = timed(run);
  } else {
    t.seconds = timed(run);
    t.memcpy_seconds = timed([&] { baseline.run(); });
  }
  return t;
}

double median(std::span<const double> values) {
  if (values.empty()) throw std::invalid_argument("median of no values");
  std::vector<double> v(values.begin(), values.end());
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return lower == upper ? upper : lower + (upper - lower) / 2;  // (== keeps two infinities infinite)
}

SpeedSummary summarize_speed(std::span<const PairTiming> pairs) {
  if (pairs.empty()) throw std::invalid_argument("summarize_speed: no repetition");
  std::vector<double> seconds, memcpy_seconds, ratios;
  for (const PairTiming& p : pairs) {
    seconds.push_back(p.seconds);
    memcpy_seconds.push_back(p.memcpy_seconds);
    ratios.push_back(p.seconds > 0 ? p.memcpy_seconds / p.seconds : std::numeric_limits<double>::infinity());
  }
  SpeedSummary s;
  s.repetitions = static_cast<int>(pairs.size());
  s.median_seconds = median(seconds);
  s.median_memcpy_seconds = median(memcpy_seconds);
  s.ratio_to_memcpy = median(ratios);
  return s;
}

double gb_per_s(double bytes, double seconds) { return seconds > 0 ? bytes / seconds * 1e-9 : std::numeric_limits<double>::infinity(); }

namespace {
float uniform(SplitMix64& rng) { return static_cast<float>(static_cast<double>(rng.next() >> 11) * 0x1p-53 * 8.0 - 4.0); }

template <typename E>
void fill_uniform_as(E* data, std::size_t n, std::uint64_t seed) {
  SplitMix64 rng(seed);
  for (std::size_t i = 0; i < n; ++i) data[i] = narrow_to<E>(uniform(rng));
}
}  // namespace

void fill_uniform(float* data, std::size_t n, std::uint64_t seed) { fill_uniform_as(data, n, seed); }
void fill_uniform(Bf16Bits* data, std::size_t n, std::uint64_t seed) { fill_uniform_as(data, n, seed); }
void fill_uniform(F16Bits* data, std::size_t n, std::uint64_t seed) { fill_uniform_as(data, n, seed); }

}  // namespace ropecheck::accuracy
