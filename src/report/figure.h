// File: figure.h
// Renders a section.h Figure with gnuplot (Debian's gnuplot-nox): writes figures/<name>.csv (the
// data), figures/<name>.gp (the full script: reproduce with `gnuplot <name>.gp` inside figures/),
// then figures/<name>.svg and figures/<name>.png.
//
// The script is a pure function of the Figure (fixed size, font, colours, no timestamps), so the
// SVG/PNG bytes depend only on the data and the gnuplot version. gnuplot runs as a child process
// (no shell) with a time limit; its stderr is kept for the message when it fails.
#pragma once

#include <string>
#include <vector>

#include "report/section.h"

namespace ropecheck::report {

struct RenderedFigure {
  std::vector<std::string> files;  // relative paths written ("figures/x.csv", ...), in that order
  bool rendered = false;           // svg and png written
  std::string problem;             // why not rendered: "gnuplot not found (install gnuplot-nox)", its stderr, ...
};

// Writes the figure under `report_dir`/figures/ (created if missing). Never throws for a gnuplot
// failure (it is reported in `problem`, the CSV and script stay); throws std::runtime_error when a
// file cannot be written.
RenderedFigure render_figure(const Figure& figure, const std::string& report_dir);

// Returns: the gnuplot script render_figure writes for `figure`, for terminal "svg" or "png",
// reading DATA from "<name>.csv" and writing "<name>.<ext>" (paths relative to figures/).
std::string gnuplot_script(const Figure& figure, const std::string& terminal);

}  // namespace ropecheck::report
