#include "report/figure.h"

#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "io/atomic_write.h"
#include "io/input_error.h"
#include "report/child_process.h"

namespace ropecheck::report {

namespace {

namespace fs = std::filesystem;

// A gnuplot that has not finished a 900x560 plot of a few thousand points in a minute is stuck.
constexpr double kGnuplotSeconds = 60;

void validate(const Figure& f) {
  if (f.name.empty()) throw std::invalid_argument("figure name must match [a-z0-9.-]+ (got nothing)");
  for (char c : f.name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-'))
      throw std::invalid_argument("figure name must match [a-z0-9.-]+ (got \"" + f.name + "\")");
  const std::size_t eol = f.csv.find('\n');
  const std::string header = f.csv.substr(0, eol);
  if (f.csv.empty() || eol == std::string::npos || header.empty() || header == "\r")
    throw std::invalid_argument("figure " + f.name + ": the CSV must start with a header line ending in a newline");
  if (f.plot.find_first_not_of(" \t\n") == std::string::npos)
    throw std::invalid_argument("figure " + f.name + ": empty plot command");
}

// The text rule of figure.h: a gnuplot single-quoted string, newlines as spaces.
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += "''";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
  return out + "'";
}

bool word_char(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }

std::string substitute_data(const std::string& plot, const std::string& csv_name) {
  const std::string word = "DATA";
  std::string out;
  std::size_t i = 0;
  while (i < plot.size()) {
    if (plot.compare(i, word.size(), word) == 0 && (i == 0 || !word_char(plot[i - 1])) &&
        (i + word.size() == plot.size() || !word_char(plot[i + word.size()]))) {
      out += quoted(csv_name);
      i += word.size();
    } else {
      out += plot[i++];
    }
  }
  return out;
}

std::string terminal_line(const std::string& terminal) {
  if (terminal == "svg") return "set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'";
  if (terminal == "png") return "set terminal pngcairo size 900,560 enhanced font 'Helvetica,12' background rgb 'white'";
  throw std::invalid_argument("gnuplot terminal must be svg or png (got \"" + terminal + "\")");
}

// The script with its output going to `output` (render_figure's temporary name; gnuplot_script's
// final one). Only the output line differs, so line numbers in gnuplot's messages match <name>.gp.
std::string script(const Figure& f, const std::string& terminal, const std::string& output) {
  validate(f);
  std::ostringstream s;
  std::string title_line = f.title;
  for (char& c : title_line)
    if (c == '\n' || c == '\r') c = ' ';
  s << "# " << f.name << ": " << title_line << "\n";
  s << "# Written by `ropecheck report`; run `gnuplot " << f.name << ".gp` in this directory to redraw " << f.name
    << ".svg from " << f.name << ".csv.\n";
  s << "# For the PNG: replace the `set terminal` line below by `" << terminal_line("png") << "` and the output name by '"
    << f.name << ".png'.\n";
  // A ~/.gnuplot must not change the figure: start from gnuplot's defaults.
  s << "reset session\n";
  s << terminal_line(terminal) << "\n";
  s << "set output " << quoted(output) << "\n";
  s << "set datafile separator ','\n";
  s << "set datafile columnheaders\n";
  s << "set key noautotitle\n";
  s << "set title " << quoted(f.title) << " noenhanced\n";
  s << "set xlabel " << quoted(f.xlabel) << " noenhanced\n";
  s << "set ylabel " << quoted(f.ylabel) << " noenhanced\n";
  s << (f.logx ? "set logscale x\n" : "unset logscale x\n");
  s << (f.logy ? "set logscale y\n" : "unset logscale y\n");
  s << "set grid\n";
  if (!f.settings.empty()) {
    s << f.settings;
    if (f.settings.back() != '\n') s << "\n";
  }
  s << "plot " << substitute_data(f.plot, f.name + ".csv") << "\n";
  s << "unset output\n";
  return s.str();
}

// gnuplot's messages start with blank lines and indentation; keep the first few lines that say
// something, naming the script it would read in figures/ rather than /dev/stdin.
std::string first_lines(const std::string& text, const std::string& script_name, int max_lines = 4) {
  std::istringstream in(text);
  std::string line, out;
  int n = 0;
  while (n < max_lines && std::getline(in, line)) {
    const std::size_t a = line.find_first_not_of(" \t\r");
    // A caret under the offending column means nothing once the indentation is gone.
    if (a == std::string::npos || line.find_first_not_of(" \t\r^") == std::string::npos) continue;
    line = line.substr(a, line.find_last_not_of(" \t\r") - a + 1);
    for (std::size_t p = line.find("\"/dev/stdin\""); p != std::string::npos; p = line.find("\"/dev/stdin\""))
      line.replace(p, 12, "\"" + script_name + "\"");
    out += (out.empty() ? "" : "; ") + line;
    ++n;
  }
  return out;
}

void write_file(const fs::path& path, const std::string& content) {
  try {
    atomic_write(path.string(), content, "figure file");
  } catch (const InputError& e) {
    throw std::runtime_error(e.what());
  }
}

}  // namespace

std::string gnuplot_script(const Figure& figure, const std::string& terminal) {
  return script(figure, terminal, figure.name + "." + terminal);
}

RenderedFigure render_figure(const Figure& figure, const std::string& report_dir) {
  validate(figure);
  const fs::path dir = fs::path(report_dir) / "figures";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir.string() + ": " + ec.message());

  RenderedFigure result;
  const std::string stem = figure.name;
  write_file(dir / (stem + ".csv"), figure.csv);
  result.files.push_back("figures/" + stem + ".csv");
  write_file(dir / (stem + ".gp"), gnuplot_script(figure, "svg"));
  result.files.push_back("figures/" + stem + ".gp");

  std::string warnings;
  for (const std::string ext : {"svg", "png"}) {
    const std::string final_name = stem + "." + ext;
    const std::string tmp_name = "." + final_name + ".tmp." + std::to_string(::getpid());
    // The script comes on stdin, read as the file /dev/stdin so gnuplot's messages carry line
    // numbers (from a plain pipe it says "line 0").
    const ChildOutcome run = run_child({"gnuplot", "/dev/stdin"}, dir.string(), script(figure, ext, tmp_name), kGnuplotSeconds);
    std::string problem;
    if (!run.started && run.start_errno == ENOENT) problem = "gnuplot not found (install gnuplot-nox)";
    else if (!run.started) problem = "gnuplot could not be run: " + run.start_error;
    else if (run.timed_out) problem = "gnuplot did not finish within " + std::to_string(static_cast<int>(kGnuplotSeconds)) + " s (killed)";
    else if (run.exit_code != 0) {
      problem = first_lines(run.err, stem + ".gp");
      if (problem.empty()) problem = "gnuplot failed (exit status " + std::to_string(run.exit_code) + ") without a message";
    } else if (fs::file_size(dir / tmp_name, ec) == 0 || ec) {
      problem = "gnuplot wrote no " + ext + " (" + first_lines(run.err, stem + ".gp") + ")";
    }
    if (!problem.empty()) {
      fs::remove(dir / tmp_name, ec);
      // No image from an earlier render may stand beside data it was not drawn from.
      fs::remove(dir / (stem + ".svg"), ec);
      fs::remove(dir / (stem + ".png"), ec);
      std::erase_if(result.files, [&](const std::string& f) { return !f.ends_with(".csv") && !f.ends_with(".gp"); });
      result.problem = problem;
      result.rendered = false;
      return result;
    }
    fs::rename(dir / tmp_name, dir / final_name, ec);
    if (ec) {
      fs::remove(dir / tmp_name, ec);
      throw std::runtime_error("cannot rename the rendered " + final_name + " in " + dir.string());
    }
    result.files.push_back("figures/" + final_name);
    // One copy of the warnings: both terminals read the same data and print the same ones.
    if (warnings.empty()) warnings = first_lines(run.err, stem + ".gp");
  }
  result.rendered = true;
  for (const std::string prefix : {"Warning: ", "warning: "})
    if (warnings.rfind(prefix, 0) == 0) warnings = warnings.substr(prefix.size());
  if (!warnings.empty()) result.problem = "gnuplot warning: " + warnings;
  return result;
}

}  // namespace ropecheck::report
