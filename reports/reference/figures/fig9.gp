# fig9: Figure 9: one Gaussian query and key per draw, mean activation against distance
# Written by `ropecheck report`; run `gnuplot fig9.gp` in this directory to redraw fig9.svg from fig9.csv.
# For the PNG: replace the `set terminal` line below by `set terminal pngcairo size 900,560 enhanced font 'Helvetica,12' background rgb 'white'` and the output name by 'fig9.png'.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'fig9.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'Figure 9: one Gaussian query and key per draw, mean activation against distance' noenhanced
set xlabel 'relative distance r (tokens)' noenhanced
set ylabel 'mean activation q^T R^r k / d' noenhanced
unset logscale x
unset logscale y
set grid
set style fill transparent solid 0.3 noborder
plot 'fig9.csv' using 'r':'ci_lo':'ci_hi' with filledcurves lc rgb '#88aadd' title '99.9% interval', 'fig9.csv' using 'r':'mean' with lines lc rgb '#1f3f8f' title 'mean', 0 with lines dt 2 lc rgb 'black' notitle
unset output
