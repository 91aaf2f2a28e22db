# usage-compare: Per-pair usage: 1x (left) and 4x (right), r = 0.996
# Written by `ropecheck report`; run `gnuplot usage-compare.gp` in this directory to redraw usage-compare.svg from usage-compare.csv.
# For the PNG: replace the `set terminal` line below by `set terminal pngcairo size 900,560 enhanced font 'Helvetica,12' background rgb 'white'` and the output name by 'usage-compare.png'.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'usage-compare.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'Per-pair usage: 1x (left) and 4x (right), r = 0.996' noenhanced
set xlabel 'pair (left: 1x; right: 4x)' noenhanced
set ylabel 'layer' noenhanced
unset logscale x
unset logscale y
set grid
set view map
set palette defined (0 '#ffffff', 1 '#fdd49e', 2 '#fc8d59', 3 '#b30000')
set cblabel 'share of the layer norm'
set xrange [-0.5:32.5]
set yrange [-0.5:1.5]
set ytics 1
plot 'usage-compare.csv' using 1:2:3 with image notitle
unset output
