# roformer-bound: RoFormer long-term decay bound B(r) and the all-ones activation |a(r)|, d = 128, theta = 10^4
# Written by `ropecheck report`; run `gnuplot roformer-bound.gp` in this directory to redraw roformer-bound.svg from roformer-bound.csv.
# For the PNG: replace the `set terminal` line below by `set terminal pngcairo size 900,560 enhanced font 'Helvetica,12' background rgb 'white'` and the output name by 'roformer-bound.png'.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'roformer-bound.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'RoFormer long-term decay bound B(r) and the all-ones activation |a(r)|, d = 128, theta = 10^4' noenhanced
set xlabel 'relative distance r (tokens)' noenhanced
set ylabel 'activation / bound (normalised: a(0) = 1)' noenhanced
unset logscale x
set logscale y
set grid
set yrange [1e-4:100]
set xrange [0:4096]
set key top right
plot 'roformer-bound.csv' using 'r':'B' with lines linewidth 2 linecolor rgb '#08519c' title 'RoFormer bound B(r)', 'roformer-bound.csv' using 'r':'abs_a' with lines linecolor rgb '#a50f15' title '|a(r)|, q = k = all ones'
unset output
