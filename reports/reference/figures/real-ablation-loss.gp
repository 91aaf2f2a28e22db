# real-ablation-loss: SmolLM2-135M: next-token loss with a band ablated, mean and 95% t-interval over sequences
# Written by examples/real_model/section.py; run `gnuplot real-ablation-loss.gp` in this directory to redraw real-ablation-loss.svg.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'real-ablation-loss.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'SmolLM2-135M: next-token loss with a band ablated, mean and 95% t-interval over sequences' noenhanced
set xlabel 'tokens' noenhanced
set ylabel 'loss (nats/token)' noenhanced
set grid
set logscale x 2
set offsets graph 0.04, graph 0.04, 0, 0
set key top left
plot 'real-ablation-loss.csv' using 1:2:3 with yerrorlines title 'model as trained', 'real-ablation-loss.csv' using 1:4:5 with yerrorlines title 'fast quarter position-free', 'real-ablation-loss.csv' using 1:6:7 with yerrorlines title 'fast quarter removed', 'real-ablation-loss.csv' using 1:8:9 with yerrorlines title 'middle half position-free', 'real-ablation-loss.csv' using 1:10:11 with yerrorlines title 'middle half removed', 'real-ablation-loss.csv' using 1:12:13 with yerrorlines title 'slow quarter position-free', 'real-ablation-loss.csv' using 1:14:15 with yerrorlines title 'slow quarter removed'
unset output
