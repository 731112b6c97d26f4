from hpcaas_kit import *
from ramble.app.builtin.intel_mpi_benchmarks import IntelMpiBenchmarks as BuiltinImb
from ramble.appkit import *

# IMB-MPI1 tables, one row per message size:
#   PingPong/PingPing:       #bytes #repetitions      t[usec]   Mbytes/sec
#   collectives:             #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]
#   Sendrecv/Exchange:       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]   Mbytes/sec
#   Uniband/Biband:          #bytes #repetitions   Mbytes/sec      Msg/sec
#   Barrier:                        #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]
ROW = r"^\s+(?P<bytes>\d+)\s+(?P<repetitions>\d+)\s+"
PINGPONG = ROW + r"(?P<t>\d+\.\d+)\s+(?P<bw>\d+\.\d+)\s*$"
COLLECTIVE = ROW + r"(?P<t_min>\d+\.\d+)\s+(?P<t_max>\d+\.\d+)\s+(?P<t_avg>\d+\.\d+)\s*$"
BAND = ROW + r"(?P<bw>\d+\.\d+)\s+(?P<rate>\d+)\s*$"
BARRIER = r"^\s+(?P<repetitions>\d+)\s+(?P<t_min>\d+\.\d+)\s+(?P<t_max>\d+\.\d+)\s+(?P<t_avg>\d+\.\d+)\s*$"
COMBINED = ROW + r"(?P<t_min>\d+\.\d+)\s+(?P<t_max>\d+\.\d+)\s+(?P<t_avg>\d+\.\d+)\s+(?P<bw>\d+\.\d+)\s*$"
# The latency columns of the collective, Sendrecv/Exchange and Barrier tables: (FOM name word, group).
STATS = (("min", "t_min"), ("max", "t_max"), ("avg", "t_avg"))


class IntelMpiBenchmarks(ResultIdentity, BuiltinImb):
    """Intel MPI Benchmarks (IMB-MPI1) 2019.1 for S5 (Sendrecv, Alltoallv, Allgatherv at 128 KiB
    and 1 MiB) and S4 (Alltoall at 16 B and 256 KiB); PingPong for point-to-point checks.

    Differs from Ramble's builtin (named IntelMpiBenchmarks there): the name is the Spack
    package's; "sendrecv" and "alltoall" (the catalog's) workloads; the collective table's
    columns are read in IMB's order (t_min, t_max, t_avg: the builtin reported t_max as
    "Latency avg"); every table IMB-MPI1 prints gives FOMs (PingPong, collectives, Sendrecv/
    Exchange, Uniband/Biband, Barrier), in 2018, 2019 and 2021 alike; and a run succeeds only if
    IMB reached MPI_Finalize without an error, having run the requested benchmark and nothing
    else (IMB runs its whole list when it does not know a name, e.g. a typo).
    """

    name = "intel-mpi-benchmarks"

    maintainers("hpcaas-bench")

    spack_package("intel-mpi-benchmarks", "intel-mpi-benchmarks@2019.1")

    # "#    Intel(R) MPI Benchmarks 2021.7, MPI-1 part" (2019: "Intel (R) MPI Benchmarks 2019 Update 1").
    run_start_regex = r"^#\s+Intel ?\(R\) MPI Benchmarks"

    executable(
        "sendrecv",
        "{install_path}/IMB-MPI1 Sendrecv -msglog {msglog_min}:{msglog_max} "
        "-iter {num_iterations} -npmin {n_ranks} {additional_args}",
        use_mpi=True,
    )
    workload("sendrecv", executable="sendrecv")
    # The catalog's: S4's Alltoall from 16 B to 256 KiB (its two sizes and those between),
    # 100 iterations, on every rank count (IMB runs collectives on one process too).
    workload("alltoall", executable="collective", tags=["catalog"])
    workload_group("mpi1", workloads=["sendrecv", "alltoall"], mode="append")
    for var, value in (
        ("collective_type", "Alltoall"),
        ("msglog_min", "4"),
        ("msglog_max", "18"),
        ("num_iterations", "100"),
        ("min_collective_ranks", "{n_ranks}"),
        ("additional_args", ""),
        ("install_path", "{intel-mpi-benchmarks_path}/bin"),
    ):
        workload_variable(var, default=value, workloads=["alltoall"], description=f"{var} of the catalog's Alltoall")
    # The builtin gives this to workloads=["*"]: those that existed before this class added one.
    workload_variable(
        "install_path",
        default="{intel-mpi-benchmarks_path}/bin",
        workloads=["sendrecv"],
        description="Directory holding IMB-MPI1",
    )

    for workload_name, benchmark in (
        ("pingpong", "{pingpong_type}"),
        ("collective", "{collective_type}"),
        ("exchange", "Exchange"),
        ("sendrecv", "Sendrecv"),
        ("alltoall", "Alltoall"),
        ("multi-pingpong", "(Multi-)?PingPong"),
    ):
        workload_variable(
            "imb_benchmark",
            default=benchmark,
            workloads=[workload_name],
            description="The one benchmark this run must show in IMB's output "
            "(a case-insensitive regular expression)",
        )

    # Each table is a section: a benchmark at a process count (a run of several benchmarks, or
    # of one from -npmin up, prints one table for each), "# Benchmarking X" then "# #processes = N".
    figure_of_merit_context("benchmark", regex=r"^# Benchmarking (?P<benchmark>\S+)", output_format="{benchmark}")
    figure_of_merit_context("processes", regex=r"^#\s*#processes\s*=\s*(?P<n>[0-9]+)", output_format="{n} processes")
    section_contexts = ("benchmark", "processes")
    figure_of_merit_context("latency-bytes", regex=COLLECTIVE, output_format="Bytes: {bytes} (Latency)")
    figure_of_merit_context("bw-bytes", regex=PINGPONG, output_format="Bytes: {bytes} (BW)")
    figure_of_merit_context("band-bytes", regex=BAND, output_format="Bytes: {bytes} (Band)")
    figure_of_merit_context("combo-bytes", regex=COMBINED, output_format="Bytes: {bytes} (Combo)")

    for _stat, _group in STATS:
        figures_of_merit((f"Latency {_stat}", COLLECTIVE, _group, "usec"), contexts=["latency-bytes"])
        figures_of_merit((f"Combo {_stat} time", COMBINED, _group, "usec"), contexts=["combo-bytes"])
    figures_of_merit(
        ("Bandwidth", PINGPONG, "bw", "Mbytes/sec"),
        ("Time", PINGPONG, "t", "usec"),
        contexts=["bw-bytes"],
    )
    figures_of_merit(("Combo", COMBINED, "bw", "Mbytes/sec"), contexts=["combo-bytes"])
    figures_of_merit(
        ("Band bandwidth", BAND, "bw", "Mbytes/sec"),
        ("Message rate", BAND, "rate", "Msg/sec"),
        contexts=["band-bytes"],
    )
    # Barrier's table has no size column: #repetitions t_min[usec] t_max[usec] t_avg[usec].
    for _stat, _group in STATS:
        figure_of_merit(f"Barrier latency {_stat}", fom_regex=BARRIER, group_name=_group, units="usec")
    # "# #processes = 2" heads each table (IMB runs one table per process count from -npmin up).
    figure_of_merit("Processes", fom_regex=r"^#\s*#processes\s*=\s*(?P<n>[0-9]+)", group_name="n", units="")

    log_criteria(
        LOG,
        # IMB's last line, after every benchmark it ran.
        completed=r"^# All processes entering MPI_Finalize",
        # A table IMB could not finish, or its own fatal error.
        no_errors=absent(r"(?i)^(.*Fatal error|# Error)"),
        finite_values=absent(r"(?i)^\s+[0-9]+\s+[0-9]+\s+.*\b(nan|inf)\b"),
        # IMB runs its whole list when it does not know a name (a typo): the experiment counts only
        # if IMB ran the benchmark it asked for, and nothing else.
        requested_benchmark_ran=r"(?i)^# Benchmarking (?:{imb_benchmark})\s*$",
        requested_benchmark_only=absent(r"(?i)^# Benchmarking (?!(?:{imb_benchmark})\s*$)"),
    )


# The builtin also pins Intel MPI 2018 built with gcc 9.3.0: neither is what the studies use
# nor installable here. The MPI comes from Spack (its default provider) or the workspace.
del IntelMpiBenchmarks.software_specs["impi2018"]
del IntelMpiBenchmarks.compilers["gcc9"]
