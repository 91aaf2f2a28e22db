# gemma3-270m-full_attention-kv-heads-last: gemma3-270m layer 17: key usage per kv head and pair (Fig. 4; the queries’ scale)
# Written by ropecheck.lm; run `gnuplot gemma3-270m-full_attention-kv-heads-last.gp` in this directory to redraw gemma3-270m-full_attention-kv-heads-last.svg.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'gemma3-270m-full_attention-kv-heads-last.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'gemma3-270m layer 17: key usage per kv head and pair (Fig. 4; the queries’ scale)' noenhanced
set xlabel 'pair (fastest first)' noenhanced
set ylabel 'kv head' noenhanced
set grid
set view map
set palette defined (0 '#ffffff', 1 '#fdd49e', 2 '#fc8d59', 3 '#b30000')
set cblabel 'mean chunk norm'
set xrange [-0.5:127.5]
set yrange [-0.5:0.5]
set cbrange [0:18.5029]
set xrange [-0.5:127.5]
set x2range [-0.5:127.5]
set xtics nomirror
set x2tics out nomirror font ',8' ('1' 0, '0.1' 21, '0.011' 42, '0.0011' 63, '0.00012' 84, '1.2e-05' 105, '1.2e-06' 126)
set x2label 'frequency, rad/token' font ',9'
set arrow from 79.302, graph 0 to 79.302, graph 1 nohead linewidth 2 linecolor rgb '#1f78b4' front
set label 'wavelength = span 32768' at 79.302, graph 0.9 left offset 0.5,0 front textcolor rgb '#1f78b4' font ',8'
set arrow from 31.5, graph 0 to 31.5, graph 1 nohead dashtype 2 linecolor rgb '#555555' front
set arrow from 95.5, graph 0 to 95.5, graph 1 nohead dashtype 2 linecolor rgb '#555555' front
set label 'fast' at 15.5, graph 0.96 center front textcolor rgb '#555555'
set label 'middle' at 63.5, graph 0.96 center front textcolor rgb '#555555'
set label 'slow' at 111.5, graph 0.96 center front textcolor rgb '#555555'
set ytics font ',8' ('KV0 (H0,1,2,3)' 0)
set lmargin 18
plot 'gemma3-270m-full_attention-kv-heads-last.csv' using 1:2:3 with image notitle
unset output
