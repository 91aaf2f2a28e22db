# gemma3-270m-sliding_attention-heads-first: gemma3-270m layer 0: query usage per head and pair (Fig. 4, 11)
# Written by ropecheck.lm; run `gnuplot gemma3-270m-sliding_attention-heads-first.gp` in this directory to redraw gemma3-270m-sliding_attention-heads-first.svg.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'gemma3-270m-sliding_attention-heads-first.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'gemma3-270m layer 0: query usage per head and pair (Fig. 4, 11)' noenhanced
set xlabel 'pair (fastest first)' noenhanced
set ylabel 'query head' noenhanced
set grid
set view map
set palette defined (0 '#ffffff', 1 '#fdd49e', 2 '#fc8d59', 3 '#b30000')
set cblabel 'mean chunk norm'
set xrange [-0.5:127.5]
set yrange [-0.5:3.5]
plot 'gemma3-270m-sliding_attention-heads-first.csv' using 1:2:3 with image notitle
unset output
