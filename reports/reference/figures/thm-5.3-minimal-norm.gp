# thm-5.3-minimal-norm: gemma-7b: certified minimal ||psi||^2 for alpha > 0.9 at every position i <= N
# Written by `ropecheck report`; run `gnuplot thm-5.3-minimal-norm.gp` in this directory to redraw thm-5.3-minimal-norm.svg from thm-5.3-minimal-norm.csv.
# For the PNG: replace the `set terminal` line below by `set terminal pngcairo size 900,560 enhanced font 'Helvetica,12' background rgb 'white'` and the output name by 'thm-5.3-minimal-norm.png'.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'thm-5.3-minimal-norm.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'gemma-7b: certified minimal ||psi||^2 for alpha > 0.9 at every position i <= N' noenhanced
set xlabel 'N (positions that must all attend to their target)' noenhanced
set ylabel 'minimal squared norm ||psi||^2 (dimensionless)' noenhanced
set logscale x
set logscale y
set grid
set key top left
set xrange [1.5:10922]
plot 'thm-5.3-minimal-norm.csv' using 'N':(strcol('head') eq 'diagonal' && column('K') == 16 && column('certified') == 1 ? column('s_hi') : NaN):(strcol('head') eq 'diagonal' && column('K') == 16 && column('certified') == 1 ? column('s_lo') : NaN):(strcol('head') eq 'diagonal' && column('K') == 16 && column('certified') == 1 ? column('s_hi') : NaN) with yerrorlines pointtype 7 pointsize 0.5 linecolor rgb '#08519c' title 'diagonal, K = 16 fastest', 'thm-5.3-minimal-norm.csv' using 'N':(strcol('head') eq 'diagonal' && column('K') == 128 && column('certified') == 1 ? column('s_hi') : NaN):(strcol('head') eq 'diagonal' && column('K') == 128 && column('certified') == 1 ? column('s_lo') : NaN):(strcol('head') eq 'diagonal' && column('K') == 128 && column('certified') == 1 ? column('s_hi') : NaN) with yerrorlines pointtype 7 pointsize 0.5 linecolor rgb '#6baed6' title 'diagonal, K = 128 (all pairs)', 'thm-5.3-minimal-norm.csv' using 'N':(strcol('head') eq 'previous-token' && column('K') == 16 && column('certified') == 1 ? column('s_hi') : NaN):(strcol('head') eq 'previous-token' && column('K') == 16 && column('certified') == 1 ? column('s_lo') : NaN):(strcol('head') eq 'previous-token' && column('K') == 16 && column('certified') == 1 ? column('s_hi') : NaN) with yerrorlines pointtype 7 pointsize 0.5 linecolor rgb '#a50f15' title 'previous-token, K = 16 fastest', 'thm-5.3-minimal-norm.csv' using 'N':(strcol('head') eq 'previous-token' && column('K') == 128 && column('certified') == 1 ? column('s_hi') : NaN):(strcol('head') eq 'previous-token' && column('K') == 128 && column('certified') == 1 ? column('s_lo') : NaN):(strcol('head') eq 'previous-token' && column('K') == 128 && column('certified') == 1 ? column('s_hi') : NaN) with yerrorlines pointtype 7 pointsize 0.5 linecolor rgb '#fb6a4a' title 'previous-token, K = 128 (all pairs)'
unset output
