# usage-attention-diagonal: Attention of layer 8 head 0, a diagonal head (Fig. 5)
# Written by `ropecheck report`; run `gnuplot usage-attention-diagonal.gp` in this directory to redraw usage-attention-diagonal.svg from usage-attention-diagonal.csv.
# For the PNG: replace the `set terminal` line below by `set terminal pngcairo size 900,560 enhanced font 'Helvetica,12' background rgb 'white'` and the output name by 'usage-attention-diagonal.png'.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'usage-attention-diagonal.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'Attention of layer 8 head 0, a diagonal head (Fig. 5)' noenhanced
set xlabel 'key token' noenhanced
set ylabel 'query token' noenhanced
unset logscale x
unset logscale y
set grid
set view map
set palette defined (0 '#ffffff', 1 '#fdd49e', 2 '#fc8d59', 3 '#b30000')
set cblabel 'attention (log scale)'
set xrange [-0.5:255.5]
set yrange [-0.5:255.5]
set xrange [-0.5:1020.5]
set yrange [1020.5:-0.5]
unset ytics
set ytics
set logscale cb
set cbrange [1e-5:1]
set format cb '%.0e'
plot 'usage-attention-diagonal.csv' using 1:2:3 with image notitle
unset output
