#!/bin/bash
# One Ramble experiment run in place (configs/schedulers/local.tpl): systems without a batch
# scheduler, or whose paper names none; MPI launchers that need hosts read {hostfile}.
export OMP_NUM_THREADS={n_threads}
cd "{experiment_run_dir}"
{command}
