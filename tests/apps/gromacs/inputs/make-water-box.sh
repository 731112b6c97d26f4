#!/bin/sh
# Builds the small local GROMACS case in the current directory from Debian's gromacs data:
# a 3 nm SPC/E water box (about 2,700 atoms) -> conf.gro, topol.top, water.tpr.
# Usage: make-water-box.sh [gmx binary]   (then: gmx mdrun -s water.tpr ...)
set -e
here=$(dirname "$0")
gmx=${1:-gmx}
$gmx solvate -cs spc216.gro -box 3 3 3 -o conf.gro
cp "$here/topol.top" topol.top
echo "SOL $(grep -c OW conf.gro)" >> topol.top
$gmx grompp -f "$here/water.mdp" -c conf.gro -p topol.top -o water.tpr -maxwarn 0
