#include "report/usage_figures.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "io/input_error.h"
#include "io/printf_string.h"
#include "io/temporaries.h"
#include "report/figure.h"
#include "usage/usage_json.h"

namespace ropecheck::report {

namespace fs = std::filesystem;

namespace {

std::string sample_note(const usage::UsageResult& r) {
  return printf_string("Measured on %lld sequence(s) x %lld tokens", r.geometry.sequences, r.geometry.tokens);
}

// A heat map of z over integer x in [0, nx) and y in [0, ny), cells centred on the integers; the
// colour scale [0, cb_max] when cb_max > 0 (figures compared side by side share it).
Figure heat_map(const std::string& name, const std::string& title, const std::string& caption, const std::string& csv,
                const std::string& x, const std::string& y, const std::string& z, long long nx, long long ny, double cb_max = 0) {
  Figure f;
  f.name = name;
  f.title = title;
  f.caption = caption;
  f.csv = csv;
  f.xlabel = x;
  f.ylabel = y;
  f.settings = "set view map\nset palette defined (0 '#ffffff', 1 '#fdd49e', 2 '#fc8d59', 3 '#b30000')\nset cblabel '" + z + "'\n" +
               printf_string("set xrange [-0.5:%lld.5]\nset yrange [-0.5:%lld.5]", nx - 1, ny - 1) + (ny <= 40 ? "\nset ytics 1" : "") +
               (cb_max > 0 ? printf_string("\nset cbrange [0:%.6g]", cb_max) : "");
  f.plot = "DATA using 1:2:3 with image notitle";
  return f;
}

// Two series of bars side by side: columns 2 and 3 of the CSV (after the x column), with titles.
Figure paired_bars(const std::string& name, const std::string& title, const std::string& caption, const std::string& csv,
                   const std::string& x, const std::string& y, const std::string& first, const std::string& second,
                   const std::string& settings = "", const std::string& xtics = "") {
  Figure f;
  f.name = name;
  f.title = title;
  f.caption = caption;
  f.csv = csv;
  f.xlabel = x;
  f.ylabel = y;
  f.settings = "set style fill solid 0.6 noborder\nset boxwidth 0.4" + settings;
  f.plot = "DATA using ($1-0.2):2 with boxes title '" + first + "', DATA using ($1+0.2):3" + xtics + " with boxes title '" + second + "'";
  return f;
}

// The pair axis of a figure whose x is the pair index (layer_types' first pair order): dashed lines
// at the band edges with the bands named (usage/layer_pairs.h), the first layer type's frequencies
// on the top axis, and for every layer type the point where a pair turns 2 pi over the type's span
// (its wavelength equals the span; log-interpolated between the rotating pairs around it).
std::string pair_axis(const usage::UsageResult& r) {
  if (r.layer_types.empty() || r.layer_types.front().pairs.empty()) return "";
  const std::vector<usage::PairInfo>& pairs = r.layer_types.front().pairs;
  const long long n = static_cast<long long>(pairs.size());
  std::string out;
  size_t start = 0;
  for (size_t i = 1; i <= pairs.size(); ++i) {
    if (i < pairs.size() && pairs[i].band == pairs[start].band) continue;
    if (i < pairs.size()) out += printf_string("\nset arrow from %.1f, graph 0 to %.1f, graph 1 nohead dt 2 lc rgb '#555555' front", i - 0.5, i - 0.5);
    out += printf_string("\nset label '%s' at %.1f, graph 0.96 center front font ',9'", pairs[start].band.c_str(), 0.5 * (start + i - 1.0));
    start = i;
  }
  out += "\nset x2range [-0.5:" + std::to_string(n - 1) + ".5]\nset x2tics out nomirror font ',8' (";
  const long long step = std::max(1LL, n / 6);
  bool first = true;
  for (long long i = 0; i < n; i += step)
    if (pairs[static_cast<size_t>(i)].frequency > 0) {
      out += printf_string("%s'%.2g' %lld", first ? "" : ", ", pairs[static_cast<size_t>(i)].frequency, i);
      first = false;
    }
  out += ")\nset x2label 'frequency, rad/token (" + r.layer_types.front().name + " layers)' font ',9'\nset xtics nomirror";
  const char* colours[] = {"#1f78b4", "#33a02c", "#6a3d9a"};
  for (size_t t = 0; t < r.layer_types.size(); ++t) {
    const usage::LayerTypePairs& lt = r.layer_types[t];
    if (lt.span <= 0) continue;
    const double target = 2 * M_PI / static_cast<double>(lt.span);  // rad/token whose wavelength is the span
    for (size_t i = 0; i + 1 < lt.pairs.size(); ++i) {
      const double a = lt.pairs[i].frequency, b = lt.pairs[i + 1].frequency;
      if (!(a > 0 && b > 0 && a >= target && target > b)) continue;
      const double x = static_cast<double>(i) + std::log(a / target) / std::log(a / b);
      out += printf_string("\nset arrow from %.3f, graph 0 to %.3f, graph 1 nohead lw 2 lc rgb '%s' front", x, x, colours[t % 3]);
      out += printf_string("\nset label 'wavelength = span %lld (%s)' at %.3f, graph %.2f left offset 0.5,0 front textcolor rgb '%s' font ',8'",
                           lt.span, lt.name.c_str(), x, 0.9 - 0.06 * static_cast<double>(t), colours[t % 3]);
      break;
    }
  }
  return out;
}

int positional_layer(const usage::UsageResult& r) {
  int best = 0, most = -1;
  for (const usage::LayerUsage& lu : r.layers) {
    int n = 0;
    for (const usage::HeadUsage& h : lu.heads) n += usage::is_positional(h.kind());
    if (n > most) {
      most = n;
      best = lu.layer;
    }
  }
  return best;
}

}  // namespace

std::vector<AttentionPanel> panels_to_draw(const usage::UsageResult& r) {
  std::vector<AttentionPanel> out;
  for (const char* kind : {"diagonal", "previous-token"}) {
    const usage::HeadUsage* best = nullptr;
    int best_layer = 0;
    for (const usage::LayerUsage& lu : r.layers)
      for (const usage::HeadUsage& h : lu.heads) {
        const double score = std::string(kind) == "diagonal" ? h.diagonal : h.previous_token;
        const double top = best ? (std::string(kind) == "diagonal" ? best->diagonal : best->previous_token) : -1;
        if (usage::head_kind_name(h.kind()) == std::string(kind) && score > top) {
          best = &h;
          best_layer = lu.layer;
        }
      }
    if (best) out.push_back({best_layer, best->head, kind, 0, 1, {}});
  }
  return out;
}

void draw_panels(const ModelDescription& model, const std::string& path, const std::string& what, std::vector<AttentionPanel>& panels) {
  for (AttentionPanel& p : panels) {
    auto source = usage::open_capture(path, what);
    const long long tokens = source->geometry().tokens;
    p.sequence = 0;
    p.cell = std::max(1LL, (tokens + kAttentionCells - 1) / kAttentionCells);
    p.map = usage::pooled_attention_map(model, *source, p.layer, p.head, p.sequence, p.cell);
  }
}

std::vector<Figure> usage_figures(const usage::UsageResult& r, const std::vector<AttentionPanel>& panels) {
  std::vector<Figure> figs;
  const std::string note = sample_note(r);
  const std::string axis = pair_axis(r);
  double layer_max = 0;
  for (const usage::LayerUsage& lu : r.layers)
    for (const std::vector<double>* v : {&lu.q_norm, &lu.k_norm})
      for (double x : *v) layer_max = std::max(layer_max, x);
  for (const char* which : {"q", "k"}) {
    std::ostringstream csv;
    csv << "pair,layer,norm\n";
    for (const usage::LayerUsage& lu : r.layers) {
      const std::vector<double>& v = std::string(which) == "q" ? lu.q_norm : lu.k_norm;
      for (size_t p = 0; p < v.size(); ++p) csv << p << ',' << lu.layer << ',' << printf_string("%.9g", v[p]) << '\n';
    }
    const std::string who = std::string(which) == "q" ? "queries" : "keys";
    Figure f = heat_map(std::string("usage-") + which + "-layers", "Mean norm of " + who + " per layer and pair (Fig. 3)",
                        "Pair 0 is the fastest rotary pair; pass-through pairs come last; queries and keys on one colour scale; dashed: "
                        "band edges; solid: the pair whose wavelength equals each layer type's span. " + note + ", every head.",
                        csv.str(), "pair (fastest first)", "layer", "mean chunk norm", static_cast<long long>(r.layers.front().q_norm.size()),
                        static_cast<long long>(r.layers.size()), layer_max);
    f.settings += axis;
    figs.push_back(f);
  }
  const int L = positional_layer(r);
  {
    // Queries per head and keys per kv head of that layer, on one colour scale; head rows labelled
    // by their kind (head_kind.h), kv-head rows by the query heads that read them.
    const usage::LayerUsage& lu = r.layers[static_cast<size_t>(L)];
    const long long pairs = static_cast<long long>(lu.heads.front().q_norm.size());
    double head_max = 0;
    for (const usage::HeadUsage& h : lu.heads)
      for (const std::vector<double>* v : {&h.q_norm, &h.k_norm})
        for (double x : *v) head_max = std::max(head_max, x);
    std::ostringstream csv, kv_csv;
    csv << "pair,head,norm\n";
    kv_csv << "pair,kv_head,norm\n";
    std::string tics = "\nset ytics font ',8' (", kv_tics = "\nset ytics font ',8' (";
    int kv_heads = 0;
    for (const usage::HeadUsage& h : lu.heads) {
      for (size_t p = 0; p < h.q_norm.size(); ++p) csv << p << ',' << h.head << ',' << printf_string("%.9g", h.q_norm[p]) << '\n';
      tics += printf_string("%s'H%d %s' %d", h.head == 0 ? "" : ", ", h.head, usage::head_kind_name(h.kind()), h.head);
      if (h.kv_head == kv_heads) {  // the first query head of each kv group carries its keys' norms
        for (size_t p = 0; p < h.k_norm.size(); ++p) kv_csv << p << ',' << h.kv_head << ',' << printf_string("%.9g", h.k_norm[p]) << '\n';
        std::string readers;
        for (const usage::HeadUsage& g : lu.heads)
          if (g.kv_head == h.kv_head) readers += (readers.empty() ? "H" : ",") + std::to_string(g.head);
        kv_tics += printf_string("%s'KV%d (%s)' %d", kv_heads == 0 ? "" : ", ", h.kv_head, readers.c_str(), h.kv_head);
        ++kv_heads;
      }
    }
    Figure f = heat_map("usage-heads-layer-" + std::to_string(L), "Query usage per head, layer " + std::to_string(L) + " (Fig. 4)",
                        "The layer with the most positional heads; rows named by head kind (the row rule); the same colour scale as the "
                        "keys' figure beside it. " + note + ".", csv.str(), "pair (fastest first)", "head",
                        "mean query chunk norm", pairs, static_cast<long long>(lu.heads.size()), head_max);
    f.settings += tics + ")" + axis + "\nset lmargin 16";
    figs.push_back(f);
    Figure k = heat_map("usage-kv-heads-layer-" + std::to_string(L), "Key usage per kv head, layer " + std::to_string(L) + " (Fig. 4)",
                        "Keys per kv head of the same layer (rows: the query heads reading each), on the queries' colour scale. " + note + ".",
                        kv_csv.str(), "pair (fastest first)", "kv head", "mean key chunk norm", pairs, kv_heads, head_max);
    k.settings += kv_tics + ")" + axis + "\nset lmargin 16";
    figs.push_back(k);
  }
  for (const AttentionPanel& p : panels) {
    const std::string stem = "usage-attention-" + p.kind;
    // Cells in token units (cell c covers tokens [c cell, (c + 1) cell)); keys a row cannot see are
    // NaN (drawn blank); a log colour scale from 1e-5, so both the pattern and the sink show.
    const long long cell = std::max(1LL, p.cell), tokens = r.geometry.tokens;
    std::ostringstream csv;
    csv << "key,query,attention\n";
    for (Eigen::Index i = 0; i < p.map.rows(); ++i)
      for (Eigen::Index j = 0; j < p.map.cols(); ++j)
        csv << j * cell << ',' << i * cell << ',' << (j > i || p.map(i, j) <= 0 ? std::string("NaN") : printf_string("%.6g", p.map(i, j))) << '\n';
    const std::string pooled = cell == 1 ? "every token" : printf_string("cells of %lld tokens: the mean over a cell's queries of their mass on a cell's keys", cell);
    Figure f = heat_map(stem, "Attention of layer " + std::to_string(p.layer) + " head " + std::to_string(p.head) + ", a " + p.kind + " head (Fig. 5)",
                        "Sequence " + std::to_string(p.sequence) + " of " + r.capture + ", all " + std::to_string(tokens) + " tokens (" + pooled +
                            "); the model's exact RoPE, causal softmax; log colour scale.", csv.str(), "key token", "query token",
                        "attention (log scale)", static_cast<long long>(p.map.cols()), static_cast<long long>(p.map.rows()));
    f.settings += printf_string("\nset xrange [-0.5:%lld.5]\nset yrange [%lld.5:-0.5]\nunset ytics\nset ytics\nset logscale cb\nset cbrange [1e-5:1]\nset format cb '%%.0e'",
                                (p.map.cols() - 1) * cell, (p.map.rows() - 1) * cell);
    figs.push_back(f);
    const usage::HeadUsage& h = r.layers[static_cast<size_t>(p.layer)].heads[static_cast<size_t>(p.head)];
    std::ostringstream bars;
    bars << "pair,q_norm,k_norm\n";
    for (size_t i = 0; i < h.q_norm.size(); ++i) bars << i << ',' << printf_string("%.9g", h.q_norm[i]) << ',' << printf_string("%.9g", h.k_norm[i]) << '\n';
    figs.push_back(paired_bars(stem + "-pairs", "Usage of layer " + std::to_string(p.layer) + " head " + std::to_string(p.head) + " per pair (Fig. 6)",
                               "Mean chunk norm of its queries and of its kv head's keys; pair 0 is the fastest. " + note + ".", bars.str(),
                               "pair (fastest first)", "mean chunk norm", "queries", "keys"));
  }
  std::ostringstream csv;
  csv << "index,slow_still_tv,fast_removed_tv,label\n";
  int index = 0;
  for (const usage::LayerUsage& lu : r.layers)
    for (const usage::HeadUsage& h : lu.heads) {
      if (!h.slow_still) continue;
      csv << index++ << ',' << printf_string("%.6g", h.slow_still->tv) << ',' << printf_string("%.6g", h.fast_removed->tv) << ",L"
          << lu.layer << "H" << h.head << '\n';
    }
  figs.push_back(paired_bars("usage-ablations", "What each head loses: slow quarter position-free vs fast quarter removed",
                             "Mean total-variation distance between the model's attention rows and the ablated ones. " + note + ".", csv.str(),
                             "head (layer, head)", "mean TV distance", "slow quarter position-free (p-RoPE 0.75)", "fast quarter removed",
                             "\nset xtics rotate by 90 right font ',8'\nset bmargin 7\nset yrange [0:1]", ":xtic(4)"));
  return figs;
}

Figure comparison_figure(const usage::UsageResult& a, const usage::UsageResult& b, const usage::UsageSimilarity& s, const std::string& a_name,
                         const std::string& b_name) {
  auto shares = [](const usage::UsageResult& r) {
    std::vector<usage::LayerNorms> n;
    for (const usage::LayerUsage& lu : r.layers) n.push_back({lu.q_norm, lu.k_norm, {}});
    return usage::usage_shares(n);
  };
  const auto ua = shares(a), ub = shares(b);
  const long long pairs = ua.empty() ? 0 : static_cast<long long>(ua.front().size());
  // B's columns start two past A's last pair: one empty column between the panels.
  std::ostringstream csv;
  csv << "column,layer,share\n";
  // Row by row in column order (gnuplot's image grid); the gap column is NaN (drawn empty).
  for (size_t l = 0; l < ua.size(); ++l)
    for (long long c = 0; c <= 2 * pairs; ++c) {
      const std::string v = c < pairs ? printf_string("%.9g", ua[l][static_cast<size_t>(c)])
                            : c == pairs ? std::string("NaN")
                                         : printf_string("%.9g", ub[l][static_cast<size_t>(c - pairs - 1)]);
      csv << c << ',' << l << ',' << v << '\n';
    }
  Figure f = heat_map("usage-compare", "Per-pair usage: " + a_name + " (left) and " + b_name + " (right), r = " + printf_string("%.3f", s.correlation),
                      "Share of each layer's query + key norm per pair (fastest pair first), two captures side by side (Fig. 19). " +
                          s.statement + ". " + sample_note(a) + " and " + sample_note(b) + ".",
                      csv.str(), "pair (left: " + a_name + "; right: " + b_name + ")", "layer", "share of the layer norm", 2 * pairs + 1,
                      static_cast<long long>(ua.size()));
  return f;
}

void write_usage_directory(const std::string& target_text, const usage::UsageResult& r, const std::vector<AttentionPanel>& panels,
                           const std::vector<Figure>& extra) {
  const fs::path target(target_text);
  std::error_code ec;
  if (fs::exists(target, ec)) throw InputError("--out", "a directory that does not exist yet", target_text);
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::current_path();
  fs::create_directories(parent, ec);
  if (ec || access(parent.c_str(), W_OK) != 0) throw InputError("--out", "a path whose parent directory can be created and written", target_text);
  Temporary work = Temporary::make_directory(temporary_directory_pattern(target.string()));
  if (work.path().empty()) throw InputError("--out", "a path whose parent directory can be written", target_text);
  {
    std::ofstream json(fs::path(work.path()) / "usage.json");
    json << usage::usage_json(r).dump(2) << "\n";
    if (!json) throw InputError("--out", "a writable directory", target_text);
  }
  std::vector<Figure> figures = usage_figures(r, panels);
  figures.insert(figures.end(), extra.begin(), extra.end());
  for (const Figure& f : figures) {
    const RenderedFigure rf = render_figure(f, work.path());
    if (!rf.rendered) std::fprintf(stderr, "usage: figure %s not rendered: %s\n", f.name.c_str(), rf.problem.c_str());
  }
  work.commit([&] { fs::rename(work.path(), target); });
}

}  // namespace ropecheck::report
