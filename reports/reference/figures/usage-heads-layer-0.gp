# usage-heads-layer-0: Query usage per head, layer 0 (Fig. 4)
# Written by `ropecheck report`; run `gnuplot usage-heads-layer-0.gp` in this directory to redraw usage-heads-layer-0.svg from usage-heads-layer-0.csv.
# For the PNG: replace the `set terminal` line below by `set terminal pngcairo size 900,560 enhanced font 'Helvetica,12' background rgb 'white'` and the output name by 'usage-heads-layer-0.png'.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'usage-heads-layer-0.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'Query usage per head, layer 0 (Fig. 4)' noenhanced
set xlabel 'pair (fastest first)' noenhanced
set ylabel 'head' noenhanced
unset logscale x
unset logscale y
set grid
set view map
set palette defined (0 '#ffffff', 1 '#fdd49e', 2 '#fc8d59', 3 '#b30000')
set cblabel 'mean query chunk norm'
set xrange [-0.5:15.5]
set yrange [-0.5:3.5]
set ytics 1
plot 'usage-heads-layer-0.csv' using 1:2:3 with image notitle
unset output
