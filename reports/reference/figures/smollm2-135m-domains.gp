# smollm2-135m-domains: smollm2-135m all: q + k norm share per pair, mean over layers, per domain
# Written by ropecheck.lm; run `gnuplot smollm2-135m-domains.gp` in this directory to redraw smollm2-135m-domains.svg.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'smollm2-135m-domains.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'smollm2-135m all: q + k norm share per pair, mean over layers, per domain' noenhanced
set xlabel 'pair (fastest first)' noenhanced
set ylabel 'share of q + k norm' noenhanced
set grid
set key top left
plot 'smollm2-135m-domains.csv' using 1:2 with linespoints title 'english', 'smollm2-135m-domains.csv' using 1:3 with linespoints title 'python', 'smollm2-135m-domains.csv' using 1:4 with linespoints title 'arithmetic', 'smollm2-135m-domains.csv' using 1:5 with linespoints title 'italian'
unset output
