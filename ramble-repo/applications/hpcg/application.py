from ramble.appkit import *
from ramble.app.builtin.hpcg import Hpcg as BuiltinHpcg
from ramble.expander import Expander

OUT = Expander.expansion_str("out_file")

# HPCG 3.1 writes "Section::Key=value" (HPCG-Benchmark_3.1_<date>.txt); HPCG 3.0, which S5
# used, writes YAML "  Key: value" (HPCG-Benchmark-3.0_<date>.yaml). Each regex reads both.
SEP = r"\s*[=:]\s*"
NUM = r"(?P<value>[0-9.]+(?:[eE][+-]?[0-9]+)?)"


def line(key, section):
    """`section::key=value` (3.1) or `  key: value` (3.0, under a section header line)."""
    return r"^(?:" + section + r"::|\s+)" + key + SEP + NUM


class Hpcg(BuiltinHpcg):
    """HPCG for S5: local grid 64^3 per process, and a small local size for quick checks.

    Extends Ramble's builtin with HPCG 3.0's YAML output (S5's version) next to 3.1's, FOMs
    for the run's shape (processes, threads, local grid), and a success criterion: HPCG's own
    verdict VALID. A crashed run (e.g. a local size that is not a multiple of 8 trips
    GenerateCoarseProblem's `nxf%2==0` assertion) writes no result file and fails.
    AVX2 vs AVX-512 is the Spack target of the hpcg build (target=...), not an app variable.
    """

    name = "hpcg"

    maintainers("hpcaas-bench")

    define_compiler("gcc12", pkg_spec="gcc@12.2.0", package_manager="spack*")
    software_spec("hpcg", pkg_spec="hpcg@3.1 +openmp", compiler="gcc12", package_manager="spack*")

    # 3.1's file ends in .txt, 3.0's in .yaml: take whichever this version wrote.
    executable("move-log", "mv HPCG-Benchmark* {out_file}", use_mpi=False)

    workload("grid64", executables=["execute", "move-log"])
    workload("local", executables=["execute", "move-log"])

    for workloads, size, seconds in ((["standard"], "104 104 104", "60"),
                                     (["grid64"], "64 64 64", "60"),
                                     (["local"], "16 16 16", "5")):
        workload_variable("matrix_size", default=size, workloads=workloads,
                          description="Local grid per MPI process: nx ny nz, each a multiple of 8 "
                                      "and at least 16 (HPCG's multigrid needs 3 coarsenings)")
        # The builtin calls this "iterations"; HPCG reads it as a time.
        workload_variable("iterations", default=seconds, workloads=workloads,
                          description="Benchmark run time in seconds (hpcg.dat line 4); "
                                      "an official result needs at least 1800")
    workload_variable("out_file", default="{experiment_run_dir}/hpcg_result.out",
                      workloads=["grid64", "local"],
                      description="Where HPCG's result file is moved after the run")

    status = r"^(?:Final Summary::|\s+)HPCG result is[=: ]*(?P<status>VALID|INVALID)"
    figure_of_merit("Status", log_file=OUT, fom_regex=status, group_name="status", units="")
    figure_of_merit("Gflops", log_file=OUT, group_name="value", units="GFLOP/s",
                    fom_regex=r"^(?:Final Summary::|\s+)HPCG result is VALID with a GFLOP/s rating of"
                              + SEP + NUM)
    figure_of_merit("HPCG 2.4 Rating", log_file=OUT, group_name="value", units="GFLOP/s",
                    fom_regex=r"^(?:Final Summary::|\s+)HPCG 2\.4 [Rr]ating[^=:]*" + SEP + NUM)
    # 3.1 prints the total benchmark time unambiguously; 3.0's "Total:" is also a FLOP count,
    # so for 3.0 the final summary's time (printed for runs shorter than 1800 s) is used.
    figure_of_merit("Time", log_file=OUT, group_name="value", units="s",
                    fom_regex=r"^(?:Benchmark Time Summary::Total=|\s+Results are valid but "
                              r"execution time \(sec\) is: )" + NUM)
    figure_of_merit("Distributed processes", log_file=OUT, group_name="value", units="",
                    fom_regex=line("Distributed Processes", "Machine Summary"))
    figure_of_merit("Threads per process", log_file=OUT, group_name="value", units="",
                    fom_regex=line("Threads per processes", "Machine Summary"))
    for axis in ("nx", "ny", "nz"):
        figure_of_merit(f"Local {axis}", log_file=OUT, group_name="value", units="",
                        fom_regex=line(axis, "Local Domain Dimensions"))

    success_criteria("valid", mode="string", file=OUT, match=status.replace("VALID|INVALID", "VALID"))


# The builtin also pins Intel MPI 2018 built with gcc 9.3.0: neither is what the studies use
# nor installable here. The MPI comes from Spack (its default provider) or the workspace.
del Hpcg.software_specs["impi2018"]
del Hpcg.compilers["gcc9"]
