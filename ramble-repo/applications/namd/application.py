import os
import re

from hpcaas_kit import *
from ramble.app.builtin.namd import Namd as BuiltinNamd
from ramble.appkit import *
from ramble.keywords import keywords

# "Info: Benchmark time:" is the FOM line. NAMD 2.x ends it with days/ns; NAMD 3 in GPU-resident
# mode prints ns/day there instead (and 0 MB memory), which Ramble's builtin regex does not read.
UNIT = r"(?P<unit>days/ns|ns/day)"
BENCHMARK = (
    r"Info: Benchmark time:\s+(?P<cpus>[0-9]+)\s+CPUs\s+(?P<s_per_step>" + NUM + r")\s+s/step\s+"
    r"(?P<rate>" + NUM + r")\s+" + UNIT + r"\s+(?P<mem>" + NUM + r")\s+MB memory"
)
# The first estimate, printed before the benchmark lines, in the same layout.
INITIAL = BENCHMARK.replace("Benchmark time", "Initial time")
# NAMD 2.15/3.x (outputPerformance): "PERFORMANCE: 500  averaging 34.8074 ns/day, 0.00248223
# sec/step with standard deviation 0.000148228" (2.15 alpha: no standard deviation).
PERFORMANCE = (
    rf"^PERFORMANCE:\s+(?P<step>[0-9]+)\s+averaging\s+(?P<nspd>{NUM})\s+ns/day,\s+(?P<sps>{NUM})\s+sec/step"
    rf"(?:\s+with standard deviation\s+(?P<sd>{NUM}))?"
)
STARTUP = r"^Info: Finished startup at (?P<t>" + NUM + r") s, (?P<mem>" + NUM + r") MB of memory in use"


class Namd(BuiltinNamd):
    """NAMD for S1 (HPCaaS-Bench T4/T5, STMV) and S2 (ApoA1 speed-up).

    Differs from Ramble's builtin in three ways: the binary is a variable (namd3 from NAMD 3.0,
    the pinned version; namd2 for 2.x); the benchmark FOMs read both NAMD 2 (days/ns) and NAMD 3
    GPU-resident (ns/day) logs; and a run counts only if NAMD reached its final WallClock line
    with no FATAL ERROR (NAMD prints "End of program" after a fatal error too).
    """

    name = "namd"

    maintainers("hpcaas-bench")

    software_spec("charmpp", pkg_spec="charmpp backend=mpi build-target=charm++", package_manager="spack*")
    # +ivdep is the T4 axis: set it per experiment in the workspace's software section. NAMD is
    # licensed: Spack builds it only from the file the recipe names (download_instr) in mirror/.
    spack_package("namd", "namd@3.0 interface=tcl fftw=3")

    # Every run starts with the banner line "Info: NAMD 2.14 for Linux-x86_64-multicore".
    run_start_regex = r"^Info: NAMD [0-9][^ ]* for "

    executable("execute", "{namd_exe} {namd_flags} {input_file}", use_mpi=True)

    # namd3 for the studies' workloads (NAMD 3.0 is pinned); the builtin's other workloads keep
    # namd2, which their inputs were written for.
    for _workload in (
        "stmv",
        "ApoA1",
        "ATPase",
        "20STMV",
        "tiny",
        "interactive_BPTI",
        "ER-GRE",
        "decalanin",
        "tcl-forces",
    ):
        workload_variable(
            "namd_exe",
            default="namd3" if _workload in ("stmv", "ApoA1") else "namd2",
            values=["namd3", "namd2"],
            workloads=[_workload],
            description="NAMD binary: namd3 (NAMD 3.x) or namd2 (NAMD 2.x)",
        )

    input_file(
        "stmv",
        url="https://www.ks.uiuc.edu/Research/namd/utilities/stmv.tar.gz",
        sha256="2ef8beaa22046f2bf4ddc85bb8141391a27041302f101f5302f937d04104ccdd",
        description="STMV (virus) benchmark (1,066,628 atoms, periodic, PME). Offline (Ramble then only "
        "says 'All fetchers failed'): save stmv.tar.gz as <mirror>/namd/stmv.tar.gz in a "
        "Ramble mirror (ramble mirror add <name> file://<mirror>)",
    )
    input_file(
        "ApoA1",
        url="https://www.ks.uiuc.edu/Research/namd/utilities/apoa1.tar.gz",
        sha256="fe30322cc94d93dff6c4e517d28584c48d0d0a1a7b23e2cd74cdb36d03863b22",
        description="ApoA1 benchmark (92,224 atoms, periodic, PME). Offline (Ramble then only says "
        "'All fetchers failed'): save apoa1.tar.gz as <mirror>/namd/ApoA1.tar.gz in a "
        "Ramble mirror (ramble mirror add <name> file://<mirror>)",
    )

    log_criteria(
        LOG,
        # NAMD prints "End of program" (the builtin's criterion) after a FATAL ERROR too; a
        # completed run ends with its WallClock line.
        completed=r".*WallClock:\s+" + NUM + r"\s+CPUTime:",
        no_errors=absent(r".*(?:FATAL ERROR|Charm\+\+ fatal error|Called CmiAbort)"),
        # Energies NAMD could not compute ("nan" in an ENERGY line) before it gives up on them.
        finite_values=absent(r"(?i)^ENERGY:.*\s[-+]?(?:nan|inf)(?:\s|$)"),
    )

    figure_of_merit("Number of CPUs", fom_regex=BENCHMARK, group_name="cpus", units="")
    # The benchmark lines and the first estimate alike, the rate in either unit NAMD prints.
    for _line, _regex in (("Benchmark", BENCHMARK), ("Initial", INITIAL)):
        figures_of_merit(
            (f"{_line} wall time per step", _regex, "s_per_step", "s"),
            (f"{_line} memory used", _regex, "mem", "MB"),
            (f"{_line} days per nanosecond", _regex.replace(UNIT, "days/ns"), "rate", "days/ns"),
            (f"{_line} nanoseconds per day", _regex.replace(UNIT, "ns/day"), "rate", "ns/day"),
        )
    figures_of_merit(
        ("Performance nanoseconds per day", "nspd", "ns/day"),
        ("Performance seconds per step", "sps", "s"),
        ("Performance step", "step", ""),
        ("Performance seconds per step deviation", "sd", "s"),
        fom_regex=PERFORMANCE,
    )
    figures_of_merit(("Startup time", "t", "s"), ("Startup memory", "mem", "MB"), fom_regex=STARTUP)

    def _analyze_experiments(self, workspace, app_inst=None):
        """ns/day of the last benchmark line, whichever unit NAMD printed, for the
        "Nanoseconds per day" FOM (namd_nspd_stat.out), so NAMD 2 and 3 results compare. The
        builtin's step then rewrites the same value from a days/ns line, or leaves ours."""
        log_path = self.expander.expand_var(LOG)
        nspd = None
        if os.path.isfile(log_path):
            with open(log_path) as f:
                for line in f:
                    m = re.search(BENCHMARK, line)
                    if m:
                        rate = float(m.group("rate"))
                        nspd = rate if m.group("unit") == "ns/day" else (1.0 / rate if rate else None)
        run_dir = self.expander.expand_var(self.expander.expansion_str(keywords.experiment_run_dir))
        stat = os.path.join(run_dir, "namd_nspd_stat.out")
        if nspd is not None:
            with open(stat, "w") as f:
                f.write(f"{nspd} ns/day\n")
        elif os.path.exists(stat):
            os.remove(stat)
        super()._analyze_experiments(workspace, app_inst)


# The builtin's "End of program" criterion passes runs that died of a FATAL ERROR ("completed"
# replaces it); its compiler (gcc 12.2) and Intel MPI spec would pin what a study renders
# (convention item 2).
del Namd.success_criteria["Completion"]
del Namd.compilers["gcc12"]
del Namd.software_specs["impi2021p8"]
# The catalog's workload: the smallest real one (507 atoms), though nothing of NAMD runs without
# its licensed source, so the catalog lists NAMD as skipped on systems without it.
Namd.workloads["tiny"].add_tag("catalog")
