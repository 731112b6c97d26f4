import os
import re

from ramble.appkit import *
from ramble.expander import Expander
from ramble.keywords import keywords

NUM = r"[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?"
PER_ITERATION = r"^Time taken for 1 iteration, (?P<seconds>" + NUM + r")"


class Opensbli(ExecutableApplication):
    """OpenSBLI Taylor-Green vortex benchmark (UK HPC benchmark suite) for S5 (PASC'19, Arm
    ThunderX2 vs x86: strong scaling of the 512^3 and 1024^3 grids, iterations per second).

    The program (see the opensbli Spack recipe) reads "input" in its working directory; this
    application writes it from the workload variables. It prints the wall time of the time loop
    and the time per iteration; "Iterations per second" is derived from the latter.
    """

    name = "opensbli"

    maintainers("hpcaas-bench")

    tags("cfd", "finite-difference", "ops")

    define_compiler("gcc12", pkg_spec="gcc@12.2.0", package_manager="spack*")
    software_spec("opensbli", pkg_spec="opensbli@2023.02.02", compiler="gcc12", package_manager="spack*")
    required_package("opensbli", package_manager="spack*")

    executable("write-input", template=["echo '{simulation} {grid_points} {iterations} {n_ranks} {write_hdf5}' "
                                        "> {experiment_run_dir}/input"], use_mpi=False)
    executable("execute", "{opensbli_exe}", use_mpi=True)

    for _workload, _grid in (("tgv_512", "512"), ("tgv_1024", "1024")):
        workload(_workload, executables=["write-input", "execute"])
        workload_variable("grid_points", default=_grid, workload=_workload,
                          description="Grid points per direction (the cube has grid_points^3)")

    workload_group("tgv", workloads=["tgv_512", "tgv_1024"])
    workload_variable("simulation", default="ss", values=["ss", "ws", "va"], workload_group="tgv",
                      description="ss: strong scaling (fixed grid), ws: weak scaling (grid_points per "
                                  "process), va: validation")
    workload_variable("iterations", default="100", workload_group="tgv",
                      description="Time iterations (the PASC'19 and ARCHER runs: 100)")
    workload_variable("write_hdf5", default="False", values=["False", "True"], workload_group="tgv",
                      description="Write the solution to HDF5 after the loop (timed separately)")
    workload_variable("opensbli_exe", default="OpenSBLI_mpi", values=["OpenSBLI_mpi", "OpenSBLI_mpi_openmp"],
                      workload_group="tgv", description="Benchmark binary (MPI, or MPI x OpenMP)")
    environment_variable("OMP_NUM_THREADS", value="{n_threads}", workloads=["tgv_512", "tgv_1024"],
                         description="OpenMP threads per rank (OpenSBLI_mpi_openmp)")

    log_str = Expander.expansion_str(keywords.log_file)
    rate_str = os.path.join(Expander.expansion_str(keywords.experiment_run_dir), "opensbli_rate.out")

    figure_of_merit("Wall time", log_file=log_str,
                    fom_regex=r"^Total Wall time of the time iteration loop for (?P<iterations>[0-9]+) iterations, "
                              r"(?P<seconds>" + NUM + r")", group_name="seconds", units="s")
    figure_of_merit("Iterations", log_file=log_str,
                    fom_regex=r"^performed (?P<iterations>[0-9]+) iterations", group_name="iterations", units="")
    figure_of_merit("Time per iteration", log_file=log_str, fom_regex=PER_ITERATION,
                    group_name="seconds", units="s")
    figure_of_merit("Grid points per direction", log_file=log_str,
                    fom_regex=r"^The number of grid points used per direction are (?P<n>[0-9]+)",
                    group_name="n", units="")
    figure_of_merit("Iterations per second", log_file=rate_str,
                    fom_regex=r"^Iterations per second: (?P<rate>" + NUM + r")", group_name="rate",
                    units="iterations/s")

    success_criteria("loop-finished", mode="string", match=r"^performed {iterations} iterations",
                     file=log_str)
    success_criteria("timed", mode="string", match=r"^Total Wall time of the time iteration loop",
                     file=log_str)

    def _analyze_experiments(self, workspace, app_inst=None):
        """Iterations per second = 1 / (time per iteration), written to opensbli_rate.out for the
        "Iterations per second" figure of merit (a figure of merit is read, not computed)."""
        log_path = self.expander.expand_var(self.log_str)
        rate_path = self.expander.expand_var(self.rate_str)
        seconds = None
        if os.path.isfile(log_path):
            with open(log_path, errors="replace") as f:
                for line in f:
                    match = re.match(PER_ITERATION, line)
                    if match:
                        seconds = float(match.group("seconds"))
        if seconds:
            with open(rate_path, "w") as f:
                f.write(f"Iterations per second: {1.0 / seconds}\n")
        elif os.path.exists(rate_path):
            os.remove(rate_path)
        super()._analyze_experiments(workspace, app_inst)
