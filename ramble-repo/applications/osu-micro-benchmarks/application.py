from ramble.appkit import *
from ramble.app.builtin.osu_micro_benchmarks import OsuMicroBenchmarks as BuiltinOsu
from ramble.expander import Expander

LOG = Expander.expansion_str("log_file")

# The studies' four benchmarks, and the largest message size each prints by default.
STUDY_BENCHMARKS = {"osu_latency": "4194304", "osu_bw": "4194304", "osu_bibw": "4194304",
                    "osu_alltoall": "1048576"}


class OsuMicroBenchmarks(BuiltinOsu):
    """OSU Micro-Benchmarks: S2/S4 latency and bandwidth (osu_latency, osu_bw, osu_bibw at 2
    ranks on 2 nodes) and S4's osu_alltoall.

    Ramble's builtin has no success criterion: a run that crashed or was killed halfway through
    its table still counted. Here the studies' workloads pass their message-size range to the
    benchmark (-m min:max) and succeed only if the table reached the largest size and no
    validation (-c) reported Fail. FOMs per message size are the builtin's.
    """

    name = "osu-micro-benchmarks"

    maintainers("hpcaas-bench")

    software_spec("osu-micro-benchmarks", pkg_spec="osu-micro-benchmarks@7.5", compiler="gcc",
                  package_manager="spack*")

    for benchmark, max_size in STUDY_BENCHMARKS.items():
        executable(f"execute-{benchmark}",
                   template=f"{benchmark} -m {{min_msg_size}}:{{max_msg_size}} {{additional_args}}",
                   use_mpi=True)
        workload_variable("max_msg_size", default=max_size, workloads=[benchmark],
                          description="Largest message size in bytes (-m MIN:MAX); the run must reach it")
        workload_variable("min_msg_size", default="1", workloads=[benchmark],
                          description="Smallest message size in bytes (-m MIN:MAX)")

    success_criteria("reached-max-size", mode="string", file=LOG,
                     match=r"^{max_msg_size}\s+[0-9.]+")
    success_criteria("no-validation-failure", mode="string", file=LOG, anti_match=r".*\sFail\s*$")
