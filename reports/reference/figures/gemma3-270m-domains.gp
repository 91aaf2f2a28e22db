# gemma3-270m-domains: gemma3-270m sliding_attention: q + k norm share per pair, mean over layers, per domain
# Written by ropecheck.lm; run `gnuplot gemma3-270m-domains.gp` in this directory to redraw gemma3-270m-domains.svg.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'gemma3-270m-domains.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'gemma3-270m sliding_attention: q + k norm share per pair, mean over layers, per domain' noenhanced
set xlabel 'pair (fastest first)' noenhanced
set ylabel 'share of q + k norm' noenhanced
set grid
set key top left
plot 'gemma3-270m-domains.csv' using 1:2 with linespoints title 'english', 'gemma3-270m-domains.csv' using 1:3 with linespoints title 'python', 'gemma3-270m-domains.csv' using 1:4 with linespoints title 'arithmetic', 'gemma3-270m-domains.csv' using 1:5 with linespoints title 'italian'
unset output
