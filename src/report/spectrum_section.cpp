#include "report/spectrum_section.h"

#include <algorithm>
#include <chrono>
#include <ostream>
#include <sstream>
#include <utility>

#include "io/number_text.h"
#include "io/printf_string.h"
#include "numeric/decimal.h"
#include "numeric/interval_series.h"
#include "numeric/precision.h"
#include "proofs/fig-2a.h"
#include "proofs/roformer-decay.h"
#include "proofs/positional-heads.h"
#include "spectrum/config.h"
#include "spectrum/frequencies.h"
#include "spectrum/request.h"
#include "spectrum/rotations.h"

namespace ropecheck::report {
namespace {

using Clock = std::chrono::steady_clock;

// 128 bits: every quantity here is a sum of at most ~8192 well-conditioned interval terms (the
// thm-5.3 gaps lose ~log2(N) bits at a near-return, rotation/angle_sweep.h), so enclosures stay
// ~2^-100 wide relative, far below the 20 printed digits; thm-5.3's own check certifies the same
// brackets at 256 bits. A bracket that does not certify here is reported, never retried silently.
constexpr unsigned kBits = 128;

// The p-RoPE fractions whose kept and removed bands the spectrum figures show (the paper's 0.25 and 0.75).
const std::vector<std::string>& p_rope_fractions() {
  static const std::vector<std::string> f = {"0.25", "0.75"};
  return f;
}

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// CSV numbers: the shortest decimal that reads back as the binary64 (exact, and the same bytes on
// every run). For a plotted enclosure the binary64 is its midpoint's: at 128 bits the enclosure is
// far narrower than a binary64 ulp, so this is the value's nearest double (or its neighbour when a
// rounding boundary falls inside the enclosure: invisible in a plot; data carries the certified bounds).
std::string csv_number(double x) { return shortest_text(x); }
std::string csv_number(const Interval& x) { return csv_number(to_double(x)); }

nlohmann::json bounds_array(const Interval& x, int digits = 20) {
  const DecimalBounds b = decimal_bounds(x, digits);
  return nlohmann::json::array({b.lower, b.upper});
}

std::string range_text(const std::vector<int>& pairs) {
  if (pairs.empty()) return "none";
  std::string out;
  for (size_t i = 0; i < pairs.size();) {
    size_t j = i;
    while (j + 1 < pairs.size() && pairs[j + 1] == pairs[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += pairs[i] == pairs[j] ? std::to_string(pairs[i]) : std::to_string(pairs[i]) + "-" + std::to_string(pairs[j]);
    i = j + 1;
  }
  return out;
}

// ---------------------------------------------------------------- spectrum of a configuration

struct SpectrumPart {
  nlohmann::json data;
  Figure figure;
  std::vector<std::string> row;  // the markdown table's row
};

// Pairs are numbered from 1 (fastest) as in the paper ("pair 119" of gemma-7b is 0-based index 118).
SpectrumPart spectrum_part(const std::string& config) {
  SpectrumRequest request;
  request.config = config;
  const ResolvedSpectrum rope = resolve(request);
  const Spectrum& s = rope.spectrum;
  const long long context = rope.context;
  std::vector<Spectrum> variants;
  for (const std::string& f : p_rope_fractions()) {
    SpectrumRequest r = request;
    r.variant = Variant::p_rope;
    r.fraction = f;
    variants.push_back(resolve(r).spectrum);
  }
  // g_k, rotations over the context and the semantic predicate, per pair: spectrum/rotations.h.
  const std::vector<PairTurns> turns = pair_turns(s, context);
  const SemanticPairs semantic = semantic_pairs(turns);
  const std::vector<int>& below_one = semantic.pairs;
  const std::vector<int>& undecided = semantic.undecided;

  SpectrumPart part;
  std::ostringstream csv;
  csv << "pair,g_k,rotations";
  for (const std::string& f : p_rope_fractions()) csv << ",kept_p" << f;
  csv << "\n";
  nlohmann::json pairs = nlohmann::json::array();
  std::vector<std::vector<int>> removed(variants.size());
  // Shading levels: how many of the p-RoPE variants remove the pair (0.75 removes a subset of what 0.25 removes).
  std::vector<int> level(static_cast<size_t>(s.pairs()), 0);
  for (const PairTurns& t : turns) {
    const int k = t.pair - 1;
    nlohmann::json row = {{"pair", t.pair}, {"g", bounds_array(t.g)}, {"rotations", bounds_array(t.rotations)}};
    csv << t.pair << "," << csv_number(t.g) << "," << csv_number(t.rotations);
    for (size_t v = 0; v < variants.size(); ++v) {
      const bool kept = variants[v].rotated(k);
      row["kept_p" + p_rope_fractions()[v]] = kept;
      csv << "," << (kept ? 1 : 0);
      if (!kept) {
        removed[v].push_back(k + 1);
        ++level[static_cast<size_t>(k)];
      }
    }
    csv << "\n";
    pairs.push_back(row);
  }

  nlohmann::json p_rope = nlohmann::json::object();
  for (size_t v = 0; v < variants.size(); ++v)
    p_rope[p_rope_fractions()[v]] = {{"kept", variants[v].rotated_pairs()}, {"removed", static_cast<long long>(removed[v].size())},
                                     {"removed_pairs", range_text(removed[v])}};
  part.data = {{"config", config},
               {"spectrum", s.describe()},
               {"dim", s.dim()},
               {"theta", s.theta()},
               {"context", context},
               {"pairs_numbered", "from 1 (fastest), as in the paper"},
               {"pairs_below_one_rotation", static_cast<long long>(below_one.size())},
               {"pairs_below_one_rotation_list", range_text(below_one)},
               {"pairs_undecided_at_one_rotation", static_cast<long long>(undecided.size())},
               {"p_rope", p_rope},
               {"pairs", pairs}};

  Figure& fig = part.figure;
  fig.name = "spectrum-" + config;
  fig.title = config + ": full rotations of each pair over its " + std::to_string(context) + "-token context";
  fig.xlabel = "pair k (1 = fastest)";
  fig.ylabel = "rotations over the context, g_k C / 2pi (turns)";
  fig.logy = true;
  fig.csv = csv.str();
  std::ostringstream settings;
  // The removed bands as background rectangles, derived from the kept columns of the CSV.
  static const char* const kShade[] = {"", "#dbe9f6", "#9ecae1"};
  int object = 1;
  for (int k = 0; k < s.pairs();) {
    int j = k;
    while (j + 1 < s.pairs() && level[static_cast<size_t>(j + 1)] == level[static_cast<size_t>(k)]) ++j;
    const int lv = level[static_cast<size_t>(k)];
    if (lv > 0)
      settings << "set object " << object++ << " rect from first " << k + 0.5 << ", graph 0 to first " << j + 1.5
               << ", graph 1 behind fillcolor rgb '" << kShade[std::min(lv, 2)] << "' fillstyle solid 1.0 noborder\n";
    k = j + 1;
  }
  settings << "set xrange [0.5:" << s.pairs() + 0.5 << "]\n";
  settings << "set key top right opaque\n";
  fig.settings = settings.str();
  fig.plot = "DATA using 'pair':'rotations' with linespoints pointtype 7 pointsize 0.4 linecolor rgb '#08519c' title 'g_k C / 2pi', "
             "1 with lines dashtype 2 linecolor rgb 'black' title 'one rotation', "
             "keyentry with boxes fillstyle solid 1.0 fillcolor rgb '" + std::string(kShade[1]) + "' title 'removed by p-RoPE 0.25 only', "
             "keyentry with boxes fillstyle solid 1.0 fillcolor rgb '" + std::string(kShade[2]) + "' title 'removed by p-RoPE 0.25 and 0.75'";
  // How many of the pairs that never turn fully (the semantic channels) each variant removes.
  std::vector<long long> channels_removed(variants.size(), 0);
  for (size_t v = 0; v < variants.size(); ++v)
    for (int k : below_one) channels_removed[v] += variants[v].rotated(k - 1) ? 0 : 1;
  part.data["p_rope_removes_of_pairs_below_one_rotation"] = {{p_rope_fractions()[0], channels_removed[0]},
                                                              {p_rope_fractions()[1], channels_removed[1]}};
  fig.caption = std::to_string(below_one.size()) + " of " + std::to_string(s.pairs()) + " pairs (" + range_text(below_one) +
                ") turn less than once over " + std::to_string(context) + " tokens (certified); p-RoPE 0.25 removes pairs " +
                range_text(removed[0]) + ", p-RoPE 0.75 removes pairs " + range_text(removed[1]) + " (shaded), i.e. " +
                std::to_string(channels_removed[1]) + " of those " + std::to_string(below_one.size()) + ".";
  part.row = {config, std::to_string(context), std::to_string(s.pairs()), std::to_string(below_one.size()) + " (" + range_text(below_one) + ")",
              range_text(removed[0]), range_text(removed[1])};
  if (!undecided.empty()) part.row[3] += ", undecided " + range_text(undecided);
  return part;
}

// ---------------------------------------------------------------- thm-5.3 minimal norm

struct NormPart {
  nlohmann::json data;
  Figure figure;
  std::string markdown;
  std::vector<std::string> missing;
};

NormPart norm_part(long long max_n) {
  const std::string config = "gemma-7b";
  const Spectrum s = config_spectrum(config);
  const std::vector<int> Ks = {16, s.rotated_pairs()};
  const std::string eps_text = "0.1";
  const double tolerance = 1e-6;
  const Interval eps = from_decimal<Interval>(eps_text);
  const std::vector<std::vector<Interval>> gaps = proofs::even_spread_gaps(s, Ks, max_n - 1);
  std::vector<long long> Ns;
  for (long long n = 2; n <= max_n; n *= 2) Ns.push_back(n);

  NormPart part;
  std::ostringstream csv;
  csv << "N,head,K,s_lo,s_hi,certified\n";
  nlohmann::json rows = nlohmann::json::array();
  std::vector<std::vector<std::string>> table;
  std::string growth;  // per series: s_hi at the smallest and at the largest N, for the caption
  // Rows grouped by (head, K), N increasing: each plotted series is one contiguous block.
  for (proofs::PositionalHead head : {proofs::PositionalHead::diagonal, proofs::PositionalHead::previous_token}) {
    for (size_t i = 0; i < Ks.size(); ++i) {
      for (long long N : Ns) {
        const proofs::NormBracket b = proofs::minimal_norm(gaps[i], head, N, eps, tolerance);
        const std::string h = proofs::head_name(head);
        nlohmann::json row = {{"N", N}, {"head", h}, {"K", Ks[i]}, {"certified", b.certified}, {"evaluations", b.evaluations},
                              {"min_gap_offset", b.min_gap_offset}};
        std::string lo, hi;
        if (b.certified) {
          lo = to_decimal(b.s_lo, 20, Rounding::down);
          hi = to_decimal(b.s_hi, 20, Rounding::up);
          row["s_lo"] = lo;
          row["s_hi"] = hi;
        } else {
          row["note"] = b.note;
          part.missing.push_back("thm-5.3-minimal-norm: " + h + " K=" + std::to_string(Ks[i]) + " N=" + std::to_string(N) +
                                 " not certified at " + std::to_string(effective_precision_bits(kBits)) + " bits (" + b.note + ")");
        }
        rows.push_back(row);
        csv << N << "," << h << "," << Ks[i] << "," << lo << "," << hi << "," << (b.certified ? 1 : 0) << "\n";
        if ((N == Ns.front() || N == Ns.back()) && b.certified)
          growth += std::string(N == Ns.front() ? (growth.empty() ? "" : "; ") + h + " K=" + std::to_string(Ks[i]) + " " : " -> ") +
                    printf_string("%.4g", to_double(b.s_hi));
        if (N == Ns.front() || N == Ns.back() || N == 256)
          table.push_back({h, std::to_string(Ks[i]), std::to_string(N), b.certified ? "[" + to_decimal(b.s_lo, 8, Rounding::down) + ", " +
                                                                                         to_decimal(b.s_hi, 8, Rounding::up) + "]"
                                                                                   : "not certified"});
      }
    }
  }
  part.data = {{"config", config},
               {"spectrum", s.describe()},
               {"K", Ks},
               {"epsilon", eps_text},
               {"relative_tolerance", "1e-6"},
               {"N", Ns},
               {"brackets", rows}};

  Figure& fig = part.figure;
  fig.name = "thm-5.3-minimal-norm";
  fig.title = "gemma-7b: certified minimal ||psi||^2 for alpha > 0.9 at every position i <= N";
  fig.xlabel = "N (positions that must all attend to their target)";
  fig.ylabel = "minimal squared norm ||psi||^2 (dimensionless)";
  fig.logx = true;
  fig.logy = true;
  fig.csv = csv.str();
  fig.settings = "set key top left\nset xrange [1.5:" + std::to_string(max_n * 4 / 3) + "]\n";
  std::string plot;
  static const char* const kColour[2][2] = {{"#08519c", "#6baed6"}, {"#a50f15", "#fb6a4a"}};
  for (size_t hi = 0; hi < 2; ++hi) {
    const std::string h = hi == 0 ? "diagonal" : "previous-token";
    for (size_t i = 0; i < Ks.size(); ++i) {
      // One series per (head, K): the other rows, and uncertified brackets, are NaN (not drawn).
      auto pick = [&](const std::string& col) {
        return "(strcol('head') eq '" + h + "' && column('K') == " + std::to_string(Ks[i]) + " && column('certified') == 1 ? column('" + col +
               "') : NaN)";
      };
      if (!plot.empty()) plot += ", ";
      plot += "DATA using 'N':" + pick("s_hi") + ":" + pick("s_lo") + ":" + pick("s_hi") +
              " with yerrorlines pointtype 7 pointsize 0.5 linecolor rgb '" + kColour[hi][i] + "' title '" + h + ", K = " +
              std::to_string(Ks[i]) + (Ks[i] == s.rotated_pairs() ? " (all pairs)" : " fastest") + "'";
    }
  }
  fig.plot = plot;
  fig.caption = "Certified minimal ||psi||^2 for alpha > 0.9 at every position up to N (brackets of relative width 1e-6, both ends "
                "plotted), N = 2 -> " + std::to_string(max_n) + ": " + growth +
                " (to 4 digits): more positions only add off-target terms, so it never decreases with N.";
  part.markdown = markdown_table({"head", "K", "N", "certified min ||psi||^2"}, table);
  return part;
}

// ---------------------------------------------------------------- RoFormer bound

struct RoformerPart {
  nlohmann::json data;
  Figure figure;
  std::string markdown;
};

RoformerPart roformer_part(long long r_max) {
  const Spectrum s(128, "10000");
  const std::vector<Interval> g = frequencies<Interval>(s);
  const std::vector<Interval> B = proofs::roformer_bound(g, r_max);
  const std::vector<Interval> f = proofs::all_ones_activation(g, r_max);
  // The claim's own analyses (roformer-decay.h, numeric/interval_series.h), not re-derived here.
  const proofs::EnvelopeCounts envelope = proofs::roformer_envelope(B, f);
  const long long envelope_certified = envelope.certified, envelope_violated = envelope.violated;
  const long long argmin = minimum_over(B, 0, r_max).at;          // only chooses which enclosure is reported
  const long long increases = count_steps(B, 0, r_max).increases;  // certified B(r) > B(r - 1)
  std::ostringstream csv;
  csv << "r,B,abs_a\n";
  for (long long r = 0; r <= r_max; ++r) {
    const auto i = static_cast<size_t>(r);
    csv << r << "," << csv_number(B[i]) << "," << csv_number(Interval(abs(f[i]))) << "\n";
  }
  const long long P = s.pairs();
  RoformerPart part;
  part.data = {{"spectrum", s.describe()},
               {"r_max", r_max},
               {"B_0", bounds_array(B[0])},
               {"B_0_exact", printf_string("%lld/2", P + 1)},
               {"B_0_equals_exact", contains(B[0], Real(P + 1) / 2)},
               {"B_r_max", bounds_array(B.back())},
               {"B_min", bounds_array(B[static_cast<size_t>(argmin)])},
               {"B_argmin_r", argmin},
               {"abs_a_r_max", bounds_array(abs(f.back()))},
               {"B_certified_increases", increases},
               {"envelope_certified", envelope_certified},
               {"envelope_violated", envelope_violated}};
  Figure& fig = part.figure;
  fig.name = "roformer-bound";
  fig.title = "RoFormer long-term decay bound B(r) and the all-ones activation |a(r)|, d = 128, theta = 10^4";
  fig.xlabel = "relative distance r (tokens)";
  fig.ylabel = "activation / bound (normalised: a(0) = 1)";
  fig.logy = true;
  fig.csv = csv.str();
  fig.settings = "set yrange [1e-4:100]\nset xrange [0:" + std::to_string(r_max) + "]\nset key top right\n";
  fig.plot = "DATA using 'r':'B' with lines linewidth 2 linecolor rgb '#08519c' title 'RoFormer bound B(r)', "
             "DATA using 'r':'abs_a' with lines linecolor rgb '#a50f15' title '|a(r)|, q = k = all ones'";
  const DecimalBounds last = decimal_bounds(B.back(), 4);
  fig.caption = "B(r) falls from (d/2 + 1)/2 = " + std::to_string(P + 1) + "/2 at r = 0 to [" + last.lower + ", " + last.upper + "] at r = " +
                std::to_string(r_max) + " (with " + std::to_string(increases) + (increases > 0 ? " certified rises: not monotone" : " certified rises") + "); |a(r)| of all-ones q = k (Figure 2a's decaying case) stays below it at " +
                std::to_string(envelope_certified) + " of " + std::to_string(r_max + 1) + " distances (certified).";
  part.markdown = printf_string("RoFormer bound (d = 128, theta = 1e4, r = 0..%lld): B(0) = %lld/2 %s; B(%lld) in [%s, %s]; "
                                "|a(r)| <= B(r) certified at %lld of %lld distances, violated at %lld.\n",
                                r_max, P + 1, contains(B[0], Real(P + 1) / 2) ? "(exact, enclosed)" : "(NOT enclosed)", r_max,
                                decimal_bounds(B.back(), 8).lower.c_str(), decimal_bounds(B.back(), 8).upper.c_str(), envelope_certified,
                                r_max + 1, envelope_violated);
  return part;
}

}  // namespace

nlohmann::json spectrum_data(const std::string& config) {
  const ScopedPrecision precision(kBits);
  return spectrum_part(config).data;
}

SectionResult spectrum_section(const Context& context) {
  std::ostream& log = *context.log;
  SectionResult out;
  out.key = "spectrum";
  const ScopedPrecision precision(kBits);
  const long long max_n = context.mode == Mode::smoke ? 256 : 8192;
  const long long r_max = context.mode == Mode::smoke ? 256 : 4096;
  out.data["precision_bits"] = precision.bits();

  std::ostringstream md;
  md << "## Spectrum and positional heads\n\n";
  md << "Certified in MPFI at " << precision.bits() << " bits; pairs numbered from 1 (fastest) as in the paper.\n\n";

  auto start = Clock::now();
  std::vector<std::vector<std::string>> spectrum_rows;
  nlohmann::json spectra = nlohmann::json::object();
  for (const std::string config : {"gemma-7b", "llama-3.1-8b"}) {
    log << "report: spectrum of " << config << "\n";
    SpectrumPart p = spectrum_part(config);
    spectra[config] = std::move(p.data);
    spectrum_rows.push_back(std::move(p.row));
    out.figures.push_back(std::move(p.figure));
  }
  out.data["spectra"] = std::move(spectra);
  out.timings["spectra_seconds"] = seconds_since(start);
  md << markdown_table({"configuration", "context C", "pairs", "pairs turning < 1 time over C", "p-RoPE 0.25 removes", "p-RoPE 0.75 removes"},
                       spectrum_rows)
     << "\n";

  start = Clock::now();
  log << "report: thm-5.3 minimal norm, N = 2.." << max_n << "\n";
  NormPart norm = norm_part(max_n);
  out.data["thm_5_3_minimal_norm"] = std::move(norm.data);
  out.timings["thm_5_3_minimal_norm_seconds"] = seconds_since(start);
  out.figures.push_back(std::move(norm.figure));
  for (std::string& m : norm.missing) out.missing.push_back(std::move(m));
  md << "Theorem 5.3's construction on gemma-7b, epsilon = 0.1 (certified brackets of the minimal ||psi||^2; all N in the figure "
        "thm-5.3-minimal-norm):\n\n"
     << norm.markdown << "\n";

  start = Clock::now();
  log << "report: RoFormer bound, r = 0.." << r_max << "\n";
  RoformerPart roformer = roformer_part(r_max);
  out.data["roformer_bound"] = std::move(roformer.data);
  out.timings["roformer_bound_seconds"] = seconds_since(start);
  out.figures.push_back(std::move(roformer.figure));
  md << roformer.markdown;

  out.markdown = md.str();
  return out;
}

}  // namespace ropecheck::report
