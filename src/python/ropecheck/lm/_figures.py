"""Figures of the model sections, drawn with gnuplot (Debian's gnuplot-nox, as the report's own):
every figure is figures/<name>.csv (the data), .gp (the script: `gnuplot <name>.gp` inside figures/
redraws it), .svg and .png."""

from __future__ import annotations

import os
import subprocess
from typing import Any, Sequence

HEAT = ("set view map\nset palette defined (0 '#ffffff', 1 '#fdd49e', 2 '#fc8d59', 3 '#b30000')\n"
        "set cblabel 'mean chunk norm'\n")


def figure(fig_dir: str, name: str, title: str, header: str, rows: Sequence[Sequence[Any]], xlabel: str, ylabel: str,
           plot: str, settings: str = "") -> None:
    """Writes name.csv from `rows`, name.gp, and draws name.svg and name.png (`DATA` in `plot` is the csv)."""
    with open(os.path.join(fig_dir, name + ".csv"), "w") as f:
        f.write(header + "\n")
        for r in rows:
            f.write(",".join(f"{x:.9g}" if isinstance(x, float) else str(x) for x in r) + "\n")

    title, xlabel, ylabel = (x.replace("'", "\u2019") for x in (title, xlabel, ylabel))  # gnuplot's strings are in '...'

    def script(terminal: str, ext: str) -> str:
        return "\n".join([
            f"# {name}: {title}",
            f"# Written by ropecheck.lm; run `gnuplot {name}.gp` in this directory to redraw {name}.svg.",
            "reset session", terminal, f"set output '{name}.{ext}'", "set datafile separator ','",
            "set datafile columnheaders", "set key noautotitle", f"set title '{title}' noenhanced",
            f"set xlabel '{xlabel}' noenhanced", f"set ylabel '{ylabel}' noenhanced", "set grid", settings,
            "plot " + plot.replace("DATA", f"'{name}.csv'"), "unset output", ""])
    with open(os.path.join(fig_dir, name + ".gp"), "w") as f:
        f.write(script("set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'", "svg"))
    png = script("set terminal pngcairo size 900,560 enhanced font 'Helvetica,12' background rgb 'white'", "png")
    for text in (None, png):
        subprocess.run(["gnuplot"] + ([f"{name}.gp"] if text is None else ["-"]), input=text, text=True, cwd=fig_dir,
                       check=True, capture_output=True, timeout=60)


def heat(fig_dir: str, name: str, title: str, matrix: Sequence[Sequence[float]], ylabel: str, rows: Sequence[int] | None = None,
         settings: str = "", cb_max: float | None = None) -> None:
    """A heat map of matrix[row][pair] (rows labelled by `rows`, default 0..n-1); the colour scale
    [0, cb_max] when given (figures read side by side share it); `settings` after the defaults."""
    labels = list(rows) if rows is not None else list(range(len(matrix)))
    data = [[p, y, float(v)] for y, line in zip(labels, matrix) for p, v in enumerate(line)]
    nx = len(matrix[0])
    figure(fig_dir, name, title, "pair,row,norm", data, "pair (fastest first)", ylabel, "DATA using 1:2:3 with image notitle",
           HEAT + f"set xrange [-0.5:{nx - 0.5}]\nset yrange [{min(labels) - 0.5}:{max(labels) + 0.5}]"
           + (f"\nset cbrange [0:{cb_max:.6g}]" if cb_max is not None else "") + ("\n" + settings if settings else ""))
