from ramble.appkit import *

# This repository's application kit: what its applications declare alike (success criteria, and
# figures of merit and workload variables as tables, the Spack package, how MPI launchers and Slurm
# report a failure), written once here. Every application imports it after Ramble's appkit:
# `from ramble.app.hpcaas.montecarlo import *` (the names of __all__). Ramble's place for shared
# code is a base application (base_applications/), but at the pinned commit Ramble imports one only
# from a repository listed in base_application_repos, a list its own known-applications test
# replaces with the builtin repository alone; an application's module imports wherever Ramble
# knows the application. This application is the one that imports nothing else.
__all__ = [
    "CRASHES",
    "LOG",
    "NUM",
    "RESULTS",
    "absent",
    "figures_of_merit",
    "log_criteria",
    "printf_command",
    "spack_package",
    "workload_variables",
]

# Where FOMs and criteria read (README item 3): Ramble's log of the experiment (its stdout and
# stderr), or the application's own results file, `results_file` in every application.
LOG = "{log_file}"
RESULTS = "{results_file}"

# A number as C's printf and Fortran print it: signed, with or without a fraction or exponent
# (1, -2.5, .5, 1.0E+03).
NUM = r"[-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?"

# How a rank or a job step dies, whichever MPI and launcher ran it (alternatives, each found
# anywhere in a line): Open MPI ("MPI_ABORT was invoked on rank 0", "mpirun noticed that process
# rank 1 ... exited on signal 11 (Segmentation fault)", "... exited with non-zero status"), MPICH,
# Intel MPI and Cray MPICH ("application called MPI_Abort(...)", "BAD TERMINATION OF ONE OF YOUR
# APPLICATION PROCESSES"), Slurm ("srun: error: n1: task 0: Killed", "slurmstepd: error: *** STEP
# 12.0 ON n1 CANCELLED AT ..."), a crash's own report (gfortran's "Program received signal
# SIGSEGV: Segmentation fault", a core dump).
CRASHES = "|".join(
    [
        "MPI_ABORT was invoked",
        "application called MPI_Abort",
        "BAD TERMINATION",
        "mpirun noticed that process rank",
        "exited on signal",
        "exited with non-zero status",
        "Segmentation fault",
        "core dumped",
        "srun: error",
        "slurmstepd: error",
    ]
)


class absent(str):
    """A regex no line of the file may match (a success criterion's anti_match)."""


def log_criteria(file, **criteria):
    """Success criteria named by what they check (ramble-repo/README.md item 4), in the order
    given, each a regex on the lines of `file`: a line must match it or, given as absent(regex),
    none may. A keyword is the criterion's name with "_" for "-" (no_errors: "no-errors").

    Then the criterion every application has, `no-crashes`: no line of the experiment's own
    output ({log_file}: its stdout and stderr, where MPI launchers and Slurm report) says a rank
    or a job step died (CRASHES), whatever the application's own files say; the application's
    `no-errors` names only its own error lines."""
    for name, regex in criteria.items():
        _criterion(name, file, regex)
    _criterion("no_crashes", LOG, absent(f".*(?:{CRASHES})"))


def _criterion(name, file, regex):
    kind = "anti_match" if isinstance(regex, absent) else "match"
    success_criteria(name.replace("_", "-"), mode="string", file=file, **{kind: str(regex)})


def figures_of_merit(*foms, **shared):
    """A figure of merit for each row of `foms`, (name, fom_regex, group_name, units) less what
    the keywords give every row (e.g. fom_regex=TIMING: rows (name, group_name, units); also
    log_file, contexts)."""
    columns = [column for column in ("fom_regex", "group_name", "units") if column not in shared]
    for name, *values in foms:
        if len(values) != len(columns):
            raise ValueError(f"figure of merit {name!r}: {len(values)} values for {columns}")
        figure_of_merit(name, **dict(zip(columns, values)), **shared)


def workload_variables(*variables, **where):
    """A workload variable for each (name, default, description) of `variables`, in the
    workloads the keywords name (workload, workloads or workload_group)."""
    for name, default, description in variables:
        workload_variable(name, default=default, description=description, **where)


def spack_package(name, pkg_spec):
    """The Spack package the application runs, required, at its pinned spec (no compiler and no
    MPI: README item 2)."""
    software_spec(name, pkg_spec=pkg_spec, package_manager="spack*")
    required_package(name, package_manager="spack*")


def printf_command(lines, path):
    """The shell command that writes `lines` to `path` (an input written in the experiment)."""
    return "printf '%s\\n' " + " ".join(f"'{line}'" for line in lines) + f" > {path}"


class Montecarlo(ExecutableApplication):
    """FinanceBench Monte Carlo option pricing (QMC Sobol, OpenMP) for S1 (HPCaaS-Bench T2:
    threads {1, cores, 2 x cores} on Genoa and Sapphire Rapids; T3: performance per dollar).

    The program (see the montecarlo Spack recipe) prices the option twice: first with the OpenMP
    kernel on OMP_NUM_THREADS threads, then serially, and prints each time in milliseconds, the
    average price of each run and the speedup between them. The study's figure is the OpenMP
    time. Build +rand_r (the default) for thread scaling: with upstream's rand() the OpenMP kernel
    gets slower, not faster, with more threads.
    """

    name = "montecarlo"

    maintainers("hpcaas-bench")

    tags("finance", "monte-carlo", "openmp")

    spack_package("montecarlo", "montecarlo@2016.07.25 +rand_r")

    executable("execute", "{montecarlo_exe} {n_samples}", use_mpi=False)

    # The first line the program prints (threads-samples.patch's, as upstream's).
    run_start_regex = r"^Number of Samples:"

    # The catalog's: 100,000 samples, a few seconds per thread count; the study sets 10,000,000.
    workload("qmc", executables=["execute"], tags=["catalog"])

    workload_variable(
        "n_samples",
        default="100000",
        workload="qmc",
        description="Monte Carlo samples (paths of 250 steps); the study ran 10,000,000",
    )
    workload_variable(
        "montecarlo_exe",
        default="monteCarloEngine.exe",
        workload="qmc",
        description="The FinanceBench Monte Carlo binary",
    )
    # Threads are the T2 axis: set n_threads per experiment.
    environment_variable(
        "OMP_NUM_THREADS", value="{n_threads}", workload="qmc", description="Threads of the OpenMP kernel"
    )

    # "Run on CPU using OpenMP" opens the OpenMP run's lines, "Run on CPU" the serial run's.
    figure_of_merit_context("kernel", regex=r"^Run on (?P<kernel>CPU using OpenMP|CPU)\s*$", output_format="{kernel}")

    figures_of_merit(
        ("OpenMP time", r"^Processing time on CPU using OpenMP:\s+(?P<ms>[0-9.]+)\s+\(ms\)", "ms", "ms"),
        ("Serial time", r"^Processing time on CPU:\s+(?P<ms>[0-9.]+)\s+\(ms\)", "ms", "ms"),
        ("Speedup", r"^Speedup Using OpenMP:\s+(?P<speedup>[0-9.]+)", "speedup", ""),
    )
    figures_of_merit(
        ("Average price", r"^Average Price \(CPU computation\):\s+(?P<price>[0-9.eE+-]+)", "price", ""),
        contexts=["kernel"],
    )
    figures_of_merit(
        ("Samples", r"^Number of Samples:\s+(?P<samples>[0-9]+)", "samples", ""),
        ("Threads", r"^Number of OpenMP threads:\s+(?P<threads>[0-9]+)", "threads", ""),
    )

    log_criteria(
        "{log_file}",
        # The speedup line is the program's last: both runs finished.
        completed=r"^Speedup Using OpenMP:",
        no_errors=absent(r"(?i)^.*(?:Killed|Aborted|bad_alloc)"),
        finite_values=absent(r"(?i)^(Processing time|Average Price|Speedup).*:\s+-?(nan|inf)"),
        # A run of fewer samples or other threads than asked is not the experiment's.
        requested_samples=r"^Number of Samples: {n_samples}\s*$",
        requested_threads=r"^Number of OpenMP threads: {n_threads}\s*$",
    )
