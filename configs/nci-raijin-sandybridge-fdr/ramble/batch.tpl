#!/bin/bash
# PBS Pro job of one Ramble experiment on nci-raijin-sandybridge-fdr.
# NCI asks for cores and memory per job, not nodes (pbs_ncpus and pbs_mem_gb in
# variables.yaml); the project comes from qsub -P.
#PBS -N {experiment_name}
#PBS -l ncpus={pbs_ncpus}
#PBS -l mem={pbs_mem_gb}GB
#PBS -l walltime={batch_time}
#PBS -j oe
export OMP_NUM_THREADS={n_threads}
cd "{experiment_run_dir}"
{command}
