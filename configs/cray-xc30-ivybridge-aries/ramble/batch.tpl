#!/bin/bash
# PBS Pro job of one Ramble experiment on cray-xc30-ivybridge-aries.
# Whole nodes with select; the budget comes from qsub -A.
#PBS -N {experiment_name}
#PBS -l select={n_nodes}
#PBS -l walltime={batch_time}
#PBS -j oe
export OMP_NUM_THREADS={n_threads}
cd "{experiment_run_dir}"
{command}
