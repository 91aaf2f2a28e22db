#include "table-1.h"

#include <algorithm>
#include <chrono>

#include "certificate/retry.h"
#include "claims/decimal_option.h"
#include "io/input_error.h"
#include "numeric/decimal.h"
#include "positional-heads.h"
#include "prop-5.2.h"
#include "semantic-channel.h"
#include "spectrum/frequencies.h"

namespace ropecheck::proofs {

std::string cell_name(Cell c) {
  switch (c) {
    case Cell::yes: return "yes";
    case Cell::no: return "no";
    case Cell::undecided: return "undecided";
  }
  return "undecided";
}

namespace {

constexpr long long kDefaultSemanticN = 32768;
constexpr int kApostrophePair = 119;  // Appendix E.1: the channel's pair index (1-based)
constexpr int kSpreadPairs = 16;      // thm-5.3's tame spreading: the 16 fastest rotating pairs
// thm-5.3's bracket width: the cell needs a finite certified upper end only; 1e-6 is its default.
constexpr double kBracketTolerance = 1e-6;

std::string dec(const Interval& x, int digits = 8) { return decimal_interval_text(x, digits); }

struct Settings {
  Interval epsilon;
  std::string epsilon_text;
  long long positional_N;
  long long semantic_N;
  std::string fraction;
};

Settings read_settings(const ClaimOptions& o) {
  Settings s;
  // epsilon < 1/2: the NoPE obstruction certifies alpha < 1/2, which refutes alpha > 1 - epsilon only
  // for epsilon <= 1/2, and at epsilon = 1/2 thm-5.3's minimal norm can be 0 (no relative bracket).
  const std::string acc = "a decimal in (0, 1/2)";
  s.epsilon_text = o.epsilon.value_or("0.1");
  s.epsilon = decimal_option(o.epsilon, "0.1", "--epsilon", acc);
  if (!certainly_positive(s.epsilon) || !certainly_less(s.epsilon, Interval(0.5))) throw InputError("--epsilon", acc, s.epsilon_text);
  s.positional_N = o.spectrum.context.value_or(8192);
  if (s.positional_N < 3) throw InputError("--context", "an integer >= 3 (the NoPE sequence [x, x, x] needs 3 tokens)", std::to_string(s.positional_N));
  s.semantic_N = o.max_n.value_or(kDefaultSemanticN);
  if (s.semantic_N > (1LL << 20))
    throw InputError("--max-n", "an integer in [1, 1048576] (the swap search scans every context)", std::to_string(s.semantic_N));
  s.fraction = o.spectrum.variant == Variant::p_rope ? o.spectrum.fraction : "0.75";
  return s;
}

struct Encoding {
  std::string name;
  ResolvedSpectrum spectrum;
  Cell paper_positional, paper_semantic;
};

std::vector<Encoding> encodings(const Settings& st) {
  auto make = [](std::optional<Variant> v, const std::string& fraction) {
    SpectrumRequest r;
    r.config = "gemma-7b";
    r.variant = v;
    r.fraction = fraction;
    return resolve(r);
  };
  // The paper's Table 1: NoPE (no, yes), RoPE (yes, no), p-RoPE (yes, yes).
  return {{"NoPE", make(Variant::nope, "1"), Cell::no, Cell::yes},
          {"RoPE", make(std::nullopt, "1"), Cell::yes, Cell::no},
          {"p-RoPE", make(Variant::p_rope, st.fraction), Cell::yes, Cell::yes}};
}

// Positional cell. A spectrum with a rotating pair: thm-5.3's construction on its 16 fastest
// rotating pairs (both heads); without one: prop-5.2's obstruction on the same construction vector.
TableCell positional_cell(const Encoding& e, const Settings& st, const Vector<Interval>& rope_psi, nlohmann::json& detail) {
  TableCell cell{e.name, "positional", Cell::undecided, e.paper_positional, ""};
  const Spectrum& sp = e.spectrum.spectrum;
  const long long N = st.positional_N;
  if (sp.rotated_pairs() > 0) {
    const int K = std::min(kSpreadPairs, sp.rotated_pairs());
    const std::vector<Interval> w = fastest_pairs_weights(sp, K);
    const std::vector<Interval> gaps = alignment_gaps(frequencies<Interval>(sp), w, N);
    bool all = true;
    std::string ev;
    for (PositionalHead h : {PositionalHead::diagonal, PositionalHead::previous_token}) {
      const NormBracket b = minimal_norm(gaps, h, N, st.epsilon, kBracketTolerance);
      all = all && b.certified;
      detail[head_name(h)] = {{"certified", b.certified},
                              {"s_lo", to_decimal(b.s_lo, 10, Rounding::down)},
                              {"s_hi", to_decimal(b.s_hi, 10, Rounding::up)},
                              {"alpha_N_at_s_hi", dec(b.attention_at_hi)},
                              {"note", b.note}};
      ev += (ev.empty() ? "" : "; ") + head_name(h) + ": ||psi||^2 in [" + to_decimal(b.s_lo, 6, Rounding::down) + ", " +
            to_decimal(b.s_hi, 6, Rounding::up) + "]";
    }
    cell.value = all ? Cell::yes : Cell::undecided;
    cell.evidence = "thm-5.3 construction on the " + std::to_string(K) + " fastest rotating pairs, every i <= " + std::to_string(N) +
                    " certified > 1 - eps at the upper end: " + ev;
    return cell;
  }
  // No rotating pair: every frequency is exactly 0, so R = I. The same vector that builds RoPE's
  // diagonal head, repeated ([x, x, x]), through prop-5.2's certified repeated-token attention.
  AttentionHead head;
  const Eigen::Index d = rope_psi.size();
  head.W_Q = Matrix<Interval>::Identity(d, d);
  head.W_K = Matrix<Interval>::Identity(d, d);
  const RepeatedTokenAttention r = repeated_token_attention(head, {rope_psi}, rope_psi, frequencies<Interval>(sp));
  detail = {{"sequence", "[x, x, x], x = RoPE's diagonal construction vector"},
            {"alpha_33", dec(r.alpha_last, 20)},
            {"alpha_32", dec(r.alpha_prev, 20)},
            {"certified_equal_and_below_half", r.certified_nope()}};
  cell.value = r.certified_nope() ? Cell::no : Cell::undecided;
  cell.evidence = "prop-5.2: k_3 = k_2 and R = I give alpha_{3,3} = alpha_{3,2} in " + dec(r.alpha_last) +
                  " < 1/2 (for any head: the argument is symbolic; certified on the vector that builds RoPE's head)";
  return cell;
}

// Semantic cell: the apostrophe channel at the frequency the encoding gives its pair.
TableCell semantic_cell(const Encoding& e, const Settings& st, nlohmann::json& detail) {
  TableCell cell{e.name, "semantic", Cell::undecided, e.paper_semantic, ""};
  const Spectrum& sp = e.spectrum.spectrum;
  const long long N = st.semantic_N;
  const Interval g = frequencies<Interval>(sp)[kApostrophePair - 1];
  const SinkChannel sink = apostrophe_channel(g);
  const TwoTypeChannel ch{g, sink.sink, sink.other};
  const bool rotates = sp.rotated(kApostrophePair - 1);
  detail["pair"] = kApostrophePair;
  detail["pair_rotates"] = rotates;
  if (!rotates) {
    // g = 0 exactly: rho(0) = I, every activation is the position-free q^T k, and whatever the
    // arrangement, the target's attention at context L is 1/(1 + L e^{a_o - a_t}), decreasing in L:
    // certify it at L = N. The library softmax over all N + 1 activations must agree (cross-check).
    const Interval at = channel_activation(ch.target, g, 0), ao = channel_activation(ch.other, g, 0);
    const Interval lhs = Interval(N) * Interval(exp(Interval(ao - at)));
    const Interval rhs = st.epsilon / (1 - st.epsilon);
    const bool survives = certainly_less(lhs, rhs);  // alpha_N > 1 - eps  <=>  N e^{a_o - a_t} < eps/(1 - eps)
    const Interval closed = 1 / (1 + lhs);
    bool routes_agree = true;
    for (long long s : {1LL, N / 2 + 1, N}) routes_agree = routes_agree && overlaps(attention_to(ch, N, s), closed);
    detail["alpha_N_closed_form"] = dec(closed, 20);
    detail["library_softmax_agrees"] = routes_agree;
    cell.value = survives && routes_agree ? Cell::yes : Cell::undecided;
    cell.evidence = "pair " + std::to_string(kApostrophePair) + " has g = 0: every arrangement gives alpha_{N} = 1/(1 + N e^{a_o - a_t}) in " +
                    dec(closed, 12) + " > 1 - eps at N = " + std::to_string(N);
    return cell;
  }
  const BreakingSwap b = shortest_breaking_context(ch, st.epsilon, N);
  detail["decided"] = b.decided;
  detail["break_found"] = b.found;
  if (b.found) {
    detail["shortest_breaking_context"] = b.L;
    detail["target_distance_before"] = b.s_before;
    detail["target_distance_after"] = b.s_after;
    detail["alpha_before"] = dec(b.alpha_before, 12);
    detail["alpha_after"] = dec(b.alpha_after, 12);
  }
  if (b.found && b.attended) {
    cell.value = Cell::no;
    cell.evidence = "thm-6.1 swap at context L = " + std::to_string(b.L) + " <= " + std::to_string(N) + ": target " +
                    std::to_string(b.s_before) + " tokens back, alpha " + dec(b.alpha_before, 6) + " > 1 - eps; moved to " +
                    std::to_string(b.s_after) + " tokens back, alpha " + dec(b.alpha_after, 6) + " <= 1/2";
  } else {
    // Every context up to N decided and none breaks: a fact about the finite range, not about
    // rounding, so more precision cannot change it (the retry ladder is told so below).
    detail["no_break_up_to_N"] = b.decided && !b.found;
    cell.evidence = b.found ? "a break was found but no attended arrangement was certified at that context"
                            : "no break certified up to N = " + std::to_string(N) + (b.note.empty() ? "" : " (" + b.note + ")");
  }
  return cell;
}

std::string mark(Cell c) { return c == Cell::yes ? "yes" : c == Cell::no ? "no" : "?"; }

Certificate check_once(const ClaimOptions& o, unsigned bits) {
  const auto start = std::chrono::steady_clock::now();
  ScopedPrecision precision(bits);
  const Settings st = read_settings(o);
  const std::vector<Encoding> enc = encodings(st);

  Certificate c;
  c.claim_id = "table-1";
  c.statement = "Table 1: positional = a head reaches alpha_{i,i} and alpha_{i,i-1} > 1 - epsilon for every i <= " +
                std::to_string(st.positional_N) + " on a repeated token; semantic = the apostrophe channel (pair 119) keeps alpha > " +
                "1 - epsilon under every arrangement up to context " + std::to_string(st.semantic_N) +
                "; each cell decided by a certificate (thm-5.3, prop-5.2, thm-6.1)";
  c.parameters = {{"configuration", "gemma-7b"},
                  {"epsilon", st.epsilon_text},
                  {"positional_N", st.positional_N},
                  {"semantic_N", st.semantic_N},
                  {"p_rope_fraction", st.fraction},
                  {"spread_pairs", kSpreadPairs},
                  {"channel", "Appendix E.1 apostrophe head, pair 119: q=(-4.1, 11.3), k_target=(-2.5, 1.3), k_other=(11.2, -3.5)"},
                  {"precision_bits", precision.bits()}};
  c.method = "interval arithmetic (MPFI), " + std::to_string(precision.bits()) +
             " bits: thm-5.3 norm brackets, prop-5.2 repeated-token attention, thm-6.1 swap scan / position-free closed form";
  c.expected = Verdict::holds;

  // RoPE's diagonal construction vector at its certified upper end (s = the bracket's s_hi), reused
  // as the NoPE test vector: the point is that the very vector that works under RoPE fails without it.
  Vector<Interval> rope_psi;
  {
    const Spectrum& sp = enc[1].spectrum.spectrum;
    const std::vector<Interval> w = fastest_pairs_weights(sp, std::min(kSpreadPairs, sp.rotated_pairs()));
    const NormBracket b = minimal_norm(sp, w, PositionalHead::diagonal, st.positional_N, st.epsilon, kBracketTolerance);
    rope_psi = construction_query(w, Interval(b.certified ? b.s_hi : Real(1)));
  }

  std::vector<TableCell> cells;
  nlohmann::json details = nlohmann::json::object();
  for (const Encoding& e : enc) {
    nlohmann::json pos, sem;
    cells.push_back(positional_cell(e, st, rope_psi, pos));
    cells.push_back(semantic_cell(e, st, sem));
    details[e.name] = {{"spectrum", e.spectrum.spectrum.describe()}, {"positional", pos}, {"semantic", sem}};
  }
  bool all_decided = true, all_agree = true, any_contradiction = false;
  nlohmann::json rows = nlohmann::json::array();
  for (const TableCell& t : cells) {
    const bool decided = t.value != Cell::undecided;
    all_decided = all_decided && decided;
    all_agree = all_agree && t.value == t.paper;
    any_contradiction = any_contradiction || (decided && t.value != t.paper);
    rows.push_back({{"encoding", t.encoding}, {"property", t.property}, {"value", cell_name(t.value)}, {"paper", cell_name(t.paper)},
                    {"evidence", t.evidence}});
    c.quantities.push_back({t.encoding + " " + t.property + ": " + t.evidence, mark(t.value) + " (paper " + mark(t.paper) + ")",
                            mark(t.value) + " (paper " + mark(t.paper) + ")", "cell"});
  }
  // The table as the paper prints it, rows = property, columns = encoding.
  std::string table = "Encoding     NoPE  RoPE  p-RoPE\n";
  for (const char* prop : {"positional", "semantic"}) {
    char line[96];
    Cell v[3] = {Cell::undecided, Cell::undecided, Cell::undecided};
    for (const TableCell& t : cells)
      if (t.property == prop) v[t.encoding == "NoPE" ? 0 : t.encoding == "RoPE" ? 1 : 2] = t.value;
    std::snprintf(line, sizeof line, "%-12s %-5s %-5s %-6s\n", prop, mark(v[0]).c_str(), mark(v[1]).c_str(), mark(v[2]).c_str());
    table += line;
  }
  details["cells"] = rows;
  details["table"] = table;
  bool only_range_limited = true;
  for (const Encoding& e : enc)
    for (const char* prop : {"positional", "semantic"}) {
      const nlohmann::json& d = details[e.name][prop];
      const bool undecided = std::any_of(cells.begin(), cells.end(), [&](const TableCell& t) {
        return t.encoding == e.name && t.property == prop && t.value == Cell::undecided;
      });
      if (undecided && !d.value("no_break_up_to_N", false)) only_range_limited = false;
    }
  if (!all_decided && only_range_limited) details["precision_cannot_help"] = true;
  c.details = details;
  c.verdict = any_contradiction ? Verdict::fails : (all_decided && all_agree) ? Verdict::holds : Verdict::inconclusive;
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

}  // namespace

std::vector<Certificate> check_table_1(const ClaimOptions& options) {
  return {certify_with_retry(options.precision_bits, options.max_precision_bits,
                             [&](unsigned bits) { return check_once(options, bits); })};
}

}  // namespace ropecheck::proofs
