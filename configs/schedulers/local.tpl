#!/bin/bash
# One Ramble experiment run in place (configs/schedulers/local.tpl): systems without a batch
# scheduler, or whose paper names none; launchers that need hosts read the hostfile variable,
# or the allocation this script is run in (a system whose paper names no batch system: its
# variables.yaml says so).
export OMP_NUM_THREADS={n_threads}
cd "{experiment_run_dir}"
{command}
