# fig8-gaussian: Figure 8 (Random RoPE), Gaussian vectors: mean activation against index distance
# Written by `ropecheck report`; run `gnuplot fig8-gaussian.gp` in this directory to redraw fig8-gaussian.svg from fig8-gaussian.csv.
# For the PNG: replace the `set terminal` line below by `set terminal pngcairo size 900,560 enhanced font 'Helvetica,12' background rgb 'white'` and the output name by 'fig8-gaussian.png'.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'fig8-gaussian.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'Figure 8 (Random RoPE), Gaussian vectors: mean activation against index distance' noenhanced
set xlabel 'index distance r (tokens apart in the sequence)' noenhanced
set ylabel 'mean activation' noenhanced
unset logscale x
unset logscale y
set grid
plot 'fig8-gaussian.csv' using 'r':'L1000_mean' with lines lw 1.5 title 'L = 1000', 'fig8-gaussian.csv' using 'r':'L2000_mean' with lines lw 1.5 title 'L = 2000', 'fig8-gaussian.csv' using 'r':'L4000_mean' with lines lw 1.5 title 'L = 4000', 'fig8-gaussian.csv' using 'r':'L8000_mean' with lines lw 1.5 title 'L = 8000'
unset output
