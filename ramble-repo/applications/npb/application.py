from hpcaas_kit import *
from ramble.appkit import *

KERNELS = ["cg", "ep", "ft", "is", "lu", "mg"]


# FT's, MG's and LU's size: a grid, "64x  64x  64".
GRID = r"^\s*Size\s*=\s*(?P<nx>[0-9]+)\s*x\s*(?P<ny>[0-9]+)\s*x\s*(?P<nz>[0-9]+)\s*$"


def result(label, group=r"\S+"):
    """A line of NPB's closing summary: ' Mop/s total     =     4780.94'."""
    return r"^\s*" + label + r"\s*=\s*(?P<value>" + group + r")\s*$"


class Npb(ResultIdentity, ExecutableApplication):
    """NAS Parallel Benchmarks, MPI version: kernels CG, EP, FT, IS, MG and the LU solver (and,
    in a log from elsewhere, the OpenMP and the multi-zone MPI+OpenMP versions: BT-MZ, SP-MZ, LU-MZ).

    S2 runs NPB 3.4 class C at 32 and 64 ranks; S4 runs NPB 3.3.1 class C at 4 ranks per node.
    The class is fixed at build time (Spack variant `classes`), so each binary is named
    <kernel>.<class>.x in 3.4 and, in 3.3.1, also by its process count (<kernel>.<class>.<n>).
    The default build and class are the catalog's (3.4, class S). A run counts only if NPB
    printed its summary and its own verification says SUCCESSFUL; every number of the summary
    is a FOM, in the MPI and OpenMP builds' formats.
    """

    name = "npb"

    maintainers("hpcaas-bench")

    tags("benchmark", "mpi", "cfd", "kernels")

    # Class S by default (the catalog's); the studies set npb_class C and build class C.
    spack_package("npb", "npb@=3.4 implementation=mpi names=cg,ep,ft,is,lu,mg classes=S")

    # " NAS Parallel Benchmarks 3.4 -- CG Benchmark" (3.3.1: "NAS Parallel Benchmarks 3.3 -- CG Benchmark").
    run_start_regex = r"^\s*NAS Parallel Benchmarks"
    # A job that ran several benchmarks into one output: each is a section, named by its banner
    # ("... -- CG Benchmark"; multi-zone: "(NPB3.3-MZ-MPI) - BT-MZ MPI+OpenMP Benchmark").
    figure_of_merit_context(
        "benchmark",
        regex=r"^\s*NAS Parallel Benchmarks.*?-+ (?P<benchmark>[A-Z]+(?:-MZ)?)\b.* Benchmark",
        output_format="{benchmark}",
    )
    section_contexts = ("benchmark",)

    for kernel in KERNELS:
        executable(f"execute-{kernel}", f"{kernel}.{{npb_class}}.{{npb_suffix}}", use_mpi=True)
        # The catalog's: CG class S, under a second at 1 or 2 ranks (CG needs a power of two).
        workload(kernel, executable=f"execute-{kernel}", tags=["catalog"] if kernel == "cg" else [])

    workload_variable(
        "npb_class",
        default="S",
        values=["S", "W", "A", "B", "C", "D", "E", "F"],
        workloads=KERNELS,
        description="Problem class (S: seconds on a laptop; C: the studies'); it must be "
        "among the `classes` the npb package was built with",
    )
    workload_variable(
        "npb_suffix",
        default="x",
        values=["x", "{n_ranks}"],
        workloads=KERNELS,
        description="Binary name suffix: 'x' for NPB 3.4, '{n_ranks}' for NPB 3.3.1, "
        "whose binaries are built per process count (Spack variant `nprocs`)",
    )

    # Every number of the summary (the results table keeps numbers only: the benchmark's name,
    # class, operation type and version are words or version strings, and the class and the
    # verification are checked by the success criteria instead). Size is one number (CG, EP,
    # IS, LU's nx) or a grid (FT, MG, LU: "64x  64x  64").
    figures_of_merit(
        ("Size", result("Size", r"[0-9]+"), "value", ""),
        ("Size x", GRID, "nx", ""),
        ("Size y", GRID, "ny", ""),
        ("Size z", GRID, "nz", ""),
    )
    for label, name, units in (
        (r"Iterations", "Iterations", ""),
        (r"Time in seconds", "Time", "s"),
        # MPI builds print processes, OpenMP builds threads (NPB3.x-OMP: "Total threads", "Avail
        # threads", "Mop/s/thread"); 3.4 adds "Active procs" (later 3.4.x "Active processes="),
        # 3.3.1 printed "Compiled procs".
        (r"Total processes", "Total processes", ""),
        (r"Active proc(?:s|esses)", "Active processes", ""),
        (r"Compiled procs", "Compiled processes", ""),
        (r"Total threads", "Total threads", ""),
        # The multi-zone OpenMP version's outer (zone) threads.
        (r"Total o_threads", "Outer threads", ""),
        (r"Avail threads", "Available threads", ""),
        (r"Mop/s total", "Mop/s total", "Mop/s"),
        (r"Mop/s/process", "Mop/s per process", "Mop/s"),
        (r"Mop/s/thread", "Mop/s per thread", "Mop/s"),
    ):
        figure_of_merit(name, fom_regex=result(label), group_name="value", units=units)

    log_criteria(
        LOG,
        # " CG Benchmark Completed." opens the summary NPB prints when the run finished (the
        # multi-zone versions: " BT-MZ Benchmark Completed.").
        completed=r"^\s*[A-Z]+(?:-MZ)? Benchmark Completed",
        # UNSUCCESSFUL and NOT PERFORMED do not match.
        verified=r"^\s*Verification\s*=\s*SUCCESSFUL\s*$",
        # NPB's own errors ("ERROR: Number of processes (3) is not a power of two", 3.3.1's "Error:"
        # before "num of procs allocated ... is not equal to compiled number of procs"; not the
        # verification's " Error is 0.52E-13").
        no_errors=absent(r"^\s*(ERROR|Error):"),
        finite_values=absent(r"(?i)^\s*(Time in seconds|Mop/s\S*)\s*=\s*(nan|inf|\*+)\s*$"),
        requested_class=r"^\s*Class\s*=\s*{npb_class}\s*$",
        # The run's width: MPI processes (an OpenMP build's log, read as an experiment, its threads).
        requested_ranks=r"^\s*Total (?:processes|threads)\s*=\s*{n_ranks}\s*$",
    )
