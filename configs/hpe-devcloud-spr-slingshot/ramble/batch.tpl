#!/bin/bash
# Slurm job of one Ramble experiment on hpe-devcloud-spr-slingshot.
# Ramble fills in the variables per experiment; the site's account and partition come
# from SBATCH_ACCOUNT / SBATCH_PARTITION in the environment.
#SBATCH --job-name={experiment_name}
#SBATCH --nodes={n_nodes}
#SBATCH --ntasks-per-node={processes_per_node}
#SBATCH --cpus-per-task={n_threads}
#SBATCH --time={batch_time}
#SBATCH --exclusive
#SBATCH --output={experiment_run_dir}/slurm-%j.out
export OMP_NUM_THREADS={n_threads}
cd "{experiment_run_dir}"
{command}
