#include "ledger-judge.h"

#include <mpfi.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "io/input_error.h"
#include "ledger-expression.h"
#include "spectrum/frequencies.h"
#include "spectrum/request.h"

namespace ropecheck::proofs {

namespace {

std::string int128_text(__int128 v) {
  if (v == 0) return "0";
  const bool neg = v < 0;
  if (neg) v = -v;
  std::string s;
  while (v > 0) {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  return neg ? "-" + s : s;
}

}  // namespace

RoundingWindow rounding_window(const std::string& text, std::optional<int> digits) {
  auto bad = [&](const std::string& why) -> std::invalid_argument {
    return std::invalid_argument("rounding window of '" + text + "': " + why);
  };
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  std::string mantissa;
  long exponent = 0;
  bool point = false, any = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9') {
      mantissa += c;
      any = true;
      if (point) --exponent;
    } else if (c == '.' && !point) {
      point = true;
    } else {
      break;
    }
  }
  if (!any) throw bad("not a plain decimal");
  if (i < text.size()) {
    if (text[i] != 'e' && text[i] != 'E') throw bad("not a plain decimal");
    const std::string e = text.substr(i + 1);
    if (e.empty() || e.find_first_not_of("+-0123456789") != std::string::npos || e.size() > 6) throw bad("bad exponent");
    exponent += std::stol(e);
  }
  // value = +-M * 10^exponent. Significant digits as written: from the first non-zero digit on,
  // trailing zeros included ("383.00" has five, "0.0002" one); zero itself has one.
  const size_t first = mantissa.find_first_not_of('0');
  std::string m = first == std::string::npos ? "0" : mantissa.substr(first);
  const int written = static_cast<int>(m.size());
  const int n = digits.value_or(written);
  if (n < 1) throw bad("digits must be >= 1");
  if (n > written) {
    m.append(static_cast<size_t>(n - written), '0');  // more digits meant than written: pad with zeros
    exponent -= n - written;
  }
  const int drop = std::max(0, written - n);
  if (m.find_first_not_of('0', m.size() - static_cast<size_t>(drop)) != std::string::npos && drop > 0)
    throw bad("digits " + std::to_string(n) + " would drop non-zero written digits");
  if (m.size() > 30) throw bad("more than 30 digits");
  __int128 M = 0;
  for (char c : m) M = M * 10 + (c - '0');
  __int128 half = 5;
  for (int k = 0; k < drop; ++k) half *= 10;
  // In units of 10^(exponent-1): value = 10 M, half a unit of the last kept digit = 5 * 10^drop.
  __int128 lo = 10 * M - half, hi = 10 * M + half;
  if (negative) {
    const __int128 t = lo;
    lo = -hi;
    hi = -t;
  }
  RoundingWindow w;
  w.digits = n;
  w.lower_text = int128_text(lo) + "e" + std::to_string(exponent - 1);
  w.upper_text = int128_text(hi) + "e" + std::to_string(exponent - 1);
  w.lower = from_decimal<Interval>(w.lower_text);
  w.upper = from_decimal<Interval>(w.upper_text);
  return w;
}

namespace {

// A point integer argument, e.g. d or k; throws ExpressionError otherwise.
long long integer_argument(const Interval& x, const char* what) {
  const Real v = lower_of(x);
  if (!is_point(x) || v != floor(v) || v < 0 || v > 1e9) throw ExpressionError(std::string(what) + " must be a non-negative integer");
  return v.convert_to<long long>();
}

// The fraction P as the double Python would hold (Spectrum parses the fraction in binary64, as
// apply_p_rope's rope_percentage is a float): both endpoints must round to the same double.
std::string fraction_text(const Interval& p) {
  const double lo = mpfr_get_d(lower_of(p).backend().data(), MPFR_RNDN);
  const double hi = mpfr_get_d(upper_of(p).backend().data(), MPFR_RNDN);
  if (lo != hi) throw ExpressionError("fraction p must round to a single binary64 value");
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", lo);  // 17 significant digits round-trip a double
  return buf;
}

Interval kept_pairs_of(Variant variant, const std::vector<Interval>& a) {
  if (a.size() != 2) throw ExpressionError("kept-pairs functions take (p, head_dim)");
  const int dim = static_cast<int>(integer_argument(a[1], "head_dim"));
  try {
    return Interval(Spectrum(dim, "10000", variant, fraction_text(a[0])).rotated_pairs());
  } catch (const InputError& e) {
    throw ExpressionError(e.what());
  }
}

Interval config_frequency(const char* config, const std::vector<Interval>& a) {
  if (a.size() != 1) throw ExpressionError(std::string(config) + " frequency takes one argument k");
  const ResolvedSpectrum rs = resolve(SpectrumRequest{}, std::string(config));
  const long long k = integer_argument(a[0], "k");
  if (k < 1 || k > rs.spectrum.pairs()) throw ExpressionError("k must be in 1.." + std::to_string(rs.spectrum.pairs()));
  return frequencies<Interval>(rs.spectrum)[static_cast<size_t>(k - 1)];
}

// Functions that tie ledger entries to the library's own spectra, so that a number of the paper
// is checked against both a written formula and src/spectrum.
const ExpressionFunctions& ledger_functions() {
  static const ExpressionFunctions f = {
      {"prope_kept", [](const std::vector<Interval>& a) { return kept_pairs_of(Variant::p_rope, a); }},
      {"reversed_kept", [](const std::vector<Interval>& a) { return kept_pairs_of(Variant::reversed, a); }},
      {"partial_kept", [](const std::vector<Interval>& a) { return kept_pairs_of(Variant::partial, a); }},
      {"gemma7b_g", [](const std::vector<Interval>& a) { return config_frequency("gemma-7b", a); }},
      {"llama31_g", [](const std::vector<Interval>& a) { return config_frequency("llama-3.1-8b", a); }},
  };
  return f;
}

Interval evaluate(const LedgerEntry& e, const std::string& text, const char* field) {
  try {
    return evaluate_expression(text, ledger_functions());
  } catch (const ExpressionError& err) {
    throw InputError("--ledger", "entries whose expressions parse (proofs/ledger.md)", "entry " + e.id + " " + field + ": " + err.what());
  }
}

// Where r lies relative to a closed window [lo, hi]: 1 inside, 0 outside, -1 undecided.
int in_window(const Interval& r, const Interval& lo, const Interval& hi) {
  if (lower_of(r) >= upper_of(lo) && upper_of(r) <= lower_of(hi)) return 1;
  if (upper_of(r) < lower_of(lo) || lower_of(r) > upper_of(hi)) return 0;
  return -1;
}

}  // namespace

EntryResult judge_entry(const LedgerEntry& e, const std::string& default_tolerance) {
  EntryResult out;
  if (e.rule == "not-recomputable") {
    out.verdict = LedgerVerdict::not_recomputable;
    out.rule_text = "not recomputable from the paper's formulas: recorded as stated";
    return out;
  }
  if (e.rule == "unreadable") {
    out.verdict = LedgerVerdict::unreadable;
    out.rule_text = "garbled in the extracted text: recorded, not guessed";
    return out;
  }
  const Interval r = evaluate(e, e.expression, "expression");
  out.recomputed = r;
  const std::string tol_text = e.tolerance.value_or(default_tolerance);
  Interval tol;
  try {
    tol = from_decimal<Interval>(tol_text);
  } catch (const std::invalid_argument&) {
    throw InputError("--ledger", "a decimal relative tolerance", "entry " + e.id + ": " + tol_text);
  }

  // Not exact: approximate within the relative tolerance of the stated value, erratum beyond.
  auto by_tolerance = [&](const Interval& s, const std::string& exact_text) {
    if (!certainly_positive(Interval(abs(s)))) {
      out.verdict = LedgerVerdict::inconclusive;
      out.rule_text = exact_text + "; relative gap undefined (stated value may be 0)";
      return;
    }
    const Interval gap = Interval(abs(Interval(r - s)) / abs(s));
    out.relative_gap = gap;
    out.rule_text = exact_text + "; else approximate if |recomputed - stated|/|stated| <= " + tol_text + ", else erratum";
    if (upper_of(gap) <= lower_of(tol)) out.verdict = LedgerVerdict::approximate;
    else if (lower_of(gap) > upper_of(tol)) out.verdict = LedgerVerdict::erratum;
    else out.verdict = LedgerVerdict::inconclusive;
  };

  if (e.rule == "digits") {
    RoundingWindow w;
    try {
      w = rounding_window(e.stated_value, e.digits);
    } catch (const std::invalid_argument& err) {
      throw InputError("--ledger", "a plain decimal stated value for rule digits", "entry " + e.id + ": " + err.what());
    }
    const Interval s = from_decimal<Interval>(e.stated_value);
    out.stated = s;
    const std::string exact_text = "exact if recomputed in [" + w.lower_text + ", " + w.upper_text + "] (rounds to " +
                                   e.stated_value + " at " + std::to_string(w.digits) + " significant digits)";
    const int where = in_window(r, w.lower, w.upper);
    if (where == 1) {
      out.verdict = LedgerVerdict::exact;
      out.rule_text = exact_text;
      if (certainly_positive(Interval(abs(s)))) out.relative_gap = Interval(abs(Interval(r - s)) / abs(s));
    } else if (where == 0) {
      by_tolerance(s, exact_text);
    } else {
      out.verdict = LedgerVerdict::inconclusive;
      out.rule_text = exact_text + " (undecided: the enclosure meets the window's boundary)";
    }
  } else if (e.rule == "equal") {
    const Interval s = evaluate(e, e.stated_value, "stated_value");
    out.stated = s;
    const std::string exact_text = "exact if recomputed = " + e.stated_value + " (both certified exact points)";
    if (is_point(r) && is_point(s) && lower_of(r) == lower_of(s)) {
      out.verdict = LedgerVerdict::exact;
      out.rule_text = exact_text;
      out.relative_gap = Interval(0);
    } else if (!overlaps(r, s)) {
      by_tolerance(s, exact_text);
    } else {
      out.verdict = LedgerVerdict::inconclusive;
      out.rule_text = exact_text + " (undecided: the enclosures overlap but are not one point)";
    }
  } else if (e.rule == "contains") {
    const Interval s = evaluate(e, e.stated_value, "stated_value");
    out.stated = s;
    out.rule_text = "exact if the stated value lies inside the recomputed range (inputs known to their printed digits); erratum if outside";
    if (lower_of(r) <= lower_of(s) && upper_of(s) <= upper_of(r)) out.verdict = LedgerVerdict::exact;
    else if (!overlaps(r, s)) out.verdict = LedgerVerdict::erratum;
    else out.verdict = LedgerVerdict::inconclusive;
  } else {  // at-most, less-than
    const Interval b = evaluate(e, e.bound, "bound");
    out.stated = b;
    const bool strict = e.rule == "less-than";
    out.rule_text = std::string("exact if ") + e.expression + (strict ? " < " : " <= ") + e.bound + "; erratum if not";
    if (mpfi_has_zero(b.backend().data()) == 0) out.ratio = Interval(r / b);
    if (strict ? upper_of(r) < lower_of(b) : upper_of(r) <= lower_of(b)) out.verdict = LedgerVerdict::exact;
    else if (strict ? lower_of(r) >= upper_of(b) : lower_of(r) > upper_of(b)) out.verdict = LedgerVerdict::erratum;
    else out.verdict = LedgerVerdict::inconclusive;
  }

  if (e.corrected) {
    // The correction itself is checked: the recomputed value must round to it.
    RoundingWindow w;
    try {
      w = rounding_window(*e.corrected);
    } catch (const std::invalid_argument& err) {
      throw InputError("--ledger", "a plain decimal corrected value", "entry " + e.id + ": " + err.what());
    }
    const int where = in_window(r, w.lower, w.upper);
    out.corrected_decided = where >= 0;
    out.corrected_confirmed = where == 1;
  }
  return out;
}

}  // namespace ropecheck::proofs
