# spectrum-gemma-7b: gemma-7b: full rotations of each pair over its 8192-token context
# Written by `ropecheck report`; run `gnuplot spectrum-gemma-7b.gp` in this directory to redraw spectrum-gemma-7b.svg from spectrum-gemma-7b.csv.
# For the PNG: replace the `set terminal` line below by `set terminal pngcairo size 900,560 enhanced font 'Helvetica,12' background rgb 'white'` and the output name by 'spectrum-gemma-7b.png'.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'spectrum-gemma-7b.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'gemma-7b: full rotations of each pair over its 8192-token context' noenhanced
set xlabel 'pair k (1 = fastest)' noenhanced
set ylabel 'rotations over the context, g_k C / 2pi (turns)' noenhanced
unset logscale x
set logscale y
set grid
set object 1 rect from first 32.5, graph 0 to first 96.5, graph 1 behind fillcolor rgb '#dbe9f6' fillstyle solid 1.0 noborder
set object 2 rect from first 96.5, graph 0 to first 128.5, graph 1 behind fillcolor rgb '#9ecae1' fillstyle solid 1.0 noborder
set xrange [0.5:128.5]
set key top right opaque
plot 'spectrum-gemma-7b.csv' using 'pair':'rotations' with linespoints pointtype 7 pointsize 0.4 linecolor rgb '#08519c' title 'g_k C / 2pi', 1 with lines dashtype 2 linecolor rgb 'black' title 'one rotation', keyentry with boxes fillstyle solid 1.0 fillcolor rgb '#dbe9f6' title 'removed by p-RoPE 0.25 only', keyentry with boxes fillstyle solid 1.0 fillcolor rgb '#9ecae1' title 'removed by p-RoPE 0.25 and 0.75'
unset output
