#!/bin/bash
# PBS job of one Ramble experiment (configs/schedulers/pbs.tpl, for every PBS system).
# `ramble on` submits it with qsub; give the site's project with qsub -P/-A (QSUB options).
#PBS -N {experiment_name}
#PBS -l select={n_nodes}
#PBS -l walltime={batch_time}
#PBS -j oe
export OMP_NUM_THREADS={n_threads}
cd "{experiment_run_dir}"
{command}
