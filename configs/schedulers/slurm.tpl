#!/bin/bash
# Slurm job of one Ramble experiment (configs/schedulers/slurm.tpl, for every Slurm system).
# `ramble on` submits it with sbatch; the site's account and partition come from
# SBATCH_ACCOUNT / SBATCH_PARTITION in the submitting environment, unless the system gives its
# jobs more directives (its variable batch_directives: e.g. the partition a paper names per node
# count, on the line after --output).
#SBATCH --job-name={experiment_namespace}
#SBATCH --nodes={n_nodes}
#SBATCH --ntasks={n_ranks}
#SBATCH --cpus-per-task={n_threads}
#SBATCH --time={batch_time}
#SBATCH --exclusive
#SBATCH --chdir={experiment_run_dir}
#SBATCH --output={experiment_run_dir}/slurm-%j.out
{batch_directives}
export OMP_NUM_THREADS={n_threads}
cd "{experiment_run_dir}"
{command}
