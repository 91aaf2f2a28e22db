# channels-break-vs-span: The paper's channel over 8 lowest pairs: shortest breaking context vs span
# Written by `ropecheck report`; run `gnuplot channels-break-vs-span.gp` in this directory to redraw channels-break-vs-span.svg from channels-break-vs-span.csv.
# For the PNG: replace the `set terminal` line below by `set terminal pngcairo size 900,560 enhanced font 'Helvetica,12' background rgb 'white'` and the output name by 'channels-break-vs-span.png'.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'channels-break-vs-span.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'The paper''s channel over 8 lowest pairs: shortest breaking context vs span' noenhanced
set xlabel 'span: the layer type''s context or sliding window (tokens)' noenhanced
set ylabel 'certified shortest breaking context (tokens)' noenhanced
set logscale x
set logscale y
set grid
set key top left
set xrange [64:1e6]
set yrange [500:4e9]
plot 'channels-break-vs-span.csv' using 'span':(strcol('status') eq 'break' ? column('break') : NaN) with points pointtype 7 pointsize 1 linecolor rgb '#a50f15' title 'certified shortest break', 'channels-break-vs-span.csv' using 'span':(strcol('status') eq 'none' ? column('break') : NaN) with points pointtype 9 pointsize 1.3 linecolor rgb '#08519c' title 'no break up to the searched length (certified)', x with lines dashtype 2 linecolor rgb '#555555' title 'breaks at its own span (below: inside)'
unset output
