# usage-k-layers: Mean norm of keys per layer and pair (Fig. 3)
# Written by `ropecheck report`; run `gnuplot usage-k-layers.gp` in this directory to redraw usage-k-layers.svg from usage-k-layers.csv.
# For the PNG: replace the `set terminal` line below by `set terminal pngcairo size 900,560 enhanced font 'Helvetica,12' background rgb 'white'` and the output name by 'usage-k-layers.png'.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'usage-k-layers.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'Mean norm of keys per layer and pair (Fig. 3)' noenhanced
set xlabel 'pair (fastest first)' noenhanced
set ylabel 'layer' noenhanced
unset logscale x
unset logscale y
set grid
set view map
set palette defined (0 '#ffffff', 1 '#fdd49e', 2 '#fc8d59', 3 '#b30000')
set cblabel 'mean chunk norm'
set xrange [-0.5:15.5]
set yrange [-0.5:1.5]
set ytics 1
plot 'usage-k-layers.csv' using 1:2:3 with image notitle
unset output
