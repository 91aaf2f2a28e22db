# real-domains: SmolLM2-135M: query usage per pair, mean over layers and heads, per domain (Fig. 19)
# Written by examples/real_model/section.py; run `gnuplot real-domains.gp` in this directory to redraw real-domains.svg.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'real-domains.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'SmolLM2-135M: query usage per pair, mean over layers and heads, per domain (Fig. 19)' noenhanced
set xlabel 'pair (fastest first)' noenhanced
set ylabel 'mean chunk norm' noenhanced
set grid
set key top left
plot 'real-domains.csv' using 1:2 with linespoints title 'english', 'real-domains.csv' using 1:3 with linespoints title 'python', 'real-domains.csv' using 1:4 with linespoints title 'arithmetic', 'real-domains.csv' using 1:5 with linespoints title 'italian'
unset output
