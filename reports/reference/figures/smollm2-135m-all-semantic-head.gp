# smollm2-135m-all-semantic-head: smollm2-135m layer 18 head 7: usage per pair of its strongest content match
# Written by ropecheck.lm; run `gnuplot smollm2-135m-all-semantic-head.gp` in this directory to redraw smollm2-135m-all-semantic-head.svg.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'smollm2-135m-all-semantic-head.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'smollm2-135m layer 18 head 7: usage per pair of its strongest content match' noenhanced
set xlabel 'pair (fastest first)' noenhanced
set ylabel 'mean chunk norm' noenhanced
set grid
set key top left
plot 'smollm2-135m-all-semantic-head.csv' using 1:2 with linespoints title 'query', 'smollm2-135m-all-semantic-head.csv' using 1:3 with linespoints title 'key'
unset output
