# gemma3-270m-ablation-1024: gemma3-270m, 1024 tokens, 8 sequences: ablated minus as trained (95% t; controls grey)
# Written by ropecheck.lm; run `gnuplot gemma3-270m-ablation-1024.gp` in this directory to redraw gemma3-270m-ablation-1024.svg.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'gemma3-270m-ablation-1024.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'gemma3-270m, 1024 tokens, 8 sequences: ablated minus as trained (95% t; controls grey)' noenhanced
set xlabel 'ablation' noenhanced
set ylabel 'paired loss difference (nats/token)' noenhanced
set grid
set boxwidth 0.7
set style fill solid 0.45
set xtics rotate by -30 noenhanced
set xzeroaxis lw 1.5
set offsets 0.5, 0.5, 0, 0
plot 'gemma3-270m-ablation-1024.csv' using 0:2:3:4:xtic(1) with boxerrorbars lc rgb variable
unset output
