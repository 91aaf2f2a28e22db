#include "report/usage_section.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>

#include "io/file_bytes.h"
#include "io/printf_string.h"
#include "report/usage_figures.h"
#include "spectrum/hf_config.h"
#include "usage/usage_json.h"
#include "usage/usage_compare.h"
#include "usage/usage_text.h"

#ifndef ROPECHECK_SOURCE_DIR
#define ROPECHECK_SOURCE_DIR ""
#endif

namespace ropecheck::report {
namespace {

namespace fs = std::filesystem;

// The committed example (examples/toy_model/README.md says how each file was made).
constexpr const char* kExample = "examples/toy_model";
constexpr const char* kCapture = "captures/rope_seed0.1x.capture.npz";  // 16 held-out sequences at the training length
constexpr const char* kConfig = "captures/rope_seed0.config.json";
constexpr const char* kCapture2x = "captures/rope_seed0.2x.capture.npz";  // the same model at 2x the training length
constexpr const char* kCapture4x = "captures/rope_seed0.4x.capture.npz";  // and at 4x
constexpr const char* kTable2 = "results/table2.md";
constexpr const char* kTable2Json = "results/table2.json";
constexpr const char* kAblation = "results/ablation.md";
// The toy model's context is 64 tokens and its copies lie 32 back: a content match is sought at
// least a quarter of the context back, not usage.h's default 64 (the whole context here).
constexpr long long kContentDistance = 16;
// Gaussian null captures per analysed capture: 8 heads each, so 50 give 400 heads (0 flagged would
// bound the false-positive rate below 0.0075 at 95%); about 0.1 s each. The smoke report (CI's
// size) draws 4 (32 heads: 0 flagged bounds it below 0.089): the nulls were most of the smoke
// report's time, 190 of its 213 s under ASan + UBSan, the sanitizer ctest's longest test.
constexpr int kNullRepeats = 50;
constexpr int kSmokeNullRepeats = 4;

// A committed Markdown result inside this section: its title dropped, its headings `levels` down.
std::string demoted(const std::string& text, int levels) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.rfind("# ", 0) == 0) continue;
    if (line.rfind("#", 0) == 0) line = std::string(static_cast<size_t>(levels), '#') + line;
    out += line + "\n";
  }
  return out;
}

// The toy Table 2's summary tables (not the per-seed raw numbers).
std::string table2_summary(const std::string& text) { return demoted(text.substr(0, text.find("## Per-seed")), 3); }

std::string read_text(const fs::path& p) { return read_file_bytes(p.string(), p.string()); }

std::string f3(double v) { return printf_string("%.3f", v); }

// Where the toy model's measured loss degrades: rope's held-out loss on the `long` family (one copy
// up to L/2 back) at 1x-8x, the mean over seeds, from the committed Table 2 runs.
std::string degradation(const fs::path& table2_json) {
  if (!fs::exists(table2_json)) return "";
  const nlohmann::json t = nlohmann::json::parse(read_text(table2_json));
  std::map<int, std::pair<double, int>> loss;
  for (const auto& run : t.at("runs"))
    if (run.at("encoding") == "rope")
      for (int m : {1, 2, 4, 8}) {
        const std::string key = "long_" + std::to_string(m) + "x_loss";
        if (run.contains(key)) {
          loss[m].first += run.at(key).get<double>();
          loss[m].second += 1;
        }
      }
  if (loss.empty()) return "";
  std::string out = ". Beside them, where the model's measured loss degrades (rope, held-out `long` copies up to L/2 back, mean over seeds):";
  for (const auto& [m, v] : loss) out += printf_string(" %d tokens %.2f nats;", 64 * m, v.first / v.second);
  out.back() = '.';
  return out;
}

// Share of query + key norm on one band, per layer (the layer mean over heads).
double band_share(const usage::UsageResult& r, const usage::LayerUsage& lu, const std::string& band) {
  const usage::LayerTypePairs* t = nullptr;
  for (const auto& lt : r.layer_types)
    if (lt.name == lu.layer_type) t = &lt;
  double in = 0, all = 0;
  for (size_t p = 0; p < lu.q_norm.size(); ++p) {
    all += lu.q_norm[p] + lu.k_norm[p];
    if (t && t->pairs[p].band == band) in += lu.q_norm[p] + lu.k_norm[p];
  }
  return all > 0 ? in / all : 0;
}

std::string break_text(const usage::HeadUsage& h) {
  if (h.breaks.empty()) return usage::is_content(h.kind()) ? (h.strong_matches ? "-" : "no strong match") : "-";
  std::vector<long long> found;
  long long none = 0;
  for (const usage::ContentBreak& b : h.breaks) {
    if (b.outcome == "found") found.push_back(b.distance);
    none += b.outcome == "none";
  }
  std::sort(found.begin(), found.end());
  std::string t = std::to_string(h.breaks.size()) + " rows";
  if (!found.empty()) t += printf_string(": %zu break, %lld-%lld", found.size(), found.front(), found.back());
  if (none) t += printf_string("; %lld none <= %lld", none, h.breaks.front().limit);
  return t;
}

// The strongest score of a head: "name mass [interval] (uniform b)".
std::string strongest(const usage::HeadUsage& h) {
  const usage::NamedScore top = usage::strongest_score(h);
  return top.name + printf_string(" %.3f [%.3f, %.3f] (uniform %.4f)", top.test->mass, top.test->lo, top.test->hi, top.test->baseline);
}

std::string kinds_line(const usage::UsageResult& u) {
  std::string out;
  for (const usage::LayerUsage& lu : u.layers) {
    out += (out.empty() ? "" : "; ") + std::string("layer ") + std::to_string(lu.layer) + ":";
    for (const usage::HeadUsage& h : lu.heads) out += " " + usage::kind_text(h);
  }
  return out;
}

std::string null_line(const usage::UsageResult& u) {
  if (!u.null.run) return "not run";
  return printf_string("%lld of %lld heads given a kind (rate %.3g, 95%% upper bound %.3g, Clopper-Pearson; %d Gaussian captures, seeds %llu..)",
                       u.null.flagged, u.null.heads, u.null.rate, u.null.upper95, u.null.repeats, static_cast<unsigned long long>(u.null.seed));
}

std::string quantiles_text(const usage::BreakDistribution& b) {
  if (b.rows == 0) return "no strong content match certified";
  std::string t = printf_string("%lld rows of %lld heads: %lld break (%lld within the 64-token context), %lld none up to %lld; quantiles", b.rows,
                                b.heads, b.found, b.found_within_span, b.none, b.limit);
  for (const auto& q : b.quantiles) t += printf_string(" %g%%: ", 100 * q.level) + (q.distance ? std::to_string(*q.distance) : "none");
  return t;
}

}  // namespace

SectionResult usage_section(const Context& context) {
  SectionResult r;
  r.key = "usage";
  const fs::path dir = fs::path(ROPECHECK_SOURCE_DIR) / kExample;
  if (!fs::exists(dir / kCapture) || !fs::exists(dir / kConfig)) {
    r.missing.push_back("usage: " + (dir / kCapture).string() + " or its config not found (the section needs the source tree's examples/)");
    r.markdown = "## How a trained model uses its RoPE (measured)\n\nNot run: the example's capture was not found.\n";
    return r;
  }
  *context.log << "report: usage " << (dir / kCapture).string() << "\n";
  const ModelDescription model = read_hf_config_text(read_text(dir / kConfig), std::string(kExample) + "/" + kConfig);
  usage::UsageOptions o;
  o.threads = context.threads;
  o.content_distance = kContentDistance;
  o.null_repeats = context.mode == Mode::smoke ? kSmokeNullRepeats : kNullRepeats;
  auto analyse = [&](const char* capture) {
    auto source = usage::open_capture((dir / capture).string(), "usage capture");
    usage::UsageResult res = usage::analyse_usage(model, *source, o);
    // The capture named relative to the checkout, so the report's data do not depend on where it is.
    const std::string absolute = (dir / capture).string();
    if (res.capture.rfind(absolute, 0) == 0) res.capture = std::string(kExample) + "/" + capture + res.capture.substr(absolute.size());
    return res;
  };
  usage::UsageResult u = analyse(kCapture);
  std::vector<AttentionPanel> panels = panels_to_draw(u);
  draw_panels(model, (dir / kCapture).string(), "usage capture", panels);
  r.figures = usage_figures(u, panels);
  r.data = usage::usage_json(u);
  r.timings["usage_seconds"] = u.seconds;

  std::ostringstream md;
  const long long rows = u.geometry.sequences * (u.geometry.tokens - 1);
  md << "## How a trained model uses its RoPE (measured)\n\n"
     << "The paper's Sections 4-5 measure Gemma 7B. This section measures a model the project trains itself, where every "
        "encoding of Table 2 can be trained and compared (the next section measures a real language model): `" << kExample
     << "` (a " << u.geometry.layers << "-layer Llama-style decoder, " << u.geometry.heads << " query heads on " << u.geometry.kv_heads
     << " kv heads, head_dim " << u.geometry.head_dim << ", RoPE theta 10000, trained on an induction task; its README gives the seed, steps "
     << "and losses; this capture is 16 held-out sequences at the training length). `ropecheck usage --model " << kExample << "/" << kConfig << " --capture " << kExample << "/" << kCapture
     << " --content-distance " << kContentDistance << "` measures it: **" << u.capture << "**, " << rows << " attention rows per head. These are measurements on that capture, not "
     << "certificates; only the breaking distances are certified (for the captured vectors).\n\n";
  std::vector<std::vector<std::string>> table;
  for (const usage::LayerUsage& lu : u.layers)
    for (const usage::HeadUsage& h : lu.heads)
      table.push_back({std::to_string(lu.layer), std::to_string(h.head), usage::kind_text(h), strongest(h),
                       h.high_frequency_share ? f3(*h.high_frequency_share) + " (#" + std::to_string(*h.share_rank) + ")" : "-",
                       h.slow_still ? f3(h.slow_still->tv) + " / " + f3(h.slow_still->top1) : "-",
                       h.fast_removed ? f3(h.fast_removed->tv) + " / " + f3(h.fast_removed->top1) : "-", break_text(h)});
  const usage::KindRule& rule = o.kind_rule;
  md << printf_string(
            "**Head kinds against chance.** Each head's attention mass at offsets 0-%d, on the first token and on induction targets (the "
            "tokens that followed earlier occurrences of the current token; the capture has its token ids) is compared with uniform causal "
            "attention on the same keys, over rows. A score is significant when its mean mass is at least %.2g and the one-sided z-test of "
            "mass - %.3g x uniform > 0 over rows rejects at %.3g family-wise (Bonferroni over %lld scores: z > %.2f); the kind is the "
            "largest significant offset or induction score, else `first-token` when that one is significant, else `other` (docs/usage.md, Head kinds; asymptotic, rows treated as independent). The rule's "
            "false-positive rate, measured on a Gaussian capture of the same shapes and per-head RMS: %s.\n\n",
            rule.max_offset, rule.min_mass, rule.lift, rule.alpha, u.scores_tested, u.z_critical, null_line(u).c_str())
     << markdown_table({"layer", "head", "kind", "strongest score: mean [95% over rows] (uniform)", "fast-quarter share (rank)",
                        "slow quarter position-free: TV / top-1", "fast quarter removed: TV / top-1", "breaking distances (certified)"},
                       table)
     << "\n";
  std::string curve;
  for (const usage::ComponentCurvePoint& c : u.components.curve)
    curve += (curve.empty() ? "" : ", ") + printf_string("%.2g: %lld [%lld, %lld]", c.cut, c.count, c.lo, c.hi);
  md << "**Positional components, against a position-free null** (docs/usage.md): the attention the rotation adds at an offset, "
        "per sequence the mean attention there minus the same head's attention with every pair held still, over sequences with "
        "simultaneous intervals. "
     << u.components.statement << ". Heads by cut (point [interval]): " << curve << ". Section 5 with these labels, the intervention first: "
     << u.section5.fast_removed.statement << "; the proxy: " << u.section5.share.statement << ".\n\n";
  // The same model captured at 2x and 4x its training length: do the kinds survive?
  std::vector<std::vector<std::string>> lengths;
  lengths.push_back({"1x (64 tokens)", std::to_string(u.geometry.sequences), kinds_line(u), null_line(u), "1 (itself)"});
  for (const auto& [name, capture] : {std::pair<const char*, const char*>{"2x (128 tokens)", kCapture2x}, {"4x (256 tokens)", kCapture4x}}) {
    if (!fs::exists(dir / capture)) {
      r.missing.push_back("usage: " + (dir / capture).string() + " not found");
      continue;
    }
    const usage::UsageResult longer = analyse(capture);
    const usage::UsageSimilarity sim = usage::compare_usage(u, longer);
    lengths.push_back({name, std::to_string(longer.geometry.sequences), kinds_line(longer), null_line(longer),
                       printf_string("r = %.4f; kinds agree %.0f%%", sim.correlation, 100 * sim.kinds_agree.value_or(0))});
    if (std::string(name).rfind("4x", 0) == 0) r.figures.push_back(comparison_figure(u, longer, sim, "1x", "4x"));
    r.data["longer"][name] = usage::usage_json(longer);
  }
  md << "The same model captured beyond its training length (`ropecheck usage` on each capture, the same rule; the kinds must not vanish):\n\n"
     << markdown_table({"capture", "sequences", "kinds per layer", "false positives on its Gaussian null",
                        "per-pair usage vs 1x (usage/usage_compare.h: Pearson r of the layers' shares)"},
                       lengths)
     << "\n";

  // The paper's findings on Gemma 7B beside this capture's, row by row.
  std::string per_layer_fast, per_layer_slow;
  for (const usage::LayerUsage& lu : u.layers) {
    per_layer_fast += (per_layer_fast.empty() ? "" : ", ") + f3(band_share(u, lu, "fast"));
    per_layer_slow += (per_layer_slow.empty() ? "" : ", ") + f3(band_share(u, lu, "slow"));
  }
  std::map<std::string, std::pair<double, int>> slow_tv, fast_tv;
  for (const usage::LayerUsage& lu : u.layers)
    for (const usage::HeadUsage& h : lu.heads)
      if (h.slow_still) {
        const std::string k = usage::is_positional(h.kind()) ? "positional" : usage::head_kind_name(h.kind());
        slow_tv[k].first += h.slow_still->tv;
        slow_tv[k].second += 1;
        fast_tv[k].first += h.fast_removed->tv;
        fast_tv[k].second += 1;
      }
  std::string ablation;
  for (const auto& [kind, v] : slow_tv)
    ablation += (ablation.empty() ? "" : "; ") + kind + " heads (" + std::to_string(v.second) + "): slow quarter position-free " +
                f3(v.first / v.second) + ", fast quarter removed " + f3(fast_tv[kind].first / fast_tv[kind].second);
  md << "### The paper's findings beside this model's\n\n"
     << markdown_table(
            {"the paper (Gemma 7B; Llama 3.1 8B in its appendix)", "here (measured on the capture above)"},
            {{"Most query/key norm sits on the lowest frequencies at every layer (Fig. 3)",
              "share of norm on the slow quarter, per layer: " + per_layer_slow + "; on the fast quarter: " + per_layer_fast},
             {"The highest frequencies build positional heads, diagonal and previous-token (Figs. 4-6, Section 5)",
              u.ranking.statement + ". " + u.within_layers.statement},
             {"Semantic heads use the low-frequency bands (Fig. 7); p-RoPE 0.75 keeps positional heads (Table 1's mechanism)",
              "mean TV distance to the model's attention, " + ablation},
             {"Low-frequency semantic channels break at long context (Theorem 6.1)",
              "strong content matches (weight >= " + printf_string("%.2g", o.strong_match) + ", key >= " + std::to_string(o.content_distance) +
                  " back) of the content heads: " + quantiles_text(u.breaks) + degradation(dir / kTable2Json)}})
     << "\nWhere they differ, the toy model is the likelier cause: " << u.geometry.layers
     << " layers and one synthetic task, not a language model; the table states what this capture shows, nothing more.\n\n";
  const fs::path abl = dir / kAblation;
  if (fs::exists(abl))
    md << "### Band ablations as loss\n\nThe model as trained against each band (fast quarter, middle half, slow quarter) made "
          "position-free or removed, as next-token loss on held-out sets with paired intervals over sequences (`ropecheck.torch."
          "ablation_losses`; `" << kExample << "/" << kAblation << "`, an offline run committed with its command):\n\n"
       << demoted(read_text(abl), 2) << "\n";
  else
    r.missing.push_back("usage: " + abl.string() + " not found");
  const fs::path t2 = dir / kTable2;
  md << "### Table 2 at toy scale\n\n"
     << "The paper (Gemma 2B, 8k context, validation perplexity): NoPE 4.8594 / 6.6429, RoPE theta 10k 4.4627 / 6.4429, theta 500k "
        "4.4485 / 6.4593, 0.75-RoPE reversed 4.4592 / 6.4683, 0.75-RoPE partial 4.4537 / 6.4562, 0.25-RoPE 4.5302 / 6.5111, "
        "0.75-RoPE 4.4414 / 6.4422 (Wiki / FlanV2).\n\n";
  if (fs::exists(t2)) md << "The toy model (`" << kExample << "/" << kTable2 << "`, an offline run committed with its command):\n\n" << table2_summary(read_text(t2)) << "\n";
  else r.missing.push_back("usage: " + t2.string() + " not found");
  r.markdown = md.str();
  return r;
}

}  // namespace ropecheck::report
