import re

from hpcaas_kit import *
from ramble.app.builtin.streamc import Streamc as BuiltinStreamc
from ramble.appkit import *
from ramble.expander import Expander

# The kernels' table. CPU builds (stream.c 5.10: "Copy:  20005.0  0.013100 ...", 5.9 and
# stream.f: "Copy:  9645.7826  .0034 ...") print MB/s and times with at most 6 decimals;
# the CUDA port (cuda-stream: " STREAM Benchmark implementation in CUDA") prints GB/s or GiB/s
# (its header says which) and times with 8 decimals. Ramble expands "{...}" in a regex as a
# variable or an expression, so "{8}" became "8" (no cuda-stream row ever matched): "{8,8}".
CPU_TIME = r"[0-9]*\.[0-9]{1,6}"
GPU_TIME = r"[0-9]+\.[0-9]{8,8}"


# BabelStream (UoB-HPC; "GPU-STREAM" before 3.0): another program (its own kernels Copy, Mul, Add,
# Triad, Dot; CUDA, HIP, OpenCL, OpenMP, Kokkos... builds) measuring the same bandwidth, a variant
# of this application: its table "Function MBytes/sec Min (sec) Max Average" has rows without a
# colon, the rate from the minimum time, e.g. "Triad       551871.137  0.00146     0.00146     0.00146".
BABEL_KERNELS = ("Copy", "Mul", "Add", "Triad", "Dot")


def babel_line(op):
    """BabelStream's table row of kernel `op`."""
    return rf"^{op}\s+(?P<rate>{NUM})\s+(?P<min>{NUM})\s+(?P<max>{NUM})\s+(?P<avg>{NUM})\s*$"


def unnamed(regex):
    """`regex` without its group names (several in one alternation)."""
    return re.sub(r"\(\?P<\w+>", "(", regex)


def kernel_line(op, time):
    """The table's line of kernel `op`, its times in the `time` format."""
    return rf"^\s*{op}:\s+(?P<rate>{NUM})\s+(?P<avg>{time})\s+(?P<min>{time})\s+(?P<max>{time})\s*$"


class Stream(BuiltinStreamc):
    """STREAM (C and Fortran versions), named after Spack's `stream` package, for S5's node
    bandwidth.

    Ramble's builtin is `streamc`. STREAM fixes its array size and repeat count at compile time,
    so here they are workload variables that go into the Spack spec (variants of Spack's `stream`):
    each size is its own build, in its own environment (env_name names the size). Success:
    STREAM's validation line (any STREAM_TYPE's tolerance; the builtin's only accepts double's
    1e-13), and no "Failed Validation". GPU variants' output is read too: cuda-stream's table (it
    does not validate: its last row is the completion) and BabelStream's (its own kernels, FOMs
    named "<kernel> BabelStream ...", its check's "Validation failed on ..." a failure).
    """

    name = "stream"

    maintainers("hpcaas-bench")

    software_spec(
        "stream-{array_size}-{ntimes}",
        pkg_spec="stream@5.10 +openmp stream_array_size={array_size} ntimes={ntimes}",
        package_manager="spack*",
    )

    run_start_regex = r"^\s*(?:STREAM (?:[Vv]ersion \$Revision|Benchmark implementation)|BabelStream$|GPU-STREAM$)"

    workload("standard", executable="execute_c")
    workload("local", executable="execute_c", tags=["catalog"])

    all_workloads = ["streamc", "standard", "local"]
    # STREAM's rule: each array at least 4x the last-level caches. 80M doubles (1.8 GiB in all)
    # is the builtin's size; 10M (229 MiB) runs in about a second on a small machine.
    for workloads, size in ((["streamc", "standard"], "80000000"), (["local"], "10000000")):
        workload_variable(
            "array_size",
            default=size,
            workloads=workloads,
            description="STREAM_ARRAY_SIZE: elements per array (3 arrays; a build per value)",
        )
    workload_variable(
        "ntimes",
        default="20",
        workloads=all_workloads,
        description="NTIMES: repetitions of each kernel; the best is reported",
    )
    environment_variable("OMP_NUM_THREADS", "{n_threads}", description="OpenMP threads", workloads=all_workloads)

    def set_variables(self, variables, experiment_set):
        # Ramble's default environment is one per application, but each size is its own build:
        # one environment per size unless the workspace names one. A workload variable cannot
        # change env_name's default (Ramble sets it before the application's), and Ramble keeps
        # the first expansion of the environment's path, made before it applies the workload's
        # defaults: the size's variables get their defaults here, as Ramble would later.
        super().set_variables(variables, experiment_set)
        if self.variables.get("env_name") == Expander.expansion_str("application_name"):
            self.variables["env_name"] = "stream-{array_size}-{ntimes}"
            workload = self.workloads.get(self.expander.workload_name)
            for name in ("array_size", "ntimes"):
                if workload and name not in self.variables and name in workload.variables:
                    self.variables[name] = workload.variables[name].default

    # The run's shape, as each version prints it (stream.f with a leading space).
    figures_of_merit(
        ("Array size", r"^\s*Array size\s*=\s*(?P<v>[0-9]+)", "elements"),
        ("Offset", r"^\s*(?:Array size.*, )?Offset\s*=\s*(?P<v>[0-9]+)", "elements"),
        ("Bytes per element", r"^(?:This system uses|\s*Assuming) (?P<v>[0-9]+) bytes per", "bytes"),
        ("Array memory", r"^Memory per array\s+=\s+(?P<v>" + NUM + r") MiB", "MiB"),
        ("Total memory", r"^Total memory required\s+=\s+(?P<v>" + NUM + r") MiB", "MiB"),
        (
            "Number of iterations per thread",
            r"^(?:Each kernel will be executed|Each test is run|\s*You are "
            r"running each test)\s+(?P<v>[0-9]+) times",
            "",
        ),
        ("Threads requested", r"^Number of Threads requested\s*=\s*(?P<v>[0-9]+)", ""),
        ("Number of threads", r"^\s*Number of Threads(?: counted)?\s*=\s*(?P<v>[0-9]+)", ""),
        # stream_mpi.c: the aggregate size over its ranks, "timer" for "clock".
        ("Aggregate array size", r"^Total Aggregate Array size\s*=\s*(?P<v>[0-9]+)", "elements"),
        ("MPI ranks", r"^Data is distributed across (?P<v>[0-9]+) MPI ranks", ""),
        ("Array size per rank", r"^\s*Array size per MPI rank\s*=\s*(?P<v>[0-9]+)", "elements"),
        (
            "Clock granularity",
            r"^\s*Your (?:clock|timer) granularity/precision appears to be\s+(?P<v>[0-9]+) microseconds",
            "microseconds",
        ),
        (
            "Test duration estimate",
            r"^Each test below will take on the order of (?P<v>[0-9]+) microseconds",
            "microseconds",
        ),
        ("Validation tolerance", r"^Solution Validates: avg error less than (?P<v>" + NUM + ")", ""),
        # cuda-stream: " Array size (double precision) = 536.87 MB", " using 512 threads per block, 131072 blocks"
        ("GPU array memory", r"^\s*Array size \((?:double|single) precision\)\s*=\s*(?P<v>" + NUM + ") MB", "MB"),
        ("GPU threads per block", r"^\s*using (?P<v>[0-9]+) threads per block", ""),
        ("GPU blocks", r"^\s*using [0-9]+ threads per block, (?P<v>[0-9]+) blocks", ""),
        group_name="v",
    )

    # cuda-stream prints its rate unit (GB/s with -s, else GiB/s) only in the table's header:
    # the GPU rates carry it as their context.
    figure_of_merit_context("gpu-rate-unit", regex=r"^Function\s+Rate \((?P<unit>Gi?B/s)\)", output_format="{unit}")
    for op in ("Copy", "Scale", "Add", "Triad"):
        cpu, gpu = kernel_line(op, CPU_TIME), kernel_line(op, GPU_TIME)
        for what, group, units in (
            ("top rate", "rate", "MB/s"),
            ("average time", "avg", "s"),
            ("min time", "min", "s"),
            ("max time", "max", "s"),
        ):
            figure_of_merit(f"{op} {what}", fom_regex=cpu, group_name=group, units=units)
            figure_of_merit(
                f"{op} GPU {what}",
                fom_regex=gpu,
                group_name=group,
                units="" if group == "rate" else units,
                contexts=["gpu-rate-unit"] if group == "rate" else [],
            )

    # BabelStream: the run's shape and each kernel's row.
    figures_of_merit(
        ("BabelStream kernel repetitions", r"^Running kernels (?P<v>[0-9]+) times", ""),
        ("BabelStream array memory", r"^Array size: (?P<v>" + NUM + r") MB", "MB"),
        ("BabelStream total memory", r"^Total size: (?P<v>" + NUM + r") MB", "MB"),
        group_name="v",
    )
    for op in BABEL_KERNELS:
        for what, group, units in (
            ("top rate", "rate", "MB/s"),
            ("min time", "min", "s"),
            ("max time", "max", "s"),
            ("average time", "avg", "s"),
        ):
            figure_of_merit(f"{op} BabelStream {what}", fom_regex=babel_line(op), group_name=group, units=units)

    log_criteria(
        LOG,
        # The completion line of each version: the validation verdict (C, Fortran), the table's
        # last line (cuda-stream, which does not validate), BabelStream's Triad row (its table,
        # printed after its own check, ends with Dot, or is Triad's alone with --triad-only).
        completed="|".join(
            (r"^\s*Solution Validates", unnamed(kernel_line("Triad", GPU_TIME)), unnamed(babel_line("Triad")))
        ),
        # STREAM's "Failed Validation"; BabelStream's check prints "Validation failed on a[]. Average
        # error ..." (and on b[], c[], sum) before its table.
        verified=absent(r".*(?:Failed Validation|Validation failed on )"),
        finite_values=absent(r"(?i)^\s*(Copy|Scale|Add|Triad|Mul|Dot):?\s.*\b(nan|inf)\b"),
    )


# Replaced by the sized spec above (the builtin's fixes one size in cflags and pins gcc 12).
del Stream.software_specs["streamc"]
del Stream.compilers["gcc12"]
del Stream.success_criteria["valid"]
