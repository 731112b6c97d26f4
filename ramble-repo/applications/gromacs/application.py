import os

from hpcaas_kit import *
from ramble.app.builtin.gromacs import Gromacs as BuiltinGromacs
from ramble.appkit import *

# One activity of mdrun's "R E A L   C Y C L E   A N D   T I M E   A C C O U N T I N G" table
# (md.log, GROMACS 4.6 to 2025): name, ranks, threads, call count, wall time (s), giga-cycles,
# share of the run (%). Names hold single spaces only, and wall time and cycles three decimals,
# so rows of the M-Flops table (six decimals) and of the GPU timings table (one count) never
# match. Rows without counts: the two that only this table has. No {n} quantifiers: Ramble
# expands braces in regexes.
_NAMED = r"[A-Za-z][\w.+/*()-]*(?: [\w.+/*()-]+)*?"
_TAIL = r"(?P<wall>\d+\.\d\d\d)\s+(?P<gcycles>\d+\.\d\d\d)\s+(?P<percent>\d+\.\d)\s*$"
ACTIVITY = (
    rf"^ (?P<activity>{_NAMED}(?=\s\s+\d+\s+\d+\s+\d+\s)|Rest|PME wait for PP \*)" rf"\s+(?:\d+\s+\d+\s+\d+\s+)?{_TAIL}"
)
CALLS = rf"^ (?P<activity>{_NAMED})\s\s+\d+\s+\d+\s+(?P<count>\d+)\s+{_TAIL}"
# "       Time:     2786.381       21.801    12781.1" and "Performance:       79.271        0.303",
# in md.log and on stderr alike.
TIME = r"^\s+Time:\s+(?P<core>" + NUM + r")\s+(?P<wall>" + NUM + r")\s+(?P<percent>" + NUM + r")\s*$"
PERFORMANCE = r"^Performance:\s+(?P<ns_per_day>" + NUM + r")\s+(?P<hours_per_ns>" + NUM + r")\s*$"

# The catalog's water box: SPC/E water from GROMACS' own data (spc216.gro, oplsaa.ff, installed
# with every build), energy-minimized, then run by the workload's mdrun line. Only the box edge
# varies (3 nm: ~2,650 atoms).
MD_MDP = [
    "integrator = md",
    "dt = 0.002",
    "nsteps = {nsteps}",
    "nstlog = 500",
    "nstenergy = 500",
    "cutoff-scheme = Verlet",
    "coulombtype = PME",
    "rcoulomb = 0.9",
    "rvdw = 0.9",
    "tcoupl = v-rescale",
    "tc-grps = System",
    "tau-t = 0.1",
    "ref-t = 300",
    "gen-vel = yes",
    "gen-temp = 300",
    "constraints = h-bonds",
]
EM_MDP = [
    "integrator = steep",
    "nsteps = 500",
    "emtol = 1000",
    "cutoff-scheme = Verlet",
    "coulombtype = PME",
    "rcoulomb = 0.9",
    "rvdw = 0.9",
]


class Gromacs(BuiltinGromacs):
    """GROMACS (single precision) for S4 (ApoA1, MEM ~82k atoms, RIB ~2M atoms; ns/day) and S5
    (HECBioSim hEGFR dimer pair, 1.4M atoms, -noconfout), and the catalog's water box.

    Adds to Ramble's builtin: a pinned Spack spec without a compiler, the studies' workloads by
    name, a water box made in the experiment (catalog), every number of mdrun's closing summary
    (cycle accounting, load balance, time, performance) read from md.log or from mdrun's own
    output alike, and success criteria (the builtin has none, so a crashed mdrun was a success).
    """

    name = "gromacs"

    maintainers("hpcaas-bench")

    # A cold Spack build takes ~10 min on two idle cores (20 CPU-minutes): the catalog's slow tier.
    tags("slow-build")

    # 2022.5: Debian ships the same release (its orig tarball has Spack's sha256; make mirror puts
    # it in mirror/), so Spack builds it offline. No variants: the recipe's defaults (+mpi, so the
    # binary is gmx_mpi, the builtin's {gmx}; ~double, mixed precision) are the build the studies
    # use, and a variant named here would not match Debian's external, which states none (Spack
    # 0.23 then fails with "internal error ... must have exactly one condition_set").
    spack_package("gromacs", "gromacs@2022.5")

    # First line of each run, in md.log and on stderr (GROMACS 2016 on), or of a GROMACS 4/5 md.log.
    run_start_regex = r"^\s*(?::-\) GROMACS - (?:gmx )?mdrun, |Log file opened on )"

    # The builtin's inputs, with where to put them offline (Ramble then only says "All fetchers
    # failed"): <mirror>/gromacs/<input name>.<ext> in a Ramble mirror (ramble mirror add).
    for _input, _url, _sha, _desc in (
        (
            "BenchMEM",
            "https://www.mpinat.mpg.de/benchMEM.zip",
            "3c1c8cd4f274d532f48c4668e1490d389486850d6b3b258dfad4581aa11380a4",
            "MPI-BPC benchMEM: 82k atoms, protein in membrane surrounded by water, 2 fs",
        ),
        (
            "BenchRIB",
            "https://www.mpinat.mpg.de/benchRIB.zip",
            "39acb014a79ed9a9ff2ad6294a2c09f9b85ea6986dfc204a3639814503eeb60a",
            "MPI-BPC benchRIB: 2 M atoms, ribosome in water, 4 fs",
        ),
        (
            "HECBioSim",
            "https://github.com/victorusu/GROMACS_Benchmark_Suite/archive/refs/tags/1.0.0.tar.gz",
            "9cb2ad61ec2a422fc33578047e7cb2fd2c37ae9a75a6162d662fa2b711e9737f",
            "HECBioSim GROMACS benchmarks (Crambin ... hEGFR tetramer pair)",
        ),
    ):
        _ext = "tar.gz" if _url.endswith("tar.gz") else "zip"
        input_file(
            _input,
            url=_url,
            sha256=_sha,
            description=f"{_desc}. Offline: save {os.path.basename(_url)} as "
            f"<mirror>/gromacs/{_input}.{_ext} in a Ramble mirror",
        )

    # Not redirected: its printf lines write the input files; the gmx steps log to water-box.log.
    _setup_log = ">> {experiment_run_dir}/water-box.log 2>&1"
    executable(
        "make-water-box",
        use_mpi=False,
        redirect="",
        template=[
            printf_command(MD_MDP, "{experiment_run_dir}/water.mdp"),
            printf_command(EM_MDP, "{experiment_run_dir}/em.mdp"),
            "{gmx} solvate -cs spc216.gro -box {box_nm} {box_nm} {box_nm} -o {experiment_run_dir}/conf.gro "
            + _setup_log,
            printf_command(
                [
                    '#include "oplsaa.ff/forcefield.itp"',
                    '#include "oplsaa.ff/spce.itp"',
                    "[ system ]",
                    "SPC/E water box",
                    "[ molecules ]",
                ],
                "{experiment_run_dir}/topol.top",
            ),
            'echo "SOL $(grep -c OW {experiment_run_dir}/conf.gro)" >> {experiment_run_dir}/topol.top',
            # Steepest descent first: solvate leaves close contacts that can blow up the MD.
            "{gmx} grompp -f em.mdp -c conf.gro -p topol.top -o em.tpr -maxwarn 0 " + _setup_log,
            "{gmx} mdrun -s em.tpr -deffnm em -ntomp 1 " + _setup_log,
            "{gmx} grompp -f water.mdp -c em.gro -p topol.top -o {input_path} -maxwarn 0 " + _setup_log,
        ],
    )

    workload("water_box", executables=["make-water-box", "execute"], tags=["catalog"])
    # S5: HECBioSim's 1.4M-atom hEGFR dimer pair, from the same suite as the builtin hecbiosim.
    workload("hegfr_1400k", executables=["execute"], input="HECBioSim")
    # S4 ApoA1 (and its 3 x 3 x 3 replica): no public GROMACS input with a checksum was found.
    workload("apoa1", executables=["execute"])

    # Joining the builtin's group gives them its variables (gmx, mdrun, nsteps, resetstep, ...).
    workload_group("all_workloads", workloads=["water_box", "hegfr_1400k", "apoa1"], mode="append")

    workload_variables(
        ("box_nm", "3", "Edge of the cubic water box in nm (3: ~2,650 atoms; atoms grow as its cube)"),
        ("input_path", "{experiment_run_dir}/water.tpr", "Run input the water-box step writes"),
        ("nsteps", "1000", "MD steps (2 fs each)"),
        ("resetstep", "500", "Step at which mdrun resets its timers: the FOMs time the steps after it"),
        workload="water_box",
    )
    workload_variable(
        "input_path",
        default="{HECBioSim}/HECBioSim/hEGFRDimerPair/benchmark.tpr",
        workload="hegfr_1400k",
        description="HECBioSim hEGFR dimer pair (1,403,180 atoms) run input",
    )
    workload_variable(
        "input_path",
        default="{workload_input_dir}/apoa1.tpr",
        workload="apoa1",
        description="ApoA1 run input (.tpr) of the study; not public: place it here "
        "(or point this at the 3 x 3 x 3 replicated one)",
    )
    # mdrun writes its log (with the cycle accounting) to md.log in the run directory; stderr
    # ({log_file}) has the time and performance lines only.
    workload_variable(
        "results_file",
        default="{experiment_run_dir}/md.log",
        workload_group="all_workloads",
        description="mdrun's log file (-g), which FOMs and criteria read",
    )

    # The builtin's FOM names (studies and tables use them), read from {results_file}, with the
    # whole line so that a number never comes from another line.
    figures_of_merit(
        ("Core Time", TIME, "core", "s"),
        ("Wall Time", TIME, "wall", "s"),
        ("Percent Core Time", TIME, "percent", "%"),
        ("Nanosecs per day", PERFORMANCE, "ns_per_day", "ns/day"),
        ("Hours per nanosec", PERFORMANCE, "hours_per_ns", "hours/ns"),
        log_file="{results_file}",
    )

    figure_of_merit_context("activity", regex=ACTIVITY, output_format="{activity}")
    figures_of_merit(
        ("Activity wall time", ACTIVITY, "wall", "s"),
        ("Activity giga-cycles", ACTIVITY, "gcycles", "Gcycles"),
        ("Activity share of run time", ACTIVITY, "percent", "%"),
        ("Activity calls", CALLS, "count", ""),
        log_file="{results_file}",
        contexts=["activity"],
    )

    # The model's size and MD time step (md.log: "There are: 92224 Atoms", the input dump's
    # "dt = 0.002"), from which IJHPCA'19's seconds per atom per step follow with ns/day
    # (hpcaas-analyze per-atom-step).
    figures_of_merit(
        ("Atoms", r"^There are:\s*(?P<v>[0-9]+) Atoms\s*$", ""),
        ("Time step", r"^\s+dt\s+=\s*(?P<v>[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*$", "ps"),
        log_file="{results_file}",
        group_name="v",
    )

    # Domain decomposition's load balance report (multi-rank runs).
    figures_of_merit(
        ("Average load imbalance", r"^\s*Average load imbalance:\s*(?P<v>" + NUM + r")\s*%", "%"),
        ("Balanceable part of the step", r"^\s*The balanceable part of the MD step is\s*(?P<v>" + NUM + r")\s*%", "%"),
        (
            "Time waiting for load imbalance",
            r"^\s*Part of the total run time spent waiting due to load imbalance:\s*(?P<v>" + NUM + r")\s*%",
            "%",
        ),
        ("PME mesh/force load", r"^\s*Average PME mesh/force load:\s*(?P<v>" + NUM + r")\s*$", ""),
        (
            "Time waiting for PP/PME imbalance",
            r"^\s*Part of the total run time spent waiting due to PP/PME imbalance:\s*(?P<v>" + NUM + r")\s*%",
            "%",
        ),
        log_file="{results_file}",
        group_name="v",
    )

    log_criteria(
        "{results_file}",
        # mdrun ends a completed run with "Finished mdrun on rank 0" in md.log ("node" up to 4.6);
        # its stderr has no such line but ends with the performance line, which a crash never
        # reaches.
        completed=r"(?:.*Finished mdrun on (?:rank|node) 0|Performance:\s+[0-9])",
        # GROMACS' error box ("Fatal error:", "Source file:"; 4.x "Source code file:"), a signal
        # that stopped mdrun early (it still prints its timing, for fewer steps).
        no_errors=absent(r"(?:Fatal error:|Source (?:code )?file: |.*Received the \w+ signal)"),
        # A row of energies holding nan or inf (a blown-up system can still reach the end).
        finite_values=absent(r"(?i)^(?=.*\b(?:nan|inf)\b)(?:\s+(?:[-+]?\d\.\d+e[-+]\d+|[-+]?nan|[-+]?inf))+\s*$"),
        requested_ranks=r".*Using {n_ranks} MPI (?:process|thread)",
    )


# The builtin's compiler (gcc 9.3) and specs pin a compiler and an Intel MPI; a study renders the
# system's own (convention item 2).
del Gromacs.compilers["gcc9"]
del Gromacs.software_specs["spack_gromacs"]
del Gromacs.software_specs["impi2018"]
