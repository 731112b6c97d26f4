#!/bin/bash
# One Ramble experiment on dell-emc-skylake-opa, run in place.
# The paper names no batch system: run this script inside an allocation, or on the VMs
# listed in the launcher's hostfile.
export OMP_NUM_THREADS={n_threads}
cd "{experiment_run_dir}"
{command}
