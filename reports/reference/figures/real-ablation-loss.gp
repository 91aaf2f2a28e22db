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
plot 'real-ablation-loss.csv' using 1:2:3 with yerrorlines title 'model as trained', 'real-ablation-loss.csv' using 1:4:5 with yerrorlines title 'slow quarter position-free (p-RoPE 0.75)', 'real-ablation-loss.csv' using 1:6:7 with yerrorlines title 'fast quarter removed'
unset output
