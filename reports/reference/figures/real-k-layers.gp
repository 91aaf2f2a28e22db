# real-k-layers: SmolLM2-135M: mean norm of keys per layer and pair (Fig. 3, 10b)
# Written by examples/real_model/section.py; run `gnuplot real-k-layers.gp` in this directory to redraw real-k-layers.svg.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'real-k-layers.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'SmolLM2-135M: mean norm of keys per layer and pair (Fig. 3, 10b)' noenhanced
set xlabel 'pair (fastest first)' noenhanced
set ylabel 'layer' noenhanced
set grid
set view map
set palette defined (0 '#ffffff', 1 '#fdd49e', 2 '#fc8d59', 3 '#b30000')
set cblabel 'mean chunk norm'
set xrange [-0.5:31.5]
set yrange [-0.5:29.5]
plot 'real-k-layers.csv' using 1:2:3 with image notitle
unset output
