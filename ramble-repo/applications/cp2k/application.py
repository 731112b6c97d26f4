from ramble.appkit import *

VERSION = "2024.3"
SIZES = ["32", "64", "128", "256", "512", "1024"]


class Cp2k(ExecutableApplication):
    """CP2K Quickstep for S4 (Desmos/Angara): the liquid-water MD benchmarks of CP2K's own
    benchmarks/QS/H2O-<n>.inp, n = 32 ... 1024 molecules.

    The inputs come from the CP2K release tarball that Spack builds the pinned version from
    (same URL and sha256 as Spack's recipe). CP2K prints its timing report on stdout; the FOM
    is the "CP2K" line of that report, the whole program's time.
    """

    name = "cp2k"

    maintainers("hpcaas-bench")

    tags("molecular-dynamics", "dft", "quantum-chemistry")

    define_compiler("gcc12", pkg_spec="gcc@12.2.0", package_manager="spack*")
    software_spec("cp2k", pkg_spec=f"cp2k@{VERSION} +mpi +openmp", compiler="gcc12",
                  package_manager="spack*")
    required_package("cp2k", package_manager="spack*")

    input_file(
        "cp2k_source",
        url=f"https://github.com/cp2k/cp2k/releases/download/v{VERSION}/cp2k-{VERSION}.tar.bz2",
        sha256="a6eeee773b6b1fb417def576e4049a89a08a0ed5feffcd7f0b33c7d7b48f19ba",
        description=f"CP2K {VERSION} release (for benchmarks/QS/H2O-*.inp). Offline (Ramble then "
                    f"only says 'All fetchers failed'): save cp2k-{VERSION}.tar.bz2 as "
                    "<mirror>/cp2k/cp2k_source.tar.bz2 in a Ramble mirror (ramble mirror add <name> "
                    "file://<mirror>)",
    )

    executable("execute", "{cp2k_exe} -i {input_path}", use_mpi=True)

    workload("h2o", executables=["execute"], input="cp2k_source")
    workload_variable("molecules", default="32", values=SIZES, workload="h2o",
                      description="Water molecules in the box: H2O-<molecules>.inp")
    workload_variable("input_path", default="{cp2k_source}/benchmarks/QS/H2O-{molecules}.inp",
                      workload="h2o", description="CP2K input file")
    # Any CP2K input already on the machine, nothing downloaded (h2o needs the release tarball),
    # e.g. the water MD example of Debian's cp2k package for a local check.
    workload("local_input", executables=["execute"])
    workload_variable("input_path", default="{workload_input_dir}/cp2k.inp", workload="local_input",
                      description="CP2K input file on this machine (its basis and potential files "
                                  "from CP2K's data directory)")
    workload_variable("cp2k_exe", default="cp2k.psmp", values=["cp2k.psmp", "cp2k.popt"],
                      workloads=["h2o", "local_input"], description="CP2K binary (psmp: MPI + OpenMP)")

    # " CP2K   1  1.0   <self avg> <self max>   <total avg> <total max>" in the timing report.
    timing = (r"^\s*CP2K\s+[0-9]+\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+\s+(?P<total_avg>[0-9.]+)\s+"
              r"(?P<total_max>[0-9.]+)\s*$")
    figure_of_merit("CP2K total time", fom_regex=timing, group_name="total_max", units="s")
    figure_of_merit("CP2K total time average", fom_regex=timing, group_name="total_avg", units="s")
    figure_of_merit("MD steps", fom_regex=r"^\s*MD\|\s+Step number\s+(?P<step>[0-9]+)",
                    group_name="step", units="")

    # The timing report is written only at a normal end; an abort prints [ABORT] and stops.
    success_criteria("cp2k-ended", mode="string", match=r".*PROGRAM ENDED AT", file="{log_file}")
    success_criteria("cp2k-no-abort", mode="string", anti_match=r".*\[ABORT\]", file="{log_file}")
