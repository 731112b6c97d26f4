from hpcaas_kit import *
from ramble.appkit import *


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
        ("OpenMP time", r"^Processing time on CPU using OpenMP:\s+(?P<ms>" + NUM + r")\s+\(ms\)", "ms", "ms"),
        ("Serial time", r"^Processing time on CPU:\s+(?P<ms>" + NUM + r")\s+\(ms\)", "ms", "ms"),
        ("Speedup", r"^Speedup Using OpenMP:\s+(?P<speedup>" + NUM + r")", "speedup", ""),
    )
    figures_of_merit(
        ("Average price", r"^Average Price \(CPU computation\):\s+(?P<price>" + NUM + r")", "price", ""),
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
