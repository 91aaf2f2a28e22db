// File: progress.cpp
// The line is drawn by whichever worker thread's advance() finds the last draw older than 200 ms
// and wins the compare-exchange on last_draw_ns_; the others return at once (workers never wait for
// the terminal). The mutex only orders that drawing against finish().
#include "montecarlo/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>

namespace ropecheck::montecarlo {
namespace {

constexpr std::int64_t kRedrawNs = 200'000'000;  // at most ~5 redraws a second

std::string format_eta(double seconds) {
  char buf[32];
  if (seconds < 120) {
    std::snprintf(buf, sizeof buf, "%.0f s", seconds);
  } else if (seconds < 7200) {
    std::snprintf(buf, sizeof buf, "%.0f min", seconds / 60);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f h", seconds / 3600);
  }
  return buf;
}

}  // namespace

Progress::Progress(std::string label, std::uint64_t total, std::string unit)
    : Progress(std::move(label), total, std::move(unit), isatty(STDERR_FILENO) == 1) {}

Progress::Progress(std::string label, std::uint64_t total, std::string unit, bool enabled)
    : label_(std::move(label)),
      unit_(std::move(unit)),
      total_(total),
      enabled_(enabled),
      start_(std::chrono::steady_clock::now()),
      last_draw_ns_(-kRedrawNs) {}  // so the first advance() draws

Progress::~Progress() { finish(); }

void Progress::advance(std::uint64_t done) {
  const std::uint64_t now_done = done_.fetch_add(done, std::memory_order_relaxed) + done;
  if (!enabled_) return;
  const std::int64_t now_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_).count();
  std::int64_t last = last_draw_ns_.load(std::memory_order_relaxed);
  if (now_ns - last < kRedrawNs) return;
  if (!last_draw_ns_.compare_exchange_strong(last, now_ns, std::memory_order_relaxed)) return;

  const double seconds = static_cast<double>(now_ns) * 1e-9;
  const double rate = seconds > 0 ? static_cast<double>(now_done) / seconds : 0;
  const double fraction = total_ == 0 ? 1 : static_cast<double>(now_done) / static_cast<double>(total_);
  const int percent = static_cast<int>(fraction >= 1 ? 100 : 100 * fraction);
  std::string line = label_ + ": " + std::to_string(percent) + "%";
  // The first instants' rate is noise (a few units over microseconds): shown from 0.5 s on.
  if (seconds >= 0.5) {
    char buf[48];
    std::snprintf(buf, sizeof buf, " %.3g ", rate);
    line += buf + unit_ + "/s";
    if (rate > 0 && now_done < total_) line += " ETA " + format_eta(static_cast<double>(total_ - now_done) / rate);
  }

  std::lock_guard<std::mutex> lock(draw_);
  if (finished_) return;
  // Pad to the previous line's width so a shorter line leaves no stale characters behind.
  const std::size_t width = line.size();
  if (line.size() < width_) line.append(width_ - line.size(), ' ');
  width_ = std::max(width_, width);
  std::fprintf(stderr, "\r%s", line.c_str());
  std::fflush(stderr);
}

void Progress::finish() {
  std::lock_guard<std::mutex> lock(draw_);
  if (finished_) return;
  finished_ = true;
  if (!enabled_ || width_ == 0) return;
  std::fprintf(stderr, "\r%s\r", std::string(width_, ' ').c_str());
  std::fflush(stderr);
}

}  // namespace ropecheck::montecarlo
