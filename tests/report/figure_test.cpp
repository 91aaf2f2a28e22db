#include "report/figure.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "report/child_process.h"

namespace ropecheck::report {
namespace {

namespace fs = std::filesystem;

class FigureDir {
 public:
  FigureDir() {
    std::string pattern = (fs::temp_directory_path() / "ropecheck_figure_XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~FigureDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

Figure sample() {
  Figure f;
  f.name = "decay-test";
  f.title = "Mean activation |a(r)| against distance r (it's g_k)";
  f.caption = "The mean falls like 1/r.";
  f.csv = "r,mean\n1,1\n2,0.5\n4,0.25\n8,0.125\n16,0.0625\n";
  f.xlabel = "distance r (tokens)";
  f.ylabel = "mean |a(r)| (dimensionless)";
  f.logx = true;
  f.logy = true;
  f.settings = "set key top right\nset xrange [1:16]";
  f.plot = "DATA using 'r':'mean' with linespoints title 'mean', DATA using 1:2 with lines title 'again'";
  return f;
}

bool have_gnuplot() { return run_child({"gnuplot", "--version"}, "", "", 20).ok(); }

TEST(GnuplotScript, SvgTerminalOutputAndData) {
  const std::string s = gnuplot_script(sample(), "svg");
  EXPECT_NE(s.find("\nset terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'\n"), std::string::npos) << s;
  EXPECT_NE(s.find("\nset output 'decay-test.svg'\n"), std::string::npos) << s;
  EXPECT_NE(s.find("\nset datafile separator ','\n"), std::string::npos) << s;
  EXPECT_NE(s.find("\nset key noautotitle\n"), std::string::npos) << s;
  EXPECT_NE(s.find("\nset logscale x\n"), std::string::npos) << s;
  EXPECT_NE(s.find("\nset logscale y\n"), std::string::npos) << s;
  EXPECT_NE(s.find("\nset grid\n"), std::string::npos) << s;
  EXPECT_NE(s.find("\nplot 'decay-test.csv' using 'r':'mean' with linespoints title 'mean', 'decay-test.csv' using 1:2 with lines "
                   "title 'again'\n"),
            std::string::npos)
      << s;
  // The settings come verbatim, after the labels (so they can override them) and before the plot.
  const std::size_t settings = s.find("\nset key top right\nset xrange [1:16]\n");
  ASSERT_NE(settings, std::string::npos) << s;
  EXPECT_LT(s.find("\nset ylabel "), settings) << s;
  EXPECT_LT(settings, s.find("\nplot ")) << s;
  EXPECT_EQ(s.find("timestamp"), std::string::npos) << s;
}

TEST(GnuplotScript, PngTerminal) {
  const std::string s = gnuplot_script(sample(), "png");
  EXPECT_NE(s.find("\nset terminal pngcairo size 900,560 enhanced font 'Helvetica,12' background rgb 'white'\n"), std::string::npos) << s;
  EXPECT_NE(s.find("\nset output 'decay-test.png'\n"), std::string::npos) << s;
  EXPECT_THROW(gnuplot_script(sample(), "pdf"), std::invalid_argument);
}

TEST(GnuplotScript, LabelsArePlainTextWithQuotesDoubled) {
  Figure f = sample();
  f.xlabel = "g_k^2 @ & ~ {x}\nnext";
  f.logx = false;
  const std::string s = gnuplot_script(f, "svg");
  EXPECT_NE(s.find("\nset title 'Mean activation |a(r)| against distance r (it''s g_k)' noenhanced\n"), std::string::npos) << s;
  EXPECT_NE(s.find("\nset xlabel 'g_k^2 @ & ~ {x} next' noenhanced\n"), std::string::npos) << s;
  EXPECT_NE(s.find("\nunset logscale x\n"), std::string::npos) << s;
}

TEST(GnuplotScript, OnlyTheWholeWordDataIsReplaced) {
  Figure f = sample();
  f.plot = "DATA using 1:2 title 'DATASET', DATA_X, (DATA)";
  const std::string s = gnuplot_script(f, "svg");
  EXPECT_NE(s.find("\nplot 'decay-test.csv' using 1:2 title 'DATASET', DATA_X, ('decay-test.csv')\n"), std::string::npos) << s;
}

TEST(GnuplotScript, RejectsMalformedFigures) {
  Figure f = sample();
  f.name = "Bad_Name";
  EXPECT_THROW(gnuplot_script(f, "svg"), std::invalid_argument);
  f.name = "x/y";
  EXPECT_THROW(gnuplot_script(f, "svg"), std::invalid_argument);
  f.name = "";
  EXPECT_THROW(gnuplot_script(f, "svg"), std::invalid_argument);
  f = sample();
  f.csv = "";
  EXPECT_THROW(gnuplot_script(f, "svg"), std::invalid_argument);
  f.csv = "r,mean";  // no line end: not a header line followed by rows
  EXPECT_THROW(gnuplot_script(f, "svg"), std::invalid_argument);
  f.csv = "\n1,2\n";
  EXPECT_THROW(gnuplot_script(f, "svg"), std::invalid_argument);
  f = sample();
  f.plot = "  ";
  EXPECT_THROW(gnuplot_script(f, "svg"), std::invalid_argument);
}

TEST(RenderFigure, WritesCsvScriptSvgPng) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed (scripts/setup installs gnuplot-nox)";
  FigureDir dir;
  const Figure f = sample();
  const RenderedFigure r = render_figure(f, dir.path().string());
  ASSERT_TRUE(r.rendered) << r.problem;
  EXPECT_EQ(r.problem, "");
  EXPECT_EQ(r.files, (std::vector<std::string>{"figures/decay-test.csv", "figures/decay-test.gp", "figures/decay-test.svg",
                                               "figures/decay-test.png"}));
  const fs::path figs = dir.path() / "figures";
  EXPECT_EQ(listing(figs), (std::vector<std::string>{"decay-test.csv", "decay-test.gp", "decay-test.png", "decay-test.svg"}));
  EXPECT_EQ(slurp(figs / "decay-test.csv"), f.csv);
  EXPECT_EQ(slurp(figs / "decay-test.gp"), gnuplot_script(f, "svg"));
  const std::string svg = slurp(figs / "decay-test.svg");
  EXPECT_TRUE(svg.rfind("<?xml", 0) == 0 || svg.rfind("<svg", 0) == 0) << svg.substr(0, 200);
  // A plot with axes, labels and two curves is several kilobytes; an empty canvas is < 2 kB.
  EXPECT_GT(svg.size(), 4000u);
  EXPECT_NE(svg.find("it's g_k"), std::string::npos) << "title not drawn as plain text";
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  const std::string png = slurp(figs / "decay-test.png");
  ASSERT_GE(png.size(), 8u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_GT(png.size(), 4000u);
}

// The report hashes every file; a figure must be the same bytes on every render of the same data
// (gnuplot 5.4 writes no date into SVG or PNG; the output name, which differs, is not in them).
TEST(RenderFigure, RenderingTwiceGivesIdenticalBytes) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed (scripts/setup installs gnuplot-nox)";
  FigureDir a, b;
  const RenderedFigure ra = render_figure(sample(), a.path().string());
  const RenderedFigure rb = render_figure(sample(), b.path().string());
  ASSERT_TRUE(ra.rendered && rb.rendered) << ra.problem << " / " << rb.problem;
  for (const std::string ext : {"csv", "gp", "svg", "png"}) {
    const std::string x = slurp(a.path() / "figures" / ("decay-test." + ext));
    const std::string y = slurp(b.path() / "figures" / ("decay-test." + ext));
    EXPECT_EQ(x.size(), y.size()) << ext;
    EXPECT_TRUE(x == y) << ext << " differs between two renders";
  }
}

TEST(RenderFigure, BrokenPlotLeavesNoImage) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed (scripts/setup installs gnuplot-nox)";
  FigureDir dir;
  // A good render first, so the failed one must also remove the stale images.
  ASSERT_TRUE(render_figure(sample(), dir.path().string()).rendered);
  Figure f = sample();
  f.plot = "DATA using 1:2 with lines, no_such_function_xyz(x)";
  const RenderedFigure r = render_figure(f, dir.path().string());
  EXPECT_FALSE(r.rendered);
  EXPECT_NE(r.problem.find("no_such_function_xyz"), std::string::npos) << r.problem;
  EXPECT_NE(r.problem.find("\"decay-test.gp\" line "), std::string::npos) << r.problem;
  EXPECT_EQ(r.files, (std::vector<std::string>{"figures/decay-test.csv", "figures/decay-test.gp"}));
  // No image, no temporary: only the data and the script, which a reader can fix and rerun.
  EXPECT_EQ(listing(dir.path() / "figures"), (std::vector<std::string>{"decay-test.csv", "decay-test.gp"}));
}

// A constant series makes gnuplot widen the empty y range and say so; the figure is drawn, and the
// warning is kept for the reader.
TEST(RenderFigure, WarningKeepsTheFigureAndIsReported) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed (scripts/setup installs gnuplot-nox)";
  FigureDir dir;
  Figure f = sample();
  f.csv = "r,mean\n1,1\n2,1\n4,1\n";
  f.logy = false;
  const RenderedFigure r = render_figure(f, dir.path().string());
  EXPECT_TRUE(r.rendered) << r.problem;
  EXPECT_EQ(r.files.size(), 4u);
  EXPECT_EQ(r.problem.rfind("gnuplot warning: empty y range", 0), 0u) << r.problem;
}

TEST(RenderFigure, GnuplotNotOnPath) {
  FigureDir dir, empty_bin;
  const char* old = std::getenv("PATH");
  const std::string saved = old == nullptr ? "" : old;
  ::setenv("PATH", empty_bin.path().c_str(), 1);
  RenderedFigure r;
  try {
    r = render_figure(sample(), dir.path().string());
  } catch (...) {
    ::setenv("PATH", saved.c_str(), 1);
    throw;
  }
  ::setenv("PATH", saved.c_str(), 1);
  EXPECT_FALSE(r.rendered);
  EXPECT_EQ(r.problem, "gnuplot not found (install gnuplot-nox)");
  EXPECT_EQ(r.files, (std::vector<std::string>{"figures/decay-test.csv", "figures/decay-test.gp"}));
  EXPECT_EQ(listing(dir.path() / "figures"), (std::vector<std::string>{"decay-test.csv", "decay-test.gp"}));
}

TEST(RenderFigure, UnwritableDirectoryThrows) {
  FigureDir dir;
  const fs::path file = dir.path() / "plain-file";
  std::ofstream(file) << "x";
  EXPECT_THROW(render_figure(sample(), file.string()), std::runtime_error);
}

}  // namespace
}  // namespace ropecheck::report
