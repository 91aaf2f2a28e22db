# usage-attention-previous-token-pairs: Usage of layer 2 head 3 per pair (Fig. 6)
# Written by `ropecheck report`; run `gnuplot usage-attention-previous-token-pairs.gp` in this directory to redraw usage-attention-previous-token-pairs.svg from usage-attention-previous-token-pairs.csv.
# For the PNG: replace the `set terminal` line below by `set terminal pngcairo size 900,560 enhanced font 'Helvetica,12' background rgb 'white'` and the output name by 'usage-attention-previous-token-pairs.png'.
reset session
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output 'usage-attention-previous-token-pairs.svg'
set datafile separator ','
set datafile columnheaders
set key noautotitle
set title 'Usage of layer 2 head 3 per pair (Fig. 6)' noenhanced
set xlabel 'pair (fastest first)' noenhanced
set ylabel 'mean chunk norm' noenhanced
unset logscale x
unset logscale y
set grid
set style fill solid 0.6 noborder
set boxwidth 0.4
plot 'usage-attention-previous-token-pairs.csv' using ($1-0.2):2 with boxes title 'queries', 'usage-attention-previous-token-pairs.csv' using ($1+0.2):3 with boxes title 'keys'
unset output
