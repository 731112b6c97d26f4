#!/bin/bash
# PBS job of one Ramble experiment (configs/schedulers/pbs.tpl, for every PBS system).
# `ramble on` submits it with qsub; give the site's project with qsub -P/-A (QSUB options).
# What a job asks for is the site's (variables.yaml: pbs_resources), e.g. whole nodes
# (select=N) or cores and memory (ncpus=N,mem=MGB).
#PBS -N {experiment_name}
#PBS -l {pbs_resources}
#PBS -l walltime={batch_time}
#PBS -j oe
export OMP_NUM_THREADS={n_threads}
cd "{experiment_run_dir}"
{command}
