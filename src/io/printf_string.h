// File: printf_string.h
// printf-style formatting into a std::string, for report lines whose numbers are printed with C
// format specifiers (%.3g, %a for exact hex floats).
#pragma once

#include <bit>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <string>

namespace ropecheck {

// Returns: the formatted text, truncated to 511 characters.
__attribute__((format(printf, 1, 2))) inline std::string printf_string(const char* fmt, ...) {
  char buf[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  return buf;
}

// Returns: x as a C99 hex float ("%a"): exact, and read back exactly by strtod.
inline std::string hex_double(double x) { return printf_string("%a", x); }

// Returns: "%a" of a float and its raw bits, e.g. "0x1p+0 (0x3f800000)".
inline std::string hex_float(float x) { return printf_string("%a (0x%08x)", static_cast<double>(x), std::bit_cast<std::uint32_t>(x)); }

}  // namespace ropecheck
