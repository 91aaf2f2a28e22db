// File: number_text.h
// binary64 values as text, exactly both ways: the shortest decimal that reads back to the same
// value, and a reader of decimal and C99 hex-float text that is correctly rounded. Used wherever a
// file or a table must hold a double exactly (counterexample vectors, the spectrum CSV).
#pragma once

#include <string>

namespace ropecheck {

// Returns: the shortest decimal string that reads back as exactly x (std::to_chars): "0.1",
// "-0", "1e+300", "5e-324". Preconditions: x finite (inf and NaN print as "inf", "nan").
std::string shortest_text(double x);

// Reads `text` as the binary64 value it denotes: an optional sign, then decimal digits with an
// optional point and exponent ("2.5e-3", ".5", "5."), or "0x" hex digits with an optional point and
// binary exponent ("0x1.8p+1"). Decimal text is correctly rounded (std::from_chars, independent of
// the C locale). Returns: false (out unchanged) for any other text, for "inf"/"nan" spellings,
// leading or trailing spaces, and for a value outside the binary64 range (overflow, or a non-zero
// text that rounds to 0).
bool parse_number_text(const std::string& text, double& out);

}  // namespace ropecheck
