# smollm2-135m-all-values: smollm2-135m all: mean norm of values per layer and pair (values: channel pairs as q and k, never rotated; their own scale)
# Written by ropecheck.lm; run `gnuplot smollm2-135m-all-values.gp` in this directory to redraw smollm2-135m-all-values.svg.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'smollm2-135m-all-values.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'smollm2-135m all: mean norm of values per layer and pair (values: channel pairs as q and k, never rotated; their own scale)' noenhanced
set xlabel 'pair (fastest first)' noenhanced
set ylabel 'layer' noenhanced
set grid
set view map
set palette defined (0 '#ffffff', 1 '#fdd49e', 2 '#fc8d59', 3 '#b30000')
set cblabel 'mean chunk norm'
set xrange [-0.5:31.5]
set yrange [-0.5:29.5]
set xrange [-0.5:31.5]
set x2range [-0.5:31.5]
set xtics nomirror
set x2tics out nomirror font ',8' ('1' 0, '0.17' 5, '0.027' 10, '0.0045' 15, '0.00075' 20, '0.00012' 25, '2.1e-05' 30)
set x2label 'frequency, rad/token' font ',9'
set arrow from 19.937, graph 0 to 19.937, graph 1 nohead linewidth 2 linecolor rgb '#1f78b4' front
set label 'wavelength = span 8192' at 19.937, graph 0.9 left offset 0.5,0 front textcolor rgb '#1f78b4' font ',8'
set arrow from 7.5, graph 0 to 7.5, graph 1 nohead dashtype 2 linecolor rgb '#555555' front
set arrow from 23.5, graph 0 to 23.5, graph 1 nohead dashtype 2 linecolor rgb '#555555' front
set label 'fast' at 3.5, graph 0.96 center front textcolor rgb '#555555'
set label 'middle' at 15.5, graph 0.96 center front textcolor rgb '#555555'
set label 'slow' at 27.5, graph 0.96 center front textcolor rgb '#555555'
plot 'smollm2-135m-all-values.csv' using 1:2:3 with image notitle
unset output
