# smollm2-135m-all-queries: smollm2-135m all: mean norm of queries per layer and pair
# Written by ropecheck.lm; run `gnuplot smollm2-135m-all-queries.gp` in this directory to redraw smollm2-135m-all-queries.svg.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'smollm2-135m-all-queries.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'smollm2-135m all: mean norm of queries per layer and pair' noenhanced
set xlabel 'pair (fastest first)' noenhanced
set ylabel 'layer' noenhanced
set grid
set view map
set palette defined (0 '#ffffff', 1 '#fdd49e', 2 '#fc8d59', 3 '#b30000')
set cblabel 'mean chunk norm'
set xrange [-0.5:31.5]
set yrange [-0.5:29.5]
plot 'smollm2-135m-all-queries.csv' using 1:2:3 with image notitle
unset output
