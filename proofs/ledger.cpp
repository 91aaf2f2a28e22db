#include "ledger.h"

#include <mpfi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "certificate/retry.h"
#include "io/input_error.h"
#include "ledger-expression.h"
#include "numeric/decimal.h"
#include "spectrum/config.h"
#include "spectrum/frequencies.h"
#include "spectrum/request.h"

#ifndef ROPECHECK_LEDGER_PATH
#define ROPECHECK_LEDGER_PATH "proofs/ledger.json"
#endif

namespace ropecheck::proofs {

std::string ledger_verdict_name(LedgerVerdict v) {
  switch (v) {
    case LedgerVerdict::exact: return "exact";
    case LedgerVerdict::approximate: return "approximate";
    case LedgerVerdict::erratum: return "erratum";
    case LedgerVerdict::not_recomputable: return "not-recomputable";
    case LedgerVerdict::unreadable: return "unreadable";
    case LedgerVerdict::inconclusive: return "inconclusive";
  }
  return "inconclusive";
}

LedgerVerdict parse_ledger_verdict(const std::string& name) {
  for (LedgerVerdict v : {LedgerVerdict::exact, LedgerVerdict::approximate, LedgerVerdict::erratum,
                          LedgerVerdict::not_recomputable, LedgerVerdict::unreadable, LedgerVerdict::inconclusive})
    if (ledger_verdict_name(v) == name) return v;
  throw std::invalid_argument("unknown ledger verdict '" + name + "'");
}

std::string default_ledger_path() { return ROPECHECK_LEDGER_PATH; }

namespace {

const std::set<std::string> kRules = {"digits", "equal", "at-most", "less-than", "contains", "not-recomputable", "unreadable"};
const std::string kAccepted = "a ledger JSON file as described in proofs/ledger.md";

[[noreturn]] void bad_ledger(const std::string& source, const std::string& what) {
  throw InputError("--ledger", kAccepted, source + ": " + what);
}

std::string text_field(const nlohmann::json& j, const char* key, const std::string& where, const std::string& source,
                       bool required = true) {
  if (!j.contains(key)) {
    if (required) bad_ledger(source, where + " has no \"" + key + "\"");
    return "";
  }
  if (!j[key].is_string()) bad_ledger(source, where + ": \"" + key + "\" must be a string");
  return j[key].get<std::string>();
}

}  // namespace

Ledger parse_ledger(const nlohmann::json& data, const std::string& source) {
  Ledger ledger;
  ledger.path = source;
  if (!data.is_object() || !data.contains("entries") || !data["entries"].is_array())
    bad_ledger(source, "the top level must be an object with an \"entries\" array");
  ledger.rules = data.value("rules", nlohmann::json::object());
  ledger.default_tolerance = "0.1";
  if (ledger.rules.contains("default_relative_tolerance")) {
    const auto& t = ledger.rules["default_relative_tolerance"];
    if (!t.is_string()) bad_ledger(source, "rules.default_relative_tolerance must be a decimal string");
    ledger.default_tolerance = t.get<std::string>();
  }
  std::set<std::string> ids;
  for (const auto& e : data["entries"]) {
    if (!e.is_object()) bad_ledger(source, "every entry must be an object");
    LedgerEntry x;
    x.id = text_field(e, "id", "an entry", source);
    const std::string where = "entry " + x.id;
    if (!ids.insert(x.id).second) bad_ledger(source, "duplicate entry id " + x.id);
    x.location = text_field(e, "location", where, source);
    x.quote = text_field(e, "quote", where, source);
    x.stated = text_field(e, "stated", where, source);
    x.rule = text_field(e, "rule", where, source);
    if (!kRules.count(x.rule)) bad_ledger(source, where + ": unknown rule '" + x.rule + "'");
    x.stated_value = text_field(e, "stated_value", where, source, false);
    if (x.stated_value.empty()) x.stated_value = x.stated;
    const bool computed = x.rule != "not-recomputable" && x.rule != "unreadable";
    x.expression = text_field(e, "expression", where, source, computed);
    if (!computed && !x.expression.empty()) bad_ledger(source, where + ": rule " + x.rule + " takes no expression");
    const bool relation = x.rule == "at-most" || x.rule == "less-than";
    x.bound = text_field(e, "bound", where, source, relation);
    if (e.contains("digits")) {
      if (!e["digits"].is_number_integer() || e["digits"].get<int>() < 1 || x.rule != "digits")
        bad_ledger(source, where + ": \"digits\" must be an integer >= 1, for rule digits only");
      x.digits = e["digits"].get<int>();
    }
    if (e.contains("tolerance")) x.tolerance = text_field(e, "tolerance", where, source);
    x.role = text_field(e, "role", where, source, false);
    if (x.role.empty()) x.role = "statement";
    if (x.role != "statement" && x.role != "reading") bad_ledger(source, where + ": role must be statement or reading");
    if (e.contains("corrected")) x.corrected = text_field(e, "corrected", where, source);
    try {
      x.expected = parse_ledger_verdict(text_field(e, "expected", where, source));
    } catch (const std::invalid_argument& err) {
      bad_ledger(source, where + ": " + err.what());
    }
    if (x.expected == LedgerVerdict::inconclusive) bad_ledger(source, where + ": expected cannot be inconclusive");
    x.note = text_field(e, "note", where, source, false);
    ledger.entries.push_back(std::move(x));
  }
  if (data.contains("wording")) {
    if (!data["wording"].is_array()) bad_ledger(source, "\"wording\" must be an array");
    for (const auto& w : data["wording"]) {
      LedgerWording x;
      x.id = text_field(w, "id", "a wording item", source);
      const std::string where = "wording " + x.id;
      if (!ids.insert(x.id).second) bad_ledger(source, "duplicate id " + x.id);
      x.location = text_field(w, "location", where, source);
      x.as_written = text_field(w, "as_written", where, source);
      x.corrected = text_field(w, "corrected", where, source);
      x.why = text_field(w, "why", where, source);
      ledger.wording.push_back(std::move(x));
    }
  }
  return ledger;
}

Ledger load_ledger(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("--ledger", "a readable ledger JSON file (default " + default_ledger_path() + ")", path);
  nlohmann::json data;
  try {
    data = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    bad_ledger(path, std::string("not valid JSON (") + e.what() + ")");
  }
  return parse_ledger(data, path);
}

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

bool is_point(const Interval& x) { return lower_of(x) == upper_of(x); }

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

std::string bounds_text(const Interval& x, int digits) {
  const DecimalBounds b = decimal_bounds(x, digits);
  return b.lower == b.upper ? b.lower : "[" + b.lower + ", " + b.upper + "]";
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

namespace {

struct Tally {
  std::map<std::string, int> statements, readings;
  std::vector<std::string> errata, approximate, mismatches, undecided;
};

Certificate run_ledger(const Ledger& ledger, unsigned bits) {
  const auto start = std::chrono::steady_clock::now();
  ScopedPrecision precision(bits);
  Certificate c;
  c.claim_id = "ledger";
  c.statement = "every numeric statement of the paper listed in the ledger (" + std::to_string(ledger.entries.size()) +
                " entries: " + ledger.path +
                ") recomputed from its expression in MPFI and judged by its rule (exact / approximate / erratum / "
                "not-recomputable / unreadable); each computed verdict equals the ledger's expected verdict. Finite "
                "range: the listed entries, the paper's settings (no other parameters). Plus " +
                std::to_string(ledger.wording.size()) + " hypotheses, quantifiers and notation corrected in words (not computed)";
  c.parameters = {{"configuration", "paper text"},
                  {"ledger", ledger.path},
                  {"entries", ledger.entries.size()},
                  {"wording_items", ledger.wording.size()},
                  {"default_relative_tolerance", ledger.default_tolerance},
                  {"precision_bits", precision.bits()}};
  c.method = "MPFI interval evaluation of each expression, " + std::to_string(precision.bits()) +
             " bits (>= 50 digits), rules decided on interval endpoints";
  c.expected = Verdict::holds;

  Tally t;
  nlohmann::json rows = nlohmann::json::array();
  std::vector<Quantity> highlights;
  for (const LedgerEntry& e : ledger.entries) {
    const EntryResult r = judge_entry(e, ledger.default_tolerance);
    const bool verdict_matches = r.verdict == e.expected;
    const bool decided = r.verdict != LedgerVerdict::inconclusive && r.corrected_decided;
    const bool agrees = verdict_matches && r.corrected_confirmed;
    const std::string v = ledger_verdict_name(r.verdict);
    (e.role == "statement" ? t.statements : t.readings)[v]++;
    if (!decided) t.undecided.push_back(e.id);
    else if (!agrees) t.mismatches.push_back(e.id);
    if (e.role == "statement" && r.verdict == LedgerVerdict::erratum) t.errata.push_back(e.id);
    if (e.role == "statement" && r.verdict == LedgerVerdict::approximate) t.approximate.push_back(e.id);

    nlohmann::json row = {{"id", e.id},           {"location", e.location}, {"role", e.role},
                          {"quote", e.quote},     {"stated", e.stated},     {"rule", e.rule},
                          {"rule_applied", r.rule_text}, {"verdict", v},    {"expected", ledger_verdict_name(e.expected)},
                          {"agrees", agrees}};
    if (!e.expression.empty()) row["expression"] = e.expression;
    if (!e.bound.empty()) row["bound"] = e.bound;
    if (e.stated_value != e.stated) row["stated_value"] = e.stated_value;
    if (r.recomputed) {
      const DecimalBounds b = decimal_bounds(*r.recomputed, 50);
      row["recomputed"] = {{"lower", b.lower}, {"upper", b.upper}};
    }
    if (r.relative_gap) row["relative_gap"] = bounds_text(*r.relative_gap, 6);
    if (r.ratio) row["ratio_to_bound"] = bounds_text(*r.ratio, 6);
    if (e.corrected) row["corrected"] = {{"value", *e.corrected}, {"confirmed", r.corrected_confirmed}};
    if (!e.note.empty()) row["note"] = e.note;
    rows.push_back(std::move(row));

    if (e.role == "statement" && r.recomputed &&
        (r.verdict == LedgerVerdict::erratum || r.verdict == LedgerVerdict::approximate)) {
      Quantity q = enclosure(e.id + " (" + v + ", stated " + e.stated + "): recomputed", *r.recomputed, 12);
      highlights.push_back(q);
    }
  }

  auto join = [](const std::vector<std::string>& ids) {
    std::string s;
    for (const auto& id : ids) s += (s.empty() ? "" : ", ") + id;
    return s.empty() ? std::string("none") : s;
  };
  for (const char* v : {"exact", "approximate", "erratum", "not-recomputable", "unreadable", "inconclusive"})
    c.quantities.push_back(exact_integer(std::string("statements: ") + v, t.statements[v]));
  int readings = 0;
  for (const auto& [k, n] : t.readings) readings += n;
  c.quantities.push_back(exact_integer("alternative readings (not counted above)", readings));
  c.quantities.push_back({"errata flagged", join(t.errata), join(t.errata), "list"});
  c.quantities.push_back({"approximate statements", join(t.approximate), join(t.approximate), "list"});
  for (const Quantity& q : highlights) c.quantities.push_back(q);
  c.quantities.push_back(exact_integer("entries differing from the ledger's expectation", static_cast<long long>(t.mismatches.size())));
  if (!t.mismatches.empty()) c.quantities.push_back({"differing entries", join(t.mismatches), join(t.mismatches), "list"});
  if (!t.undecided.empty()) c.quantities.push_back({"undecided entries", join(t.undecided), join(t.undecided), "list"});
  c.quantities.push_back(exact_integer("hypotheses / quantifiers / notation corrected (wording list)",
                                       static_cast<long long>(ledger.wording.size())));

  nlohmann::json wording = nlohmann::json::array();
  for (const LedgerWording& w : ledger.wording)
    wording.push_back({{"id", w.id}, {"location", w.location}, {"as_written", w.as_written}, {"corrected", w.corrected}, {"why", w.why}});
  c.details = {{"rules", ledger.rules},
               {"entries", rows},
               {"wording", wording},
               {"counts", {{"statements", t.statements}, {"readings", t.readings}}},
               {"differing", t.mismatches},
               {"undecided", t.undecided}};
  // fails: some entry decidedly differs from what the ledger expects (the ledger or the paper's
  // number drifted). inconclusive: some comparison could not be decided. holds otherwise: every
  // erratum the ledger lists is flagged and nothing else is.
  c.verdict = !t.mismatches.empty() ? Verdict::fails : !t.undecided.empty() ? Verdict::inconclusive : Verdict::holds;
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

}  // namespace

std::vector<Certificate> check_ledger(const ClaimOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  Ledger ledger = load_ledger(options.ledger.value_or(default_ledger_path()));
  // The default ledger is named by its place in the source tree, not by this checkout's absolute
  // path: two clones must write the same certificate (reports compare evidence byte for byte).
  if (!options.ledger) ledger.path = "proofs/ledger.json";
  // 50 decimal digits need 50 log2(10) = 166.1 bits. x^y = exp(y log x) turns the rounding error
  // of y log x (|y log x| up to ~30 in the ledger, 5 bits) into relative error, so 180 bits keep
  // every enclosure tight to 50 digits with a few guard bits.
  const unsigned first = std::max(options.precision_bits, 180u);
  const unsigned cap = std::max(first, options.max_precision_bits);
  Certificate c = certify_with_retry(first, cap, [&](unsigned bits) { return run_ledger(ledger, bits); });
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return {c};
}

}  // namespace ropecheck::proofs
