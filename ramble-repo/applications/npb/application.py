from ramble.appkit import *
from ramble.expander import Expander

LOG = Expander.expansion_str("log_file")

KERNELS = ["cg", "ep", "ft", "is", "lu", "mg"]


def result(label, group=r"\S+"):
    """A line of NPB's closing summary: ' Mop/s total     =     4780.94'."""
    return r"^\s*" + label + r"\s*=\s*(?P<value>" + group + r")\s*$"


class Npb(ExecutableApplication):
    """NAS Parallel Benchmarks, MPI version: kernels CG, EP, FT, IS, MG and the LU solver.

    S2 runs NPB 3.4 class C at 32 and 64 ranks; S4 runs NPB 3.3.1 class C at 4 ranks per node.
    The class is fixed at build time (Spack variant `classes`), so each binary is named
    <kernel>.<class>.x in 3.4 and, in 3.3.1, also by its process count (<kernel>.<class>.<n>).
    A run counts only if NPB's own verification says SUCCESSFUL.
    """

    name = "npb"

    maintainers("hpcaas-bench")

    tags("benchmark", "mpi", "cfd", "kernels")

    define_compiler("gcc12", pkg_spec="gcc@12.2.0", package_manager="spack*")
    software_spec(
        "npb",
        pkg_spec="npb@3.4.1 implementation=mpi names=cg,ep,ft,is,lu,mg classes=S,A,C",
        compiler="gcc12",
        package_manager="spack*",
    )
    required_package("npb", package_manager="spack*")

    for kernel in KERNELS:
        executable(f"execute-{kernel}", f"{kernel}.{{npb_class}}.{{npb_suffix}}", use_mpi=True)
        workload(kernel, executable=f"execute-{kernel}")

    workload_variable("npb_class", default="C", values=["S", "W", "A", "B", "C", "D", "E", "F"],
                      workloads=KERNELS,
                      description="Problem class (S: seconds on a laptop; C: the studies'); it must be "
                                  "among the `classes` the npb package was built with")
    workload_variable("npb_suffix", default="x", values=["x", "{n_ranks}"], workloads=KERNELS,
                      description="Binary name suffix: 'x' for NPB 3.4, '{n_ranks}' for NPB 3.3.1, "
                                  "whose binaries are built per process count (Spack variant `nprocs`)")

    figure_of_merit("Benchmark", fom_regex=r"^\s*(?P<value>[A-Z]+) Benchmark Completed",
                    group_name="value", log_file=LOG, units="")
    figure_of_merit("Class", fom_regex=result("Class"), group_name="value", log_file=LOG, units="")
    figure_of_merit("Size", fom_regex=result("Size", r"\S.*?"), group_name="value", log_file=LOG,
                    units="")
    figure_of_merit("Iterations", fom_regex=result("Iterations"), group_name="value", log_file=LOG,
                    units="")
    figure_of_merit("Time", fom_regex=result("Time in seconds"), group_name="value", log_file=LOG,
                    units="s")
    figure_of_merit("Total processes", fom_regex=result("Total processes"), group_name="value",
                    log_file=LOG, units="")
    figure_of_merit("Mop/s total", fom_regex=result("Mop/s total"), group_name="value",
                    log_file=LOG, units="Mop/s")
    figure_of_merit("Mop/s per process", fom_regex=result("Mop/s/process"), group_name="value",
                    log_file=LOG, units="Mop/s")
    figure_of_merit("Verification", fom_regex=result("Verification", r"\S.*?"), group_name="value",
                    log_file=LOG, units="")
    figure_of_merit("Version", fom_regex=result("Version"), group_name="value", log_file=LOG,
                    units="")

    # UNSUCCESSFUL and NOT PERFORMED do not match; neither does a run that stopped before its
    # summary (e.g. a process count the binary was not built for).
    success_criteria("verified", mode="string", match=r"^\s*Verification\s*=\s*SUCCESSFUL\s*$",
                     file=LOG)
