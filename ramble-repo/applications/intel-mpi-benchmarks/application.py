from ramble.appkit import *
from ramble.app.builtin.intel_mpi_benchmarks import IntelMpiBenchmarks as BuiltinImb
from ramble.expander import Expander

LOG = Expander.expansion_str("log_file")

# IMB-MPI1 tables, one row per message size:
#   PingPong/PingPing:       #bytes #repetitions      t[usec]   Mbytes/sec
#   collectives:             #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]
#   Sendrecv/Exchange:       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]   Mbytes/sec
ROW = r"^\s+(?P<bytes>\d+)\s+(?P<repetitions>\d+)\s+"
PINGPONG = ROW + r"(?P<t>\d+\.\d+)\s+(?P<bw>\d+\.\d+)\s*$"
COLLECTIVE = ROW + r"(?P<t_min>\d+\.\d+)\s+(?P<t_max>\d+\.\d+)\s+(?P<t_avg>\d+\.\d+)\s*$"
COMBINED = ROW + r"(?P<t_min>\d+\.\d+)\s+(?P<t_max>\d+\.\d+)\s+(?P<t_avg>\d+\.\d+)\s+(?P<bw>\d+\.\d+)\s*$"


class IntelMpiBenchmarks(BuiltinImb):
    """Intel MPI Benchmarks (IMB-MPI1) for S5 (Sendrecv, Alltoallv, Allgatherv at 128 KiB and
    1 MiB) and S4 (Alltoall at 16 B and 256 KiB); PingPong for point-to-point checks.

    Differs from Ramble's builtin (named IntelMpiBenchmarks there): the name is the Spack
    package's; a "sendrecv" workload; the collective table's columns are read in IMB's order
    (t_min, t_max, t_avg: the builtin reported t_max as "Latency avg"); and a run succeeds
    only if IMB reached MPI_Finalize having run the requested benchmark and nothing else
    (IMB runs its whole list when it does not know a name, e.g. a typo).
    """

    name = "intel-mpi-benchmarks"

    maintainers("hpcaas-bench")

    define_compiler("gcc12", pkg_spec="gcc@12.2.0", package_manager="spack*")
    software_spec("intel-mpi-benchmarks", pkg_spec="intel-mpi-benchmarks@2021.7",
                  compiler="gcc12", package_manager="spack*")

    executable(
        "sendrecv",
        "{install_path}/IMB-MPI1 Sendrecv -msglog {msglog_min}:{msglog_max} "
        "-iter {num_iterations} -npmin {n_ranks} {additional_args}",
        use_mpi=True,
    )
    workload("sendrecv", executable="sendrecv")
    workload_group("mpi1", workloads=["sendrecv"], mode="append")
    # The builtin gives this to workloads=["*"]: those that existed before this class added one.
    workload_variable("install_path", default="{intel-mpi-benchmarks_path}/bin", workloads=["sendrecv"],
                      description="Directory holding IMB-MPI1")

    for workload_name, benchmark in (("pingpong", "{pingpong_type}"), ("collective", "{collective_type}"),
                                     ("exchange", "Exchange"), ("sendrecv", "Sendrecv"),
                                     ("multi-pingpong", "(Multi-)?PingPong")):
        workload_variable("imb_benchmark", default=benchmark, workloads=[workload_name],
                          description="The one benchmark this run must show in IMB's output "
                                      "(a case-insensitive regular expression)")

    figure_of_merit_context("latency-bytes", regex=COLLECTIVE, output_format="Bytes: {bytes} (Latency)")
    figure_of_merit_context("bw-bytes", regex=PINGPONG, output_format="Bytes: {bytes} (BW)")
    figure_of_merit_context("combo-bytes", regex=COMBINED, output_format="Bytes: {bytes} (Combo)")

    for fom, group in (("Latency min", "t_min"), ("Latency max", "t_max"), ("Latency avg", "t_avg")):
        figure_of_merit(fom, log_file=LOG, fom_regex=COLLECTIVE, group_name=group, units="usec",
                        contexts=["latency-bytes"])
        figure_of_merit(f"Combo {fom.split()[1]} time", log_file=LOG, fom_regex=COMBINED,
                        group_name=group, units="usec", contexts=["combo-bytes"])
    figure_of_merit("Bandwidth", log_file=LOG, fom_regex=PINGPONG, group_name="bw",
                    units="Mbytes/sec", contexts=["bw-bytes"])
    figure_of_merit("Time", log_file=LOG, fom_regex=PINGPONG, group_name="t", units="usec",
                    contexts=["bw-bytes"])
    figure_of_merit("Combo", log_file=LOG, fom_regex=COMBINED, group_name="bw",
                    units="Mbytes/sec", contexts=["combo-bytes"])

    success_criteria("finalized", mode="string", match=r"^# All processes entering MPI_Finalize",
                     file=LOG)
    success_criteria("requested-benchmark-ran", mode="string", file=LOG,
                     match=r"(?i)^# Benchmarking (?:{imb_benchmark})\s*$")
    success_criteria("only-requested-benchmark", mode="string", file=LOG,
                     anti_match=r"(?i)^# Benchmarking (?!(?:{imb_benchmark})\s*$)")


# The builtin also pins Intel MPI 2018 built with gcc 9.3.0: neither is what the studies use
# nor installable here. The MPI comes from Spack (its default provider) or the workspace.
del IntelMpiBenchmarks.software_specs["impi2018"]
del IntelMpiBenchmarks.compilers["gcc9"]
