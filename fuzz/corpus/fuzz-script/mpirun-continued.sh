#!/bin/sh
set -e
cd $HOME/run; A=1 B="x y" exec time mpirun -np 16 --map-by core -mca btl self,vader \
  ./cg --size=big input.deck | tee log
