# fig2a: Figure 2(a): all-ones query and key, activation against distance
# Written by `ropecheck report`; run `gnuplot fig2a.gp` in this directory to redraw fig2a.svg from fig2a.csv.
# For the PNG: replace the `set terminal` line below by `set terminal pngcairo size 900,560 enhanced font 'Helvetica,12' background rgb 'white'` and the output name by 'fig2a.png'.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'fig2a.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'Figure 2(a): all-ones query and key, activation against distance' noenhanced
set xlabel 'relative distance r (tokens)' noenhanced
set ylabel 'activation a(r)' noenhanced
unset logscale x
unset logscale y
set grid
plot 'fig2a.csv' using 'r':'d256_mean' with lines lw 1.5 title 'd = 256', 'fig2a.csv' using 'r':'d128_mean' with lines lw 1.5 title 'd = 128'
unset output
