# comparison-rotation: each pair’s q + k norm against its rotation over the layer type’s span
# Written by ropecheck.lm; run `gnuplot comparison-rotation.gp` in this directory to redraw comparison-rotation.svg.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'comparison-rotation.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'each pair’s q + k norm against its rotation over the layer type’s span' noenhanced
set xlabel 'rotation over the span (rad, log scale; dashed: Gemma 7B’s semantic channel in the paper)' noenhanced
set ylabel 'q + k norm per pair over an even spread (1: even; mean over layers)' noenhanced
set grid
set logscale x
set arrow from 1.68225, graph 0 to 1.68225, graph 1 nohead dt 2 lc rgb 'black'
set key top left
plot 'comparison-rotation.csv' using 2:3 with lines lw 2 title 'gemma3-270m sliding attention', 'comparison-rotation.csv' using 4:5 with lines lw 2 title 'gemma3-270m full attention'
unset output
