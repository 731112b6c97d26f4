import os
import re

from hpcaas_kit import *
from ramble.appkit import *
from ramble.expander import Expander
from ramble.keywords import keywords

PER_ITERATION = r"^Time taken for 1 iteration, (?P<seconds>" + NUM + r")"
# The weak scaling line: its process count and the grid points of each process.
WEAK = (
    r"^The simulation is performed is the weak scaling simulation on (?P<p>[0-9]+) number "
    r"of processes using (?P<n>[0-9]+) grid points per process"
)
# OPS' decomposition of the grid over the ranks.
DECOMPOSITION = (
    r"^block \"taylor_green_vortex_block\" decomposed on to a processor grid of "
    r"(?P<x>[0-9]+) x (?P<y>[0-9]+) x (?P<z>[0-9]+)"
)
# The validation line ("va"): %g of the simulated time, kinetic energy, enstrophy, mean density.
VALIDATION = rf"^(?P<time>{NUM}), (?P<ke>{NUM}), (?P<enstrophy>{NUM}), (?P<rho>{NUM})\s*$"


class Opensbli(ExecutableApplication):
    """OpenSBLI Taylor-Green vortex benchmark (UK HPC benchmark suite) for S5 (PASC'19, Arm
    ThunderX2 vs x86: strong scaling of the 512^3 and 1024^3 grids, iterations per second).

    The program (see the opensbli Spack recipe) reads "input" in its working directory; this
    application writes it from the workload variables. Rank 0 prints the wall time of the time
    loop and the time per iteration ("Iterations per second" is derived from the latter), the
    HDF5 write time when asked to write, and in the validation run ("va": 128^3, 500 iterations,
    whatever the input says) the line to compare with the benchmark's documentation: simulated
    time, kinetic energy, enstrophy and mean density.

    Output formats: the 2018 build (UoB-HPC, ARCHER) printed an introduction and the grid size on
    every rank in every mode; the build of the pinned source prints the grid size only in "va"
    and the total grid size in "ws", and nothing before OPS' block decomposition in "ss".
    """

    name = "opensbli"

    maintainers("hpcaas-bench")

    tags("cfd", "finite-difference", "ops")

    spack_package("opensbli", "opensbli@2023.02.02")

    # A run's opening line: OPS' decomposition of the block, which rank 0 alone prints, in every
    # format. The 2018 build's introduction and the "va"/"ws" notes come before it but are printed
    # by every rank (64 copies in a 64-rank log), so they cannot tell runs apart.
    run_start_regex = r"^block \"\S+\" decomposed on to a processor grid"

    executable(
        "write-input",
        template=[
            ("echo '{simulation} {grid_points} {iterations} {n_ranks} {write_hdf5}' " "> {experiment_run_dir}/input")
        ],
        use_mpi=False,
        # Not redirected to the log: its own redirection writes the input file.
        redirect="",
    )
    executable("execute", "{opensbli_exe}", use_mpi=True)

    # tgv_64: the catalog's (a 64^3 strong-scaling run of 20 iterations takes seconds here).
    _workloads = (
        ("tgv_512", "512", "100", "ss", []),
        ("tgv_1024", "1024", "100", "ss", []),
        ("tgv_64", "64", "20", "ss", ["catalog"]),
        ("tgv_validation", "128", "500", "va", []),
    )
    for _workload, _grid, _iterations, _simulation, _tags in _workloads:
        workload(_workload, executables=["write-input", "execute"], tags=_tags)
        workload_variable(
            "grid_points",
            default=_grid,
            workload=_workload,
            description="Grid points per direction (the cube has grid_points^3; " '"va" always runs 128)',
        )
        workload_variable(
            "iterations",
            default=_iterations,
            workload=_workload,
            description='Time iterations (the PASC\'19 and ARCHER runs: 100; "va" ' "always runs 500)",
        )
        workload_variable(
            "simulation",
            default=_simulation,
            values=["ss", "ws", "va"],
            workload=_workload,
            description="ss: strong scaling (fixed grid), ws: weak scaling (grid_points "
            "per process), va: validation (128^3, 500 iterations)",
        )

    workload_group("tgv", workloads=[w[0] for w in _workloads])
    workload_variable(
        "write_hdf5",
        default="False",
        values=["False", "True"],
        workload_group="tgv",
        description="Write the solution to HDF5 after the loop (timed separately)",
    )
    workload_variable(
        "opensbli_exe",
        default="OpenSBLI_mpi",
        values=["OpenSBLI_mpi", "OpenSBLI_mpi_openmp"],
        workload_group="tgv",
        description="Benchmark binary (MPI, or MPI x OpenMP: " "opensbli +openmp)",
    )
    environment_variable(
        "OMP_NUM_THREADS",
        value="{n_threads}",
        workloads=[w[0] for w in _workloads],
        description="OpenMP threads per rank (OpenSBLI_mpi_openmp)",
    )

    rate_str = os.path.join(Expander.expansion_str(keywords.experiment_run_dir), "opensbli_rate.out")

    figures_of_merit(
        (
            "Wall time",
            r"^Total Wall time of the time iteration loop for (?P<iterations>[0-9]+) iterations, "
            r"(?P<seconds>" + NUM + r")",
            "seconds",
            "s",
        ),
        ("Iterations", r"^performed (?P<iterations>[0-9]+) iterations", "iterations", ""),
        ("Time per iteration", PER_ITERATION, "seconds", "s"),
    )
    figures_of_merit(
        ("Iterations per second", r"^Iterations per second: (?P<rate>" + NUM + r")", "rate", "iterations/s"),
        log_file=rate_str,
    )
    figures_of_merit(
        ("HDF5 write time", r"^Time taken for writing HDF5 File is (?P<seconds>" + NUM + r")", "seconds", "s"),
        ("Grid points per direction", r"^The number of grid points used per direction are (?P<n>[0-9]+)", "n", ""),
        # "va" and "ws" (and every mode of the 2018 build).
        ("Total grid points", r"^The total number of grid points are (?P<n>-?[0-9]+)", "n", ""),
        ("Processes in weak scaling", WEAK, "p", ""),
        ("Grid points per process", WEAK, "n", ""),
        *[(f"Processes along {_axis}", DECOMPOSITION, _axis, "") for _axis in ("x", "y", "z")],
    )
    figures_of_merit(
        ("Validation simulated time", "time", ""),
        ("Validation kinetic energy", "ke", ""),
        ("Validation enstrophy", "enstrophy", ""),
        ("Validation mean density", "rho", ""),
        fom_regex=VALIDATION,
    )

    log_criteria(
        LOG,
        # The last line of a run: whether or not it wrote HDF5.
        completed=r"^(Not performing file I/O as write HDF5 is set to False|Time taken for writing HDF5 File is)",
        no_errors=absent(r".*(killed by signal|The simulation name is invalid|aborting the simulation)"),
        # printf's %lf and %g print nan and inf as words.
        finite_values=absent(r"^(Total Wall time|Time taken|.*, ).*\b[-+]?(nan|inf)\b"),
        requested_iterations=r"^performed {iterations} iterations",
    )

    def _analyze_experiments(self, workspace, app_inst=None):
        """Iterations per second = 1 / (time per iteration), written to opensbli_rate.out for the
        "Iterations per second" figure of merit (a figure of merit is read, not computed)."""
        log_path = self.expander.expand_var(LOG)
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
