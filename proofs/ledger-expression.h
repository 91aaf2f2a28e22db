// File: ledger-expression.h
// The ledger's tiny expression language, evaluated in MPFI so that every recomputed number of the
// paper comes with a rigorous enclosure (proofs/ledger.json writes "10000^(-2*(119-1)/256)", not a
// double that someone computed elsewhere).
//
// Grammar (whitespace is ignored):
//   expr   := term (('+' | '-') term)*
//   term   := unary (('*' | '/') unary)*
//   unary  := ('-' | '+') unary | power
//   power  := atom ('^' unary)?          right-associative; -2^2 = -(2^2); 10^-4 is allowed
//   atom   := number | 'pi' | name '(' groups ')' | '(' expr ')'
//   groups := args (';' args)*            args := expr (',' expr)*
//   number := digits ['.' digits] [('e'|'E') ['+'|'-'] digits]    (a decimal, enclosed exactly)
// Built-in functions (one argument group unless stated):
//   sqrt(x) exp(x) log(x) sin(x) cos(x) abs(x)
//   floor(x)        [floor(lower), floor(upper)]: a point when x is decided
//   f64(x)          x rounded to nearest binary64 (what Python's float does), endpoint-wise
//   interval(a, b)  the hull [a, b]: an input known only to its printed digits
//   dot(x1, ..., xn; y1, ..., yn)   sum of xi*yi
// x^y: y a point integer -> repeated multiplication (exact when representable); otherwise x must
// be certainly positive and x^y = exp(y log x).
#pragma once

#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "numeric/scalar.h"

namespace ropecheck::proofs {

// A malformed expression: the message names the position and what was expected there.
class ExpressionError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// An extra function the caller provides (the ledger adds spectrum look-ups): receives one argument
// group, returns an enclosure. It may throw ExpressionError for a bad argument.
using ExpressionFunction = std::function<Interval(const std::vector<Interval>&)>;
using ExpressionFunctions = std::map<std::string, ExpressionFunction>;

// Returns: an enclosure of the value of `text` at the current precision (ScopedPrecision).
// Throws ExpressionError when the text is not a complete expression of the grammar above, names an
// unknown function or has a domain error that the enclosures decide (log of a non-positive
// interval, division by an interval containing 0, ...).
Interval evaluate_expression(const std::string& text, const ExpressionFunctions& extra = {});

}  // namespace ropecheck::proofs
