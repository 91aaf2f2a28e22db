# kernel-error-vs-position: RoPE output error against position: this kernel and the naive float32/float64 angle strategies
# Written by `ropecheck report`; run `gnuplot kernel-error-vs-position.gp` in this directory to redraw kernel-error-vs-position.svg from kernel-error-vs-position.csv.
# For the PNG: replace the `set terminal` line below by `set terminal pngcairo size 900,560 enhanced font 'Helvetica,12' background rgb 'white'` and the output name by 'kernel-error-vs-position.png'.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'kernel-error-vs-position.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'RoPE output error against position: this kernel and the naive float32/float64 angle strategies' noenhanced
set xlabel 'position p (upper end of the decade, tokens)' noenhanced
set ylabel 'max |output - exact| / ||(x_a, x_b)|| (unit pair norm)' noenhanced
set logscale x
set logscale y
set grid
set key left top
set format x '10^{%L}'
set format y '10^{%L}'
set arrow from graph 0, first 2**-24 to graph 1, first 2**-24 nohead dashtype 2 linecolor rgb 'gray40'
set label 'f32 half ulp (2^{-24})' at graph 0.62, first 2**-24*2.5 textcolor rgb 'gray40'
set arrow from graph 0, first 2**-8 to graph 1, first 2**-8 nohead dashtype 2 linecolor rgb 'gray40'
set label 'bf16 half ulp (2^{-8})' at graph 0.62, first 2**-8*2.5 textcolor rgb 'gray40'
set arrow from graph 0, first 2**-11 to graph 1, first 2**-11 nohead dashtype 2 linecolor rgb 'gray40'
set label 'f16 half ulp (2^{-11})' at graph 0.62, first 2**-11*2.5 textcolor rgb 'gray40'
plot 'kernel-error-vs-position.csv' using 'position_upper':'kernel_f32' with linespoints linewidth 2 pointtype 7 title 'kernel, f32', 'kernel-error-vs-position.csv' using 'position_upper':'f32_angle_f32' with linespoints pointtype 5 title 'naive f32 angle, f32', 'kernel-error-vs-position.csv' using 'position_upper':'f64_angle_f32' with linespoints pointtype 9 title 'naive f64 angle, f32', 'kernel-error-vs-position.csv' using 'position_upper':'kernel_bf16' with linespoints linewidth 2 dashtype 2 pointtype 6 title 'kernel, bf16', 'kernel-error-vs-position.csv' using 'position_upper':'f32_angle_bf16' with linespoints dashtype 2 pointtype 4 title 'naive f32 angle, bf16', 'kernel-error-vs-position.csv' using 'position_upper':'f64_angle_bf16' with linespoints dashtype 2 pointtype 10 title 'naive f64 angle, bf16', 'kernel-error-vs-position.csv' using 'position_upper':'kernel_f16' with linespoints linewidth 2 dashtype 3 pointtype 5 title 'kernel, f16', 'kernel-error-vs-position.csv' using 'position_upper':'f32_angle_f16' with linespoints dashtype 3 pointtype 3 title 'naive f32 angle, f16', 'kernel-error-vs-position.csv' using 'position_upper':'f64_angle_f16' with linespoints dashtype 3 pointtype 11 title 'naive f64 angle, f16'
unset output
