import os
import re

from hpcaas_kit import *
from ramble.app.builtin.hpcg import Hpcg as BuiltinHpcg
from ramble.appkit import *

# Every number of HPCG's result file, as (FOM name, HPCG 3.1's Section::Key, unit); the name is
# HPCG's own path unless the builtin named it. Vendor builds (NVIDIA's, Intel's) print the same
# sections, e.g. "GFLOP/s Summary::Raw Total" and "GB/s Summary::Raw Total B/W" by the rating.
SECTION_KEYS = [
    ("Distributed processes", "Machine Summary::Distributed Processes", ""),
    ("Threads per process", "Machine Summary::Threads per processes", ""),
    *[(f"Global {a}", f"Global Problem Dimensions::Global {a}", "") for a in ("nx", "ny", "nz")],
    *[(f"Processes {a}", f"Processor Dimensions::{a}", "") for a in ("npx", "npy", "npz")],
    *[(f"Local {a}", f"Local Domain Dimensions::{a}", "") for a in ("nx", "ny", "nz")],
    ("Local lower ipz", "Local Domain Dimensions::Lower ipz", ""),
    ("Local upper ipz", "Local Domain Dimensions::Upper ipz", ""),
    ("Setup time", "Setup Information::Setup Time", "s"),
    ("Number of equations", "Linear System Information::Number of Equations", ""),
    ("Number of nonzero terms", "Linear System Information::Number of Nonzero Terms", ""),
    ("Coarse grid levels", "Multigrid Information::Number of coarse grid levels", ""),
    ("Memory for data", r"Memory Use Information::Total memory used for data \(Gbytes\)", "GB"),
    (
        "Memory for OptimizeProblem data",
        r"Memory Use Information::Memory used for OptimizeProblem data \(Gbytes\)",
        "GB",
    ),
    (
        "Bytes per equation",
        r"Memory Use Information::Bytes per equation \(Total memory / Number of Equations\)",
        "bytes",
    ),
    (
        "Memory for linear system and CG",
        r"Memory Use Information::Memory used for linear system and CG \(Gbytes\)",
        "GB",
    ),
    *[
        (f"{p} {c} iteration count", f"Spectral Convergence Tests::{p}::{c} iteration count", "")
        for p in ("Unpreconditioned", "Preconditioned")
        for c in ("Maximum", "Expected")
    ],
    ("Departure for SpMV", r"Departure from Symmetry [^=]*::Departure for SpMV", ""),
    ("Departure for MG", r"Departure from Symmetry [^=]*::Departure for MG", ""),
    ("Reference CG iterations per set", "Iteration Count Information::Reference CG iterations per set", ""),
    ("Optimized CG iterations per set", "Iteration Count Information::Optimized CG iterations per set", ""),
    ("Total reference iterations", "Iteration Count Information::Total number of reference iterations", ""),
    ("Total optimized iterations", "Iteration Count Information::Total number of optimized iterations", ""),
    ("Scaled residual mean", "Reproducibility Information::Scaled residual mean", ""),
    ("Scaled residual variance", "Reproducibility Information::Scaled residual variance", ""),
    # ALL_reduce: Intel's MKL HPCG.
    *[
        (f"Time {k}", f"Benchmark Time Summary::{k}", "s")
        for k in ("Optimization phase", "DDOT", "WAXPBY", "SpMV", "MG", "ALL_reduce")
    ],
    ("Time", "Benchmark Time Summary::Total", "s"),
    *[
        (f"FLOP {k}", f"Floating Point Operations Summary::{k}", "FLOP")
        for k in ("Raw DDOT", "Raw WAXPBY", "Raw SpMV", "Raw MG", "Total", "Total with convergence overhead")
    ],
    *[
        (f"GB/s {k}", f"GB/s Summary::{k}", "GB/s")
        for k in (
            "Raw Read B/W",
            "Raw Write B/W",
            "Raw Total B/W",
            "Total with convergence and optimization phase overhead",
        )
    ],
    *[
        (f"GFLOP/s {k}", f"GFLOP/s Summary::{k}", "GFLOP/s")
        for k in (
            "Raw DDOT",
            "Raw WAXPBY",
            "Raw SpMV",
            "Raw MG",
            "Raw Total",
            "Total with convergence overhead",
            "Total with convergence and optimization phase overhead",
        )
    ],
    ("Problem setup time", r"User Optimization Overheads::Problem setup time \(sec\)", "s"),  # Intel's
    ("Optimization phase time", r"User Optimization Overheads::Optimization phase time \(sec\)", "s"),
    (
        "Optimization vs reference SpMV+MG time",
        r"User Optimization Overheads::Optimization phase time vs reference " r"SpMV\+MG time",
        "",
    ),
    *[
        (f"{m} DDOT MPI_Allreduce time", f"DDOT Timing Variations::{m} DDOT MPI_Allreduce time", "s")
        for m in ("Min", "Max", "Avg")
    ],
    ("Gflops", "Final Summary::HPCG result is VALID with a GFLOP/s rating of", "GFLOP/s"),
    ("HPCG 2.4 Rating", r"Final Summary::HPCG 2\.4 [Rr]ating[^=]*", "GFLOP/s"),
    ("Valid run time", r"Final Summary::Results are valid but execution time \(sec\) is", "s"),
    ("Official run time minimum", r"Final Summary::Official results execution time \(sec\) must be at least", "s"),
]
# Per coarse grid level (context): 3.1 repeats these keys after each "Grid Level=<n>".
LEVEL_KEYS = [
    *[
        (f"Coarse grid {k.lower()}", f"Multigrid Information::Coarse Grids::Number of {k}", "")
        for k in ("Equations", "Nonzero Terms", "Presmoother Steps", "Postsmoother Steps")
    ],
    ("Coarse grid memory", "Memory Use Information::Coarse Grids::Memory used", "GB"),
]


# NVIDIA's HPCG binary (hpc-benchmarks, 2017 on) prints its own summary on stdout: per kernel
# "SpMV  =  178.3 GF (1123.1 GB/s Effective)   22.3 GF_per ( 140.4 GB/s Effective)" (per GPU),
# then "end of application...".
NV_KERNEL = (
    r"^(?P<kernel>SpMV|SymGS|total|final)\s*=\s*(?P<gf>" + NUM + r") GF \(\s*(?P<bw>" + NUM + r") GB/s Effective\)"
    r"\s+(?P<gfper>" + NUM + r") GF_per \(\s*(?P<bwper>" + NUM + r") GB/s Effective\)"
)
NV_SUMMARY = [
    ("NVIDIA setup time", r"^Setup time:\s*", "s"),
    ("NVIDIA optimization time", r"^Optimization time:\s*", "s"),
    ("NVIDIA benchmark elapsed time", r"^Completed Benchmarking Phase\.\.\. elapsed time:\s*", "s"),
    ("NVIDIA CG sets", r"^Number of CG sets:\s*", ""),
    ("NVIDIA iterations per set", r"^Iterations per set:\s*", ""),
    ("NVIDIA scaled residual mean", r"^scaled res mean:\s*", ""),
    ("NVIDIA scaled residual variance", r"^scaled res variance:\s*", ""),
    ("NVIDIA total time", r"^Total Time:\s*", "s"),
    ("NVIDIA setup overhead", r"^Setup\s+Overhead:\s*", "%"),
    ("NVIDIA optimization overhead", r"^Optimization\s+Overhead:\s*", "%"),
    ("NVIDIA convergence overhead", r"^Convergence\s+Overhead:\s*", "%"),
    ("NVIDIA GPU memory used", r"^Memory use:\s*", "MB"),
]


def flatten_yaml(lines):
    """HPCG 3.0's YAML result ("Section:" then "  Key: value" lines) as 3.1's "Section::Key=value"
    lines: 3.0 repeats keys under different sections (Raw DDOT is a FLOP count and a GFLOP/s
    rate), which a line alone cannot tell apart. 3.0's "__________ Final Summary __________"
    becomes 3.1's "Final Summary"."""
    out, path = [], []
    for line in lines:
        m = re.match(r"^( *)(.+?):(?: (.*?))?\s*$", line)
        if not m:
            out.append(line.rstrip("\n"))
            continue
        indent, key, value = len(m.group(1)), m.group(2).strip(), m.group(3) or ""
        key = re.sub(r"^_+ (.*) _+$", r"\1", key)
        path = [(i, k) for i, k in path if i < indent]
        out.append("::".join([k for _, k in path] + [key]) + "=" + value)
        if not value:
            path.append((indent, key))
    return [line + "\n" for line in out]


class Hpcg(BuiltinHpcg):
    """HPCG for S5: local grid 64^3 per process, and a small local size for quick checks.

    Extends Ramble's builtin with every number of HPCG's result file (3.1's Section::Key=value
    and 3.0's YAML, which S5 used and which is read as 3.1's form), and success criteria:
    HPCG's own verdict VALID and every test section PASSED. A crashed run (e.g. a local size
    that is not a multiple of 8 trips GenerateCoarseProblem's `nxf%2==0` assertion) writes no
    result file and fails. AVX2 vs AVX-512 is the Spack target of the hpcg build
    (target=...), not an application variable.
    """

    name = "hpcg"

    maintainers("hpcaas-bench")

    spack_package("hpcg", "hpcg@3.1 +openmp")

    # The result file's first line: "HPCG-Benchmark" (3.1), "HPCG-Benchmark version: 3.0",
    # Intel's "n104-8p-1t version: V3.0" or Arm's "<host>-2ranks-1threads"; NVIDIA's stdout opens
    # with "start of application".
    run_start_regex = r"^(?:HPCG-Benchmark\b|\S+ version: V3|\S+-[0-9]+ranks-[0-9]+threads$|start of application)"

    # The optimised HPCGs (PASC'19 ran them) are their vendors' binaries and names: Intel's
    # xhpcg_avx2 ... (intel-optimized-hpcg), Arm's xhpcg (hpcg-for-arm); each writes its own
    # result file name. 3.1's file ends in .txt, 3.0's in .yaml: take whichever this version wrote.
    executable("execute", "{hpcg_binary}", use_mpi=True)
    executable("move-log", "mv {hpcg_result_files} {results_file}", use_mpi=False)

    workload("standard", executables=["execute", "move-log"])
    workload("grid64", executables=["execute", "move-log"])
    workload("local", executables=["execute", "move-log"], tags=["catalog"])

    all_workloads = ["standard", "grid64", "local"]
    for workloads, size, seconds in (
        (["standard"], "104 104 104", "60"),
        (["grid64"], "64 64 64", "60"),
        (["local"], "16 16 16", "5"),
    ):
        workload_variable(
            "matrix_size",
            default=size,
            workloads=workloads,
            description="Local grid per MPI process: nx ny nz, each a multiple of 8 "
            "and at least 16 (HPCG's multigrid needs 3 coarsenings)",
        )
        # The builtin calls this "iterations"; HPCG reads it as a time.
        workload_variable(
            "iterations",
            default=seconds,
            workloads=workloads,
            description="Benchmark run time in seconds (hpcg.dat line 4); " "an official result needs at least 1800",
        )
    environment_variable(
        "OMP_NUM_THREADS", "{n_threads}", description="OpenMP threads per process", workloads=all_workloads
    )
    workload_variable(
        "hpcg_binary",
        default="xhpcg",
        workloads=all_workloads,
        description="The HPCG program: xhpcg (reference, Arm's), Intel's xhpcg_avx, xhpcg_avx2, xhpcg_skx",
    )
    workload_variable(
        "hpcg_result_files",
        default="HPCG-Benchmark*",
        workloads=all_workloads,
        description="The result file it writes (a glob): HPCG-Benchmark* (reference), "
        "n*p-*t-V*.yaml (Intel's), *_HPCG-Benchmark_*.txt (Arm's)",
    )
    workload_variable(
        "results_file",
        default="{experiment_run_dir}/hpcg_result.out",
        workloads=all_workloads,
        description="HPCG's result file, moved here after the run",
    )
    # The builtin's name for it; its FOMs are replaced below.
    workload_variable(
        "out_file",
        default="{results_file}",
        workloads=all_workloads,
        description="Same as results_file (the builtin's name)",
    )

    status = r"^Final Summary::HPCG result is[=: ]*(?P<status>VALID|INVALID)"
    figure_of_merit_context(
        "grid-level",
        regex=r"^(?:Multigrid|Memory Use) Information::Coarse Grids::" r"Grid Level=(?P<level>[0-9]+)",
        output_format="{level}",
    )
    for keys, contexts in ((SECTION_KEYS, []), (LEVEL_KEYS, ["grid-level"])):
        for fom, key, units in keys:
            figure_of_merit(
                fom,
                log_file=RESULTS,
                fom_regex=r"^" + key + rf"\s*=\s*(?P<value>{NUM})",
                group_name="value",
                units=units,
                contexts=contexts,
            )

    figure_of_merit_context("kernel", regex=NV_KERNEL, output_format="{kernel} kernel")
    figures_of_merit(
        ("NVIDIA rate", "gf", "GFLOP/s"),
        ("NVIDIA effective bandwidth", "bw", "GB/s"),
        ("NVIDIA rate per GPU", "gfper", "GFLOP/s"),
        ("NVIDIA effective bandwidth per GPU", "bwper", "GB/s"),
        log_file=RESULTS,
        fom_regex=NV_KERNEL,
        contexts=["kernel"],
    )
    for fom, prefix, units in NV_SUMMARY:
        figure_of_merit(fom, log_file=RESULTS, fom_regex=prefix + rf"(?P<value>{NUM})", group_name="value", units=units)

    log_criteria(
        RESULTS,
        # The verdict line (3.0, 3.1, Intel's), or NVIDIA's stdout end line.
        completed=r"^(Final Summary::HPCG result is|end of application\.\.\.)",
        # HPCG's verdict, where the file has one, is VALID: NVIDIA's stdout prints none (its result
        # file does), so only an INVALID verdict fails.
        verified=absent(status.replace("VALID|INVALID", "INVALID")),
        # The V&V, iteration count and reproducibility tests each print Result=PASSED or FAILED.
        tests_passed=absent(r"^[^=]*::Result\s*=\s*FAILED"),
        finite_values=absent(r"(?i)^([^=]*=\s*[-+]?(nan|inf)\s*$|(SpMV|SymGS|total|final)\s*=\s*[-+]?(nan|inf))"),
    )

    def _prepare_analysis(self, workspace, app_inst=None):
        """HPCG 3.0's YAML result is read in 3.1's form; the file as written is kept beside it (.yaml)."""
        super()._prepare_analysis(workspace, app_inst)
        path = self.expander.expand_var(RESULTS)
        if not os.path.isfile(path):
            return
        with open(path, errors="replace") as f:
            lines = f.readlines()
        # 3.0 and vendor builds based on it (Intel's MKL HPCG prints the YAML inside its output).
        if any(re.match(r"^Machine Summary:\s*$", line) for line in lines):
            os.replace(path, path + ".yaml")
            with open(path, "w") as f:
                f.writelines(flatten_yaml(lines))


# The builtin's text FOMs (the verdict VALID, the notes that reference kernels ran): the project's
# results are numbers, and the verdict is the "verified" criterion.
for _text in ("Status", "ComputeDotProductMsg", "ComputeSPMVMsg", "ComputeMGMsg", "ComputeWAXPBYMsg"):
    del Hpcg.figures_of_merit[_text]
# The builtin requires a package named hpcg in the environment; the optimised HPCGs are others
# (intel-optimized-hpcg, hpcg-for-arm), and the environment is the study's.
del Hpcg.required_packages["hpcg"]
# The builtin pins gcc 9.3.0 and Intel MPI 2018: a study or the catalog renders the system's
# compiler and MPI into the spec instead.
del Hpcg.software_specs["impi2018"]
del Hpcg.compilers["gcc9"]
