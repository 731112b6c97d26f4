import os

from ramble.app.hpcaas.hpcc import HPCCINF_LINES, NAMED_RESULTS
from ramble.app.hpcaas.hpl import RESULT, hpl_dat_lines, hpl_variables
from ramble.app.hpcaas.montecarlo import *
from ramble.app.hpcaas.stream import CPU_TIME, kernel_line
from ramble.appkit import *

# The tools of the suite, in the order suite.sh runs them on a node, then between nodes.
NODE_TOOLS = ("hpl", "hpcc", "stream", "fio")
NETWORK_TOOLS = ("osu_latency", "osu_bw", "osu_allreduce")

# One section per node, pair of nodes and the whole allocation: "== node n1 ==", "== pair n1-n2 ==",
# "== all n1,n2 ==". Every FOM is in the section's context ("node n1").
SECTION = r"^== (?P<scope>node|pair|all) (?P<where>\S+) ==$"


def line(tool, regex):
    """A regex of a tool's line in the results file (suite.sh puts "<tool>| " in front)."""
    return rf"^{tool}\| " + regex.removeprefix("^")


HPCC_UNITS = dict(NAMED_RESULTS)
NUM = r"[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?"
# fio's terse format (version 3): field 3 the job's name, 7 its read bandwidth, 48 its write
# bandwidth, in KiB/s. The fields between are spelled out: Ramble would read a {n} quantifier
# as a variable.
FIELD = "[^;]*;"
FIO_READ = line("fio", r"3;fio-[^;]*;read;" + FIELD * 3 + r"(?P<v>[0-9]+);")
FIO_WRITE = line("fio", r"3;fio-[^;]*;write;" + FIELD * 44 + r"(?P<v>[0-9]+);")


def osu_row(tool, size):
    """The row of message size `size` of an OSU table."""
    return line(tool, rf"\s*{size}\s+(?P<v>{NUM})\s*$")


class NodeValidation(ExecutableApplication):
    """The validation suite of one allocation (make validate): every node's single-node suite at
    once, each node's parts one after the other: its inventory, HPL and HPCC (DGEMM) sized to
    approach the node's peak, STREAM with arrays out of the last-level cache, fio's write and
    read bandwidth on the scratch file system; then OSU latency and bandwidth between each pair
    of neighbouring nodes and one Allreduce over all of them.

    One experiment is one job over the whole allocation: suite.sh (beside this file) runs each
    part as a job step on its node (srun -w), so a repeat measures every node at the same time
    under the same load. Its results file has one section per node, pair and the allocation,
    and every FOM is in its section's context ("node n2"). A tool whose own output says it
    failed (the criteria of its own application: HPL's residual checks, HPCC's checks, STREAM's
    validation, ...) leaves its output out of the results and its status `<tool> ok` 0, so a
    failed part of one node is FAILED for that node while the other nodes still count. The
    experiment itself succeeds when the suite reached its end. `fault` and `faulty_node` inject a
    fault on one node (suite.sh task: slowblas, tcp, kill, corunner<percent>, membw).
    """

    name = "node-validation"

    maintainers("hpcaas-bench")

    tags("validation", "hpl", "dgemm", "stream", "io", "mpi")

    spack_package("hpl", "hpl@2.3")
    spack_package("hpcc", "hpcc@1.5.0")
    spack_package("stream", "stream@5.10 +openmp")
    spack_package("fio", "fio@3.33")
    spack_package("osu-micro-benchmarks", "osu-micro-benchmarks@5.3")

    executable(
        "write-inputs",
        template=[
            printf_command(hpl_dat_lines(), "{experiment_run_dir}/HPL.dat"),
            printf_command(
                hpl_dat_lines(Ns="{hpcc_n}", device_out="8") + HPCCINF_LINES[-4:], "{experiment_run_dir}/hpccinf.txt"
            ),
        ],
        use_mpi=False,
        redirect="",
    )
    # The system's MPI launcher as a shell function suite.sh calls for each job step (in
    # parentheses: braces would be Ramble's; the ';' keeps Ramble from reading an empty launcher
    # as a Python call), without Ramble's redirection, which would follow the function into
    # every call.
    executable(
        "define-launcher",
        template=['launch() ( {mpi_command} "$@"; )', "export -f launch"],
        use_mpi=False,
        redirect="",
    )
    executable(
        "suite",
        template=[
            "cp {suite_script} {corunner_script} {experiment_run_dir}/",
            "PPN={processes_per_node} CORES={cores_per_node} HPL_N={hpl_n} HPCC_N={hpcc_n} FIO_SIZE={fio_size} "
            "SCRATCH='{scratch_dir}' FAULT='{fault}' FAULT_NODE='{faulty_node}' FABRIC='{fabric}' "
            "bash {experiment_run_dir}/suite.sh {results_file}",
        ],
        use_mpi=False,
    )

    run_start_regex = r"^suite: [0-9]+ node\(s\)"

    # Not in the catalog (README item 8): a suite of five tools, each of which the catalog builds
    # and runs on its own where it has an application (hpl, hpcc, stream, osu-micro-benchmarks).
    # Its defaults are small; make validate sizes it from the system's facts.
    workload("suite", executables=["write-inputs", "define-launcher", "suite"])
    hpl_variables(["suite"], hpl_n="2000", hpl_nb="192", hpl_p="1", hpl_q="{processes_per_node}", hpl_threshold="16.0")
    workload_variables(
        ("hpcc_n", "2000", "HPCC's problem size N: its DGEMM runs on matrices of N / sqrt(3 x ranks per node)"),
        ("fio_size", "256M", "the file fio writes, then reads, on each node (direct I/O)"),
        ("scratch_dir", "{experiment_run_dir}", "the file system fio measures: a folder every node can write"),
        ("fault", "none", "a fault injected on faulty_node (suite.sh task: slowblas, tcp, kill, corunner<%>, membw)"),
        ("faulty_node", "none", "the node the fault is injected on"),
        ("results_file", "{experiment_run_dir}/suite.txt", "the suite's results, one section per node and pair"),
        workload="suite",
    )

    def set_variables(self, variables, experiment_set):
        # The job's driver, beside this file (Ramble reads an application without __file__): it
        # runs every node's parts at once as job steps and writes the results file in sections.
        # The job runs a copy in its run directory: bash reads a script as it goes, so an edit
        # during a run would change it midway, and the copy says what ran.
        super().set_variables(variables, experiment_set)
        here = os.path.dirname(self._file_path)
        self.variables["suite_script"] = os.path.join(here, "suite.sh")
        self.variables["corunner_script"] = os.path.join(here, "corunner.py")  # suite.sh's fault co-runner

    log_criteria(RESULTS, completed=r"^== suite done ==$")

    figure_of_merit_context("section", regex=SECTION, output_format="{scope} {where}")
    figures_of_merit(
        ("HPL GFlops", line("hpl", RESULT), "gflops", "GFLOP/s"),
        *[
            (m, line("hpcc", rf"{m}=(?P<v>{NUM})\s*$"), "v", HPCC_UNITS[m])
            for m in ("StarDGEMM_Gflops", "SingleDGEMM_Gflops", "StarSTREAM_Triad", "HPL_Tflops")
        ],
        ("Triad top rate", line("stream", kernel_line("Triad", CPU_TIME)), "rate", "MB/s"),
        ("fio write bandwidth", FIO_WRITE, "v", "KiB/s"),
        ("fio read bandwidth", FIO_READ, "v", "KiB/s"),
        ("osu_latency 8 B", osu_row("osu_latency", 8), "v", "us"),
        ("osu_bw 4 MiB", osu_row("osu_bw", 4194304), "v", "MB/s"),
        ("osu_allreduce 8 B", osu_row("osu_allreduce", 8), "v", "us"),
        ("osu_allreduce 1 MiB", osu_row("osu_allreduce", 1048576), "v", "us"),
        *[(f"{t} ok", rf"^status\| {t} ok=(?P<v>[01])$", "v", "") for t in NODE_TOOLS + NETWORK_TOOLS],
        *[(f"{t} CPU share", rf"^cpu\| {t} share=(?P<v>{NUM})$", "v", "") for t in NODE_TOOLS + NETWORK_TOOLS],
        log_file=RESULTS,
        contexts=["section"],
    )
