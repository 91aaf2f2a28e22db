# gemma3-270m-full_attention-semantic-head: gemma3-270m layer 5 head 1: usage per pair of its strongest content match
# Written by ropecheck.lm; run `gnuplot gemma3-270m-full_attention-semantic-head.gp` in this directory to redraw gemma3-270m-full_attention-semantic-head.svg.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'gemma3-270m-full_attention-semantic-head.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'gemma3-270m layer 5 head 1: usage per pair of its strongest content match' noenhanced
set xlabel 'pair (fastest first)' noenhanced
set ylabel 'mean chunk norm' noenhanced
set grid
set key top left
plot 'gemma3-270m-full_attention-semantic-head.csv' using 1:2 with linespoints title 'query', 'gemma3-270m-full_attention-semantic-head.csv' using 1:3 with linespoints title 'key'
unset output
