# fig8-ones: Figure 8 (Random RoPE), constant vectors: mean activation against index distance
# Written by `ropecheck report`; run `gnuplot fig8-ones.gp` in this directory to redraw fig8-ones.svg from fig8-ones.csv.
# For the PNG: replace the `set terminal` line below by `set terminal pngcairo size 900,560 enhanced font 'Helvetica,12' background rgb 'white'` and the output name by 'fig8-ones.png'.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'fig8-ones.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'Figure 8 (Random RoPE), constant vectors: mean activation against index distance' noenhanced
set xlabel 'index distance r (tokens apart in the sequence)' noenhanced
set ylabel 'mean activation' noenhanced
unset logscale x
unset logscale y
set grid
plot 'fig8-ones.csv' using 'r':'L1000_mean' with lines lw 1.5 title 'L = 1000', 'fig8-ones.csv' using 'r':'L1000_expected' with lines dt 2 lc 1 notitle, 'fig8-ones.csv' using 'r':'L2000_mean' with lines lw 1.5 title 'L = 2000', 'fig8-ones.csv' using 'r':'L2000_expected' with lines dt 2 lc 2 notitle, 'fig8-ones.csv' using 'r':'L4000_mean' with lines lw 1.5 title 'L = 4000', 'fig8-ones.csv' using 'r':'L4000_expected' with lines dt 2 lc 3 notitle, 'fig8-ones.csv' using 'r':'L8000_mean' with lines lw 1.5 title 'L = 8000', 'fig8-ones.csv' using 'r':'L8000_expected' with lines dt 2 lc 4 notitle
unset output
