#!/bin/bash
# Slurm job of one Ramble experiment on local-slurm (slurm/up.sh's cluster); use it as the
# workspace's configs/execute_experiment.tpl. `ramble on` runs `sbatch` on it and returns;
# slurm/wait-jobs.py --workdir <workspace> waits for the jobs (they run in their run
# directories) and reports any that did not complete. SLURM_CONF comes from the submitting
# environment (. .slurm/env.sh), which sbatch passes on.
#SBATCH --job-name={experiment_namespace}
#SBATCH --nodes={n_nodes}
#SBATCH --ntasks={n_ranks}
#SBATCH --cpus-per-task={n_threads}
#SBATCH --time={batch_time}
#SBATCH --chdir={experiment_run_dir}
#SBATCH --output={experiment_run_dir}/slurm-%j.out
export OMP_NUM_THREADS={n_threads}
cd "{experiment_run_dir}"
{command}
