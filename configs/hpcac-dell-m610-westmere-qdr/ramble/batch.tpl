#!/bin/bash
# One Ramble experiment on hpcac-dell-m610-westmere-qdr, run in place.
# The paper names no batch system: run this script inside an allocation, or on the VMs
# listed in the launcher's hostfile.
export OMP_NUM_THREADS={n_threads}
cd "{experiment_run_dir}"
{command}
