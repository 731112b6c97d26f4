import os

from hpcaas_kit import *
from ramble.appkit import *

SUITE = "Amber24_Benchmark_Suite"

# pmemd's "5. TIMINGS" section, the run's summary, in mdout (CPU pmemd/pmemd.MPI and GPU
# pmemd.cuda, Amber 12 to 24):
#   |  PME Direct Force CPU Time, Average for All Tasks:      <- a table (context)
#   |     NonBonded Calc     177.56   61.20                   <- routine, seconds, %
#   |     Average timings for all steps:                      <- which average (context)
#   |     Elapsed(s) =     292.55 Per Step(ms) =      97.52
#   |         ns/day =       0.89   seconds/ns =   97515.36
#   |  Master Total wall time:         296    seconds     0.08 hours   ("Master " in MPI builds)
TABLE = r"^\|\s+(?P<table>[A-Z][\w ]*CPU Time[\w ]*?)(?:, Average for All Tasks)?:\s*$"
ROUTINE = r"^\|\s+(?P<routine>[A-Za-z0-9][\w ]*?)\s+(?P<sec>" + NUM + r")\s+(?P<pct>" + NUM + r")\s*$"
ROUTINE_TOTAL = r"^\|\s+Total\s+(?P<sec>" + NUM + r")\s*$"
AVERAGE = r"^\|\s+Average timings for (?P<steps>last\s+[0-9]+ steps|all steps):"
ELAPSED = r"^\|\s+Elapsed\(s\)\s+=\s+(?P<elapsed>" + NUM + r")\s+Per Step\(ms\)\s+=\s+(?P<per_step>" + NUM + r")"
RATE = r"^\|\s+ns/day\s+=\s+(?P<ns_per_day>" + NUM + r")\s+seconds/ns\s+=\s+(?P<s_per_ns>" + NUM + r")"
TIMES = (
    r"^\|\s+(?:Master )?(?P<phase>Setup|NonSetup|Total) (?P<kind>CPU|wall) time:\s+(?P<sec>" + NUM + r")\s+" r"seconds"
)
TIMES_HOURS = TIMES + r"\s+(?P<hours>" + NUM + r") hours"
# sander's TIMINGS section: each item's seconds and its share of its parent item, nested
# ("|       Force time               913.51 (98.63% of Runmd)" ... "| Total time   927.30 (100.0% of ALL  )").
SANDER_TIME = r"^\|\s+(?P<item>\S.*?)\s+(?P<sec>" + NUM + r") \(\s*(?P<pct>" + NUM + r")% of (?P<of>\w+)\s*\)\s*$"


class Amber(ExecutableApplication):
    """AMBER pmemd on the Amber benchmark suite, for S3 (AMBER best practices): Myoglobin
    (2,492 atoms, GB implicit solvent) and FactorIX (90,906 atoms, PME). mdout of sander, pmemd
    and pmemd.cuda alike, plain MD and free-energy (TI, MBAR) runs.

    Amber is licensed: Spack builds it only from the tarballs the recipe names, placed in the
    project's mirror (`spack info amber`, spack-repo/packages/amber), so the catalog skips it
    where they are absent. The benchmark inputs are public. pmemd writes its report to mdout
    (`results_file`); every number of its TIMINGS section is a FOM.
    """

    name = "amber"

    maintainers("hpcaas-bench")

    tags("molecular-dynamics")

    spack_package("amber", "amber@20 +mpi ~cuda")

    # mdout's banner, once per run: "          Amber 24 PMEMD                              2024"
    # (pmemd of Amber 12/14 calls itself SANDER there).
    run_start_regex = r"^\s+Amber [0-9]+ (?:PMEMD|SANDER)\s+[0-9]+\s*$"

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
        "-o {results_file} -r {experiment_run_dir}/restrt -x {experiment_run_dir}/mdcrd "
        "-inf {experiment_run_dir}/mdinfo",
        use_mpi=True,
    )

    # The catalog's: the suite's smallest system. Nothing of Amber runs without its licensed
    # source, so the catalog lists it as skipped on systems without it.
    workload("myoglobin", executables=["execute"], input="amber_benchmarks", tags=["catalog"])
    workload("factorix", executables=["execute"], input="amber_benchmarks")

    for _workload, _dir in (("myoglobin", "GB/myoglobin"), ("factorix", "PME/FactorIX_production_NVE")):
        workload_variable(
            "input_path",
            default=os.path.join("{amber_benchmarks}", _dir),
            workloads=[_workload],
            description=f"Directory of the {_workload} inputs (prmtop, inpcrd, mdin*) in the suite",
        )
        workload_variable(
            "pmemd",
            default="pmemd.MPI",
            values=["pmemd.MPI", "pmemd", "pmemd.cuda", "pmemd.cuda.MPI"],
            workloads=[_workload],
            description="pmemd binary (MPI CPU build by default)",
        )
        workload_variable(
            "mdin",
            default="mdin.GPU",
            workloads=[_workload],
            description="Control file in the input directory (the suite's mdin.GPU; " "older suites name it mdin)",
        )
        workload_variable(
            "results_file",
            default="{experiment_run_dir}/mdout",
            workloads=[_workload],
            description="pmemd's output file (-o), which FOMs and criteria read",
        )

    # Averages over the last N steps and over all steps, each in its context.
    figure_of_merit_context("average", regex=AVERAGE, output_format="Average over {steps}")
    figures_of_merit(
        ("Nanoseconds per day", RATE, "ns_per_day", "ns/day"),
        ("Seconds per nanosecond", RATE, "s_per_ns", "s/ns"),
        ("Elapsed time", ELAPSED, "elapsed", "s"),
        ("Time per step", ELAPSED, "per_step", "ms"),
        log_file="{results_file}",
        contexts=["average"],
    )
    # "Total wall time", "Setup CPU time", ... (the master rank's in MPI builds).
    figures_of_merit(
        ("{phase} {kind} time", TIMES, "sec", "s"),
        ("{phase} {kind} time in hours", TIMES_HOURS, "hours", "hours"),
        log_file="{results_file}",
    )
    # CPU builds: time per routine in each table (major routines, PME pairlist, direct, reciprocal,
    # load balancing; GB tables alike).
    figure_of_merit_context("table", regex=TABLE, output_format="Table {table}")
    figures_of_merit(
        ("{routine} time", ROUTINE, "sec", "s"),
        ("{routine} share", ROUTINE, "pct", "%"),
        ("Total time", ROUTINE_TOTAL, "sec", "s"),
        log_file="{results_file}",
        contexts=["table"],
    )

    # sander (also a free-energy run's engine): its nested TIMINGS.
    figures_of_merit(
        ("{item} ({of})", SANDER_TIME, "sec", "s"),
        ("{item} share of {of}", SANDER_TIME, "pct", "%"),
        log_file="{results_file}",
    )

    log_criteria(
        "{results_file}",
        # Each engine writes its timing summary only after the last step (a killed or crashed run
        # stops mid-trajectory without it): pmemd its wall-time lines, sander its "| Total time".
        completed=r"(?:.*Total wall time:|^\|\s+Total time\s+" + NUM + ")",
        # vlimit: atoms faster than the velocity limit (a blowing-up system); pmemd's own error stops.
        no_errors=absent(r".*(?:vlimit exceeded|STOP PMEMD Terminated Abnormally|ERROR:|cudaMemcpy.*failed)"),
        # Energies the run could not print (asterisks) or compute (NaN). Not a free-energy run's
        # MBAR lines: "Energy at 0.8300 = ******" is the energy of a window far from the run's
        # lambda, overflowing its print format as it normally does.
        finite_values=absent(r"(?i)(?!Energy at ).*=\s+(?:\*\*\*\*+|[-+]?nan\b)"),
    )
