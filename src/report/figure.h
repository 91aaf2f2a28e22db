// File: figure.h
// Renders a section.h Figure with gnuplot (Debian's gnuplot-nox): writes figures/<name>.csv (the
// data), figures/<name>.gp (the full script: reproduce with `gnuplot <name>.gp` inside figures/),
// then figures/<name>.svg and figures/<name>.png.
//
// The script is a pure function of the Figure (fixed size, font, colours, no timestamps), so the
// SVG/PNG bytes depend only on the data and the gnuplot version. gnuplot runs as a child process
// (no shell) with a time limit; its stderr is kept for the message when it fails.
//
// Text rule: title, xlabel and ylabel are plain text, drawn with gnuplot's `noenhanced`, so every
// character shows as written ("g_k", "x^2", "{a}", "@", "&", "~" are not markup; UTF-8 such as
// "θ" or "≤" is fine); a single quote is doubled for gnuplot's single-quoted string and a newline
// becomes a space. Where a subscript or superscript is intended, set that label again in `settings`
// (which comes after them), e.g. "set xlabel 'g_k (rad)' enhanced". The `plot` text (key titles
// included) and `settings` are passed verbatim: their author writes them as gnuplot reads them.
// Every whole word DATA in `plot` becomes '<name>.csv'. The CSV's first line is the header
// (`set datafile columnheaders`), so columns can be named ('r':'mean') or numbered (1:2).
#pragma once

#include <string>
#include <vector>

#include "report/section.h"

namespace ropecheck::report {

struct RenderedFigure {
  std::vector<std::string> files;  // relative paths written ("figures/x.csv", ...), in that order
  bool rendered = false;           // svg and png written
  std::string problem;             // why not rendered: "gnuplot not found (install gnuplot-nox)", its stderr, ...
                                   // when rendered: gnuplot's warnings ("gnuplot warning: ..."), else empty
};

// Writes the figure under `report_dir`/figures/ (created if missing). Never throws for a gnuplot
// failure (it is reported in `problem`, the CSV and script stay; no half or stale .svg/.png is
// left: the images are written under temporary names and renamed); throws std::runtime_error when
// a file cannot be written, std::invalid_argument for a malformed Figure (name not [a-z0-9.-]+,
// CSV without a header line, empty plot).
RenderedFigure render_figure(const Figure& figure, const std::string& report_dir);

// Returns: the gnuplot script render_figure writes for `figure`, for terminal "svg" or "png",
// reading DATA from "<name>.csv" and writing "<name>.<ext>" (paths relative to figures/).
std::string gnuplot_script(const Figure& figure, const std::string& terminal);

}  // namespace ropecheck::report
