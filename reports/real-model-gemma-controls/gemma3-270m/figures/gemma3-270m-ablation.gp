# gemma3-270m-ablation: gemma3-270m: paired loss difference, ablated minus as trained (95% t-intervals)
# Written by ropecheck.lm; run `gnuplot gemma3-270m-ablation.gp` in this directory to redraw gemma3-270m-ablation.svg.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'gemma3-270m-ablation.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'gemma3-270m: paired loss difference, ablated minus as trained (95% t-intervals)' noenhanced
set xlabel 'tokens' noenhanced
set ylabel 'loss difference (nats/token)' noenhanced
set grid
set logscale x 2
set offsets graph 0.04, graph 0.04, 0, 0
set key top left
plot 'gemma3-270m-ablation.csv' using 1:2:3 with yerrorlines title 'fast quarter position-free', 'gemma3-270m-ablation.csv' using 1:4:5 with yerrorlines title 'fast quarter removed', 'gemma3-270m-ablation.csv' using 1:6:7 with yerrorlines title 'middle half position-free', 'gemma3-270m-ablation.csv' using 1:8:9 with yerrorlines title 'middle half removed', 'gemma3-270m-ablation.csv' using 1:10:11 with yerrorlines title 'slow quarter position-free', 'gemma3-270m-ablation.csv' using 1:12:13 with yerrorlines title 'slow quarter removed'
unset output
