from ramble.appkit import *
from ramble.app.builtin.streamc import Streamc as BuiltinStreamc
from ramble.expander import Expander

LOG = Expander.expansion_str("log_file")


class Stream(BuiltinStreamc):
    """STREAM (C version), named after Spack's `stream` package, for S5's node bandwidth.

    Ramble's builtin is `streamc`. STREAM fixes its array size and repeat count at compile time,
    so here they are workload variables that go into the Spack spec (variants of Spack's `stream`):
    each size is its own build. The success criterion accepts any STREAM_TYPE's tolerance
    (the builtin's only accepts double's 1e-13) and a "Failed Validation" line fails the run.
    """

    name = "stream"

    maintainers("hpcaas-bench")

    # One build per size, named after it. A workspace that runs several sizes also needs an
    # environment per size: give each size's experiments their own env_name (e.g. stream-local).
    software_spec(
        "stream-{array_size}-{ntimes}",
        pkg_spec="stream@5.10 +openmp stream_array_size={array_size} ntimes={ntimes}",
        compiler="gcc12",
        package_manager="spack*",
    )

    workload("standard", executable="execute_c")
    workload("local", executable="execute_c")

    all_workloads = ["streamc", "standard", "local"]
    # STREAM's rule: each array at least 4x the last-level caches. 80M doubles (1.8 GiB in all)
    # is the builtin's size; 10M (229 MiB) runs in about a second on a small machine.
    for workloads, size in ((["streamc", "standard"], "80000000"), (["local"], "10000000")):
        workload_variable("array_size", default=size, workloads=workloads,
                          description="STREAM_ARRAY_SIZE: elements per array (3 arrays; a build per value)")
    workload_variable("ntimes", default="20", workloads=all_workloads,
                      description="NTIMES: repetitions of each kernel; the best is reported")
    environment_variable("OMP_NUM_THREADS", "{n_threads}", description="OpenMP threads",
                         workloads=all_workloads)

    # The builtin keeps only the integer part of "Memory per array = 76.3 MiB".
    figure_of_merit("Array memory", log_file=LOG,
                    fom_regex=r"Memory per array\s+=\s+(?P<array_mem>[0-9.]+) MiB",
                    group_name="array_mem", units="MiB")

    success_criteria("valid", mode="string", file=LOG,
                     match=r"Solution Validates: avg error less than \S+ on all three arrays")
    success_criteria("no-failed-validation", mode="string", file=LOG,
                     anti_match=r".*Failed Validation")


# Replaced by the sized spec above (the builtin's fixes one size in cflags).
del Stream.software_specs["streamc"]
