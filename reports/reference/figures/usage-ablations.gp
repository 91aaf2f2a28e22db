# usage-ablations: What each head loses: slow quarter position-free vs fast quarter removed
# Written by `ropecheck report`; run `gnuplot usage-ablations.gp` in this directory to redraw usage-ablations.svg from usage-ablations.csv.
# For the PNG: replace the `set terminal` line below by `set terminal pngcairo size 900,560 enhanced font 'Helvetica,12' background rgb 'white'` and the output name by 'usage-ablations.png'.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'usage-ablations.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'What each head loses: slow quarter position-free vs fast quarter removed' noenhanced
set xlabel 'head (layer, head)' noenhanced
set ylabel 'mean TV distance' noenhanced
unset logscale x
unset logscale y
set grid
set style fill solid 0.6 noborder
set boxwidth 0.4
set xtics rotate by 90 right font ',8'
set bmargin 7
set yrange [0:1]
plot 'usage-ablations.csv' using ($1-0.2):2 with boxes title 'slow quarter position-free (p-RoPE 0.75)', 'usage-ablations.csv' using ($1+0.2):3:xtic(4) with boxes title 'fast quarter removed'
unset output
