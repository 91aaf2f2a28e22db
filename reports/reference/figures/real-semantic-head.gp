# real-semantic-head: SmolLM2-135M layer 18 head 7: usage per pair of its strongest content match (Fig. 7)
# Written by examples/real_model/section.py; run `gnuplot real-semantic-head.gp` in this directory to redraw real-semantic-head.svg.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'real-semantic-head.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'SmolLM2-135M layer 18 head 7: usage per pair of its strongest content match (Fig. 7)' noenhanced
set xlabel 'pair (fastest first)' noenhanced
set ylabel 'mean chunk norm' noenhanced
set grid
set key top left
plot 'real-semantic-head.csv' using 1:2 with linespoints title 'query', 'real-semantic-head.csv' using 1:3 with linespoints title 'key'
unset output
