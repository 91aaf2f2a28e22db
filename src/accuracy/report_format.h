// File: report_format.h
// Number and column formatting shared by the audit and kernel-check tables, so both print the
// same figure the same way.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace ropecheck::accuracy {

// Fixed-point below 1e4, scientific above (errors of baselines reach 1e7 ulp and more).
inline std::string fixed(double v, int digits) {
  char buf[64];
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (std::fabs(v) >= 1e4) std::snprintf(buf, sizeof buf, "%.3e", v);
  else std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

inline std::string sci(double v) {
  char buf[64];
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::snprintf(buf, sizeof buf, "%.3e", v);
  return buf;
}

// Left-aligns `s` in a column of `width` (at least one space after it).
inline std::string pad(const std::string& s, size_t width) { return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' '); }

}  // namespace ropecheck::accuracy
