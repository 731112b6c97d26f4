import os

from ramble.appkit import *
from ramble.expander import Expander

SUITE = "Amber24_Benchmark_Suite"


class Amber(ExecutableApplication):
    """AMBER pmemd on the Amber benchmark suite, for S3 (AMBER best practices): Myoglobin
    (2,492 atoms, GB implicit solvent) and FactorIX (90,906 atoms, PME).

    Amber is licensed: Spack builds it only from tarballs the user puts in the project's
    mirror (see `spack info amber` / the recipe's download instructions). The benchmark inputs
    are public. pmemd writes its report to the mdout file; the FOMs are read from there.
    """

    name = "amber"

    maintainers("hpcaas-bench")

    tags("molecular-dynamics")

    define_compiler("gcc12", pkg_spec="gcc@12.2.0", package_manager="spack*")
    software_spec("amber", pkg_spec="amber@20 +mpi ~cuda", compiler="gcc12",
                  package_manager="spack*")
    required_package("amber", package_manager="spack*")

    # sha256 of the suite as downloaded on 2026-09-30, published with a public benchmark script
    # (ambermd.org gives none); if ambermd.org re-packs the suite, the check fails loudly.
    input_file(
        "amber_benchmarks",
        url=f"https://ambermd.org/{SUITE}.tar.gz",
        sha256="0c23da4d8b72ca76e764a82c4bfadd983feeeaa5a3931b0d4f7f93bac273a148",
        description="Amber's GPU/CPU benchmark suite (GB/myoglobin, PME/FactorIX_production_NVE, ...). "
                    "Offline (Ramble then only says 'All fetchers failed'): save "
                    f"{SUITE}.tar.gz as <mirror>/amber/amber_benchmarks.tar.gz in a Ramble mirror "
                    "(ramble mirror add <name> file://<mirror>)",
    )

    executable(
        "execute",
        "{pmemd} -O -i {input_path}/{mdin} -p {input_path}/prmtop -c {input_path}/inpcrd "
        "-o {experiment_run_dir}/mdout -r {experiment_run_dir}/restrt -x {experiment_run_dir}/mdcrd "
        "-inf {experiment_run_dir}/mdinfo",
        use_mpi=True,
    )

    workload("myoglobin", executables=["execute"], input="amber_benchmarks")
    workload("factorix", executables=["execute"], input="amber_benchmarks")

    for _workload, _dir in (("myoglobin", "GB/myoglobin"), ("factorix", "PME/FactorIX_production_NVE")):
        workload_variable("input_path", default=os.path.join("{amber_benchmarks}", _dir),
                          workloads=[_workload],
                          description=f"Directory of the {_workload} inputs (prmtop, inpcrd, mdin*) in the suite")
        workload_variable("pmemd", default="pmemd.MPI", values=["pmemd.MPI", "pmemd", "pmemd.cuda",
                                                                "pmemd.cuda.MPI"],
                          workloads=[_workload], description="pmemd binary (MPI CPU build by default)")
        workload_variable("mdin", default="mdin.GPU", workloads=[_workload],
                          description="Control file in the input directory (the suite's mdin.GPU; "
                                      "older suites name it mdin)")

    mdout = os.path.join(Expander.expansion_str("experiment_run_dir"), "mdout")

    # pmemd prints two rate blocks at the end: "last N steps", then "all steps". A FOM keeps
    # the last match, i.e. the whole-run average.
    rate = (r"\|\s+ns/day\s+=\s+(?P<ns_per_day>[0-9.]+)\s+seconds/ns\s+=\s+(?P<s_per_ns>[0-9.]+)")
    figure_of_merit("Nanoseconds per day", log_file=mdout, fom_regex=rate, group_name="ns_per_day",
                    units="ns/day")
    figure_of_merit("Seconds per nanosecond", log_file=mdout, fom_regex=rate, group_name="s_per_ns",
                    units="s/ns")
    elapsed = r"\|\s+Elapsed\(s\)\s+=\s+(?P<elapsed>[0-9.]+)\s+Per Step\(ms\)\s+=\s+(?P<per_step>[0-9.]+)"
    figure_of_merit("Elapsed time", log_file=mdout, fom_regex=elapsed, group_name="elapsed", units="s")
    figure_of_merit("Time per step", log_file=mdout, fom_regex=elapsed, group_name="per_step", units="ms")
    # CPU builds print "Master Total wall time", the GPU build "Total wall time".
    wall = r"\|\s+(?:Master\s+)?Total wall time:\s+(?P<wall>[0-9.]+)\s+seconds"
    figure_of_merit("Total wall time", log_file=mdout, fom_regex=wall, group_name="wall", units="s")

    # pmemd writes the wall-time summary only after the last step; a killed or crashed run
    # stops mid-trajectory without it.
    success_criteria("pmemd-finished", mode="string", match=r".*Total wall time:", file=mdout)
    success_criteria("no-vlimit", mode="string", anti_match=r".*vlimit exceeded", file=mdout)
