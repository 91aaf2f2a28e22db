#include "report/usage_figures.h"

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

// A heat map of z over integer x in [0, nx) and y in [0, ny), cells centred on the integers.
Figure heat_map(const std::string& name, const std::string& title, const std::string& caption, const std::string& csv,
                const std::string& x, const std::string& y, const std::string& z, long long nx, long long ny) {
  Figure f;
  f.name = name;
  f.title = title;
  f.caption = caption;
  f.csv = csv;
  f.xlabel = x;
  f.ylabel = y;
  f.settings = "set view map\nset palette defined (0 '#ffffff', 1 '#fdd49e', 2 '#fc8d59', 3 '#b30000')\nset cblabel '" + z + "'\n" +
               printf_string("set xrange [-0.5:%lld.5]\nset yrange [-0.5:%lld.5]", nx - 1, ny - 1) + (ny <= 40 ? "\nset ytics 1" : "");
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
    if (best) out.push_back({best_layer, best->head, kind, {}});
  }
  return out;
}

std::vector<Figure> usage_figures(const usage::UsageResult& r, const std::vector<AttentionPanel>& panels) {
  std::vector<Figure> figs;
  const std::string note = sample_note(r);
  for (const char* which : {"q", "k"}) {
    std::ostringstream csv;
    csv << "pair,layer,norm\n";
    for (const usage::LayerUsage& lu : r.layers) {
      const std::vector<double>& v = std::string(which) == "q" ? lu.q_norm : lu.k_norm;
      for (size_t p = 0; p < v.size(); ++p) csv << p << ',' << lu.layer << ',' << printf_string("%.9g", v[p]) << '\n';
    }
    const std::string who = std::string(which) == "q" ? "queries" : "keys";
    figs.push_back(heat_map(std::string("usage-") + which + "-layers", "Mean norm of " + who + " per layer and pair (Fig. 3)",
                            "Pair 0 is the fastest rotary pair; pass-through pairs come last. " + note + ", every head.", csv.str(),
                            "pair (fastest first)", "layer", "mean chunk norm", static_cast<long long>(r.layers.front().q_norm.size()),
                            static_cast<long long>(r.layers.size())));
  }
  const int L = positional_layer(r);
  {
    std::ostringstream csv;
    csv << "pair,head,norm\n";
    for (const usage::HeadUsage& h : r.layers[static_cast<size_t>(L)].heads)
      for (size_t p = 0; p < h.q_norm.size(); ++p) csv << p << ',' << h.head << ',' << printf_string("%.9g", h.q_norm[p]) << '\n';
    figs.push_back(heat_map("usage-heads-layer-" + std::to_string(L), "Query usage per head, layer " + std::to_string(L) + " (Fig. 4)",
                            "The layer with the most positional heads. " + note + ".", csv.str(), "pair (fastest first)", "head",
                            "mean query chunk norm", static_cast<long long>(r.layers[static_cast<size_t>(L)].heads.front().q_norm.size()),
                            static_cast<long long>(r.layers[static_cast<size_t>(L)].heads.size())));
  }
  for (const AttentionPanel& p : panels) {
    const std::string stem = "usage-attention-" + p.kind;
    std::ostringstream csv;
    csv << "key,query,attention\n";
    for (Eigen::Index i = 0; i < p.map.rows(); ++i)
      for (Eigen::Index j = 0; j < p.map.cols(); ++j) csv << j << ',' << i << ',' << printf_string("%.6g", p.map(i, j)) << '\n';
    Figure f = heat_map(stem, "Attention of layer " + std::to_string(p.layer) + " head " + std::to_string(p.head) + ", a " + p.kind + " head (Fig. 5)",
                        "Sequence 0, first " + std::to_string(p.map.rows()) + " tokens; the model's exact RoPE, causal softmax.", csv.str(),
                        "key token", "query token", "attention", static_cast<long long>(p.map.cols()), static_cast<long long>(p.map.rows()));
    f.settings += printf_string("\nset yrange [%lld.5:-0.5]", static_cast<long long>(p.map.rows()) - 1);
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
