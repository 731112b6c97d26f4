#!/usr/bin/env bash
# The srun --mpi= plugin each MPI library needs on the local cluster (Slurm 22.05, Debian
# bookworm; measured, see slurm/README.md):
#   openmpi -> --mpi=pmix   (Open MPI 4.1 talks PMIx only; with pmi2/none MPI_Init aborts)
#   mpich   -> --mpi=pmi2   (MPICH 4.0's PMI-1/PMI-2 client; with pmix/none every rank comes
#                            up as its own 1-rank MPI_COMM_WORLD and the step exits 0)
# MpiDefault=none, so a bare srun never guesses.
#   slurm/mpi-flag.sh MPI          prints e.g. --mpi=pmix
#   slurm/mpi-flag.sh --plugin MPI prints e.g. pmix
set -euo pipefail
prefix=--mpi=
if [ "${1:-}" = --plugin ]; then prefix=; shift; fi
case "${1:-}" in
    openmpi) echo "${prefix}pmix" ;;
    mpich) echo "${prefix}pmi2" ;;
    *) echo "usage: $0 [--plugin] openmpi|mpich (got '${1:-}')" >&2; exit 2 ;;
esac
