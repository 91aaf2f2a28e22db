# smollm2-135m-ablation: smollm2-135m: paired loss difference, ablated minus as trained (95% t-intervals)
# Written by ropecheck.lm; run `gnuplot smollm2-135m-ablation.gp` in this directory to redraw smollm2-135m-ablation.svg.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'smollm2-135m-ablation.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'smollm2-135m: paired loss difference, ablated minus as trained (95% t-intervals)' noenhanced
set xlabel 'tokens' noenhanced
set ylabel 'loss difference (nats/token)' noenhanced
set grid
set logscale x 2
set offsets graph 0.04, graph 0.04, 0, 0
set key top left
plot 'smollm2-135m-ablation.csv' using 1:2:3 with yerrorlines title 'slow quarter position-free'
unset output
