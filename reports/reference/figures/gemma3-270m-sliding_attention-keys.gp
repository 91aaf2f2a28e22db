# gemma3-270m-sliding_attention-keys: gemma3-270m sliding_attention: mean norm of keys per layer and pair
# Written by ropecheck.lm; run `gnuplot gemma3-270m-sliding_attention-keys.gp` in this directory to redraw gemma3-270m-sliding_attention-keys.svg.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'gemma3-270m-sliding_attention-keys.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'gemma3-270m sliding_attention: mean norm of keys per layer and pair' noenhanced
set xlabel 'pair (fastest first)' noenhanced
set ylabel 'layer' noenhanced
set grid
set view map
set palette defined (0 '#ffffff', 1 '#fdd49e', 2 '#fc8d59', 3 '#b30000')
set cblabel 'mean chunk norm'
set xrange [-0.5:127.5]
set yrange [-0.5:16.5]
plot 'gemma3-270m-sliding_attention-keys.csv' using 1:2:3 with image notitle
unset output
