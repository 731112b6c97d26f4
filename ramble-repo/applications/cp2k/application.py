from hpcaas_kit import *
from ramble.appkit import *

# Debian 12 ships CP2K 2023.1 (the build this machine runs); Spack's recipe has the same release
# with the same sha256 (Debian's orig tarball is CP2K's release tarball).
VERSION = "2023.1"
SIZES = ["32", "64", "128", "256", "512", "1024"]

# The catalog's input, written in the experiment: 8 waters, GPW with a minimal basis, 3 NVE MD
# steps -- the same kind of run as CP2K's benchmarks/QS/H2O-<n>.inp, small enough for 2 cores.
# Basis and potential files come from CP2K's own data directory, which every build installs.
WATERS = [
    (0.8, 0.8, 0.8, 1.385882, 1.254170, 1.405560, 1.385882, 0.345830, 0.194440),
    (0.8, 0.8, 3.9, 0.893135, 1.535428, 4.505560, 1.535428, 0.893135, 3.294440),
    (0.8, 3.9, 0.8, 0.345830, 4.485882, 1.405560, 1.254170, 4.485882, 0.194440),
    (0.8, 3.9, 3.9, 0.064572, 3.993135, 4.505560, 0.706865, 4.635428, 3.294440),
    (3.9, 0.8, 0.8, 3.314118, 0.345830, 1.405560, 3.314118, 1.254170, 0.194440),
    (3.9, 0.8, 3.9, 3.806865, 0.064572, 4.505560, 3.164572, 0.706865, 3.294440),
    (3.9, 3.9, 0.8, 4.354170, 3.314118, 1.405560, 3.445830, 3.314118, 0.194440),
    (3.9, 3.9, 3.9, 4.635428, 3.806865, 4.505560, 3.993135, 3.164572, 3.294440),
]
H2O_8 = [
    "&GLOBAL",
    "  PROJECT H2O-8-local",
    "  RUN_TYPE MD",
    "  PRINT_LEVEL LOW",
    "&END GLOBAL",
    "&MOTION",
    "  &MD",
    "    ENSEMBLE NVE",
    "    STEPS {md_steps}",
    "    TIMESTEP 0.5",
    "    TEMPERATURE 300.0",
    "  &END MD",
    "&END MOTION",
    "&FORCE_EVAL",
    "  METHOD QS",
    "  &DFT",
    "    BASIS_SET_FILE_NAME GTH_BASIS_SETS",
    "    POTENTIAL_FILE_NAME POTENTIAL",
    "    &MGRID",
    "      CUTOFF 200",
    "      REL_CUTOFF 30",
    "    &END MGRID",
    "    &QS",
    "      EPS_DEFAULT 1.0E-10",
    "    &END QS",
    "    &SCF",
    "      SCF_GUESS ATOMIC",
    "      MAX_SCF 50",
    "      EPS_SCF 1.0E-5",
    "      &OT ON",
    "        MINIMIZER DIIS",
    "      &END OT",
    "    &END SCF",
    "    &XC",
    "      &XC_FUNCTIONAL PADE",
    "      &END XC_FUNCTIONAL",
    "    &END XC",
    "  &END DFT",
    "  &SUBSYS",
    "    &CELL",
    "      ABC 6.2 6.2 6.2",
    "    &END CELL",
    "    &COORD",
    *[f"      {el} {x:.6f} {y:.6f} {z:.6f}" for w in WATERS for el, (x, y, z) in zip("OHH", (w[0:3], w[3:6], w[6:9]))],
    "    &END COORD",
    "    &KIND H",
    "      BASIS_SET SZV-GTH",
    "      POTENTIAL GTH-PADE-q1",
    "    &END KIND",
    "    &KIND O",
    "      BASIS_SET SZV-GTH",
    "      POTENTIAL GTH-PADE-q6",
    "    &END KIND",
    "  &END SUBSYS",
    "&END FORCE_EVAL",
]

# A row of the closing "T I M I N G" report: subroutine, calls (max), stack depth (ASD), self
# time (average, max), total time (average, max).
TIMING = (
    r"^ (?P<routine>[A-Za-z_][\w]*)\s+(?P<calls>[0-9]+)\s+(?P<asd>" + NUM + r")\s+(?P<self_avg>" + NUM + r")\s+"
    r"(?P<self_max>" + NUM + r")\s+(?P<total_avg>" + NUM + r")\s+(?P<total_max>" + NUM + r")\s*$"
)
# "MESSAGE PASSING PERFORMANCE": routine, calls, average volume in bytes (not for all routines).
MP = r"^ (?P<mp>MP_\w+)\s+(?P<calls>[0-9]+)(?:\s+" + NUM + r")?\s*$"
MP_VOLUME = r"^ (?P<mp>MP_\w+)\s+(?P<calls>[0-9]+)\s+(?P<volume>" + NUM + r")\s*$"
# The last MD step's summary: " MD| CPU time per MD step [s]   0.534671   1.427776" (instantaneous,
# average); up to CP2K 8 " CPU TIME [s]         =      1.30      2.26".
MD_PAIR = r"^ (?:MD\| {new}|{old}\s*=)\s+(?P<inst>" + NUM + r")\s+(?P<avg>" + NUM + r")\s*$"
MD_ONE = r"^ (?:MD\| {new}|{old}\s*=)\s+(?P<v>" + NUM + r")\s*$"


class Cp2k(ExecutableApplication):
    """CP2K Quickstep: the liquid-water MD benchmarks of CP2K's own benchmarks/QS/H2O-<n>.inp
    (S4, n = 32 ... 1024 molecules), and the catalog's 8-water MD written in the experiment.

    CP2K prints its report on stdout ({log_file}): every number of its closing summary is a FOM
    (the timing report per subroutine, message passing, peak memory, the last MD step, the
    final energy, warnings); the "CP2K" row of the timing report is the whole program's time.
    """

    name = "cp2k"

    maintainers("hpcaas-bench")

    tags("molecular-dynamics", "dft", "quantum-chemistry")

    # No variants: the recipe's defaults are +mpi +openmp (cp2k.psmp), and a variant named here
    # would not match Debian's external, which states none.
    spack_package("cp2k", f"cp2k@{VERSION}")

    # CP2K's banner, once per run (2023 prints its DBCSR settings just before it).
    run_start_regex = r"^\s*\*+ \*+ \*+\s+\*+\s+PROGRAM STARTED AT"

    input_file(
        "cp2k_source",
        url=f"https://github.com/cp2k/cp2k/releases/download/v{VERSION}/cp2k-{VERSION}.tar.bz2",
        sha256="dff343b4a80c3a79363b805429bdb3320d3e1db48e0ff7d20a3dfd1c946a51ce",
        description=f"CP2K {VERSION} release (for benchmarks/QS/H2O-*.inp), the tarball Spack builds "
        f"{VERSION} from. Offline (Ramble then only says 'All fetchers failed'): save "
        f"cp2k-{VERSION}.tar.bz2 as <mirror>/cp2k/cp2k_source.tar.bz2 in a Ramble mirror "
        "(ramble mirror add <name> file://<mirror>)",
    )

    executable("write-h2o-8", template=[printf_command(H2O_8, "{input_path}")], use_mpi=False, redirect="")
    executable("execute", "{cp2k_exe} -i {input_path}", use_mpi=True)

    workload("h2o_8_local", executables=["write-h2o-8", "execute"], tags=["catalog"])
    workload("h2o", executables=["execute"], input="cp2k_source")
    # Any CP2K input already on the machine, nothing downloaded, e.g. the water MD example of
    # Debian's cp2k package.
    workload("local_input", executables=["execute"])
    for _workload, _input, _description in (
        ("h2o_8_local", "{experiment_run_dir}/H2O-8-local.inp", "CP2K input the write-h2o-8 step writes"),
        ("h2o", "{cp2k_source}/benchmarks/QS/H2O-{molecules}.inp", "CP2K input file"),
        (
            "local_input",
            "{workload_input_dir}/cp2k.inp",
            "CP2K input file on this machine (its basis and potential files from CP2K's data directory)",
        ),
    ):
        workload_variable("input_path", default=_input, workload=_workload, description=_description)
    workload_variable("md_steps", default="3", workload="h2o_8_local", description="NVE MD steps (0.5 fs each)")
    workload_variable(
        "molecules",
        default="32",
        values=SIZES,
        workload="h2o",
        description="Water molecules in the box: H2O-<molecules>.inp",
    )
    workload_variable(
        "cp2k_exe",
        default="cp2k.psmp",
        values=["cp2k.psmp", "cp2k.popt"],
        workloads=["h2o", "local_input", "h2o_8_local"],
        description="CP2K binary (psmp: MPI + OpenMP)",
    )

    # The whole program's time (the report's CP2K row), as before; and every row in its context.
    figures_of_merit(
        ("CP2K total time", "total_max", "s"),
        ("CP2K total time average", "total_avg", "s"),
        fom_regex=TIMING.replace(r"(?P<routine>[A-Za-z_][\w]*)", "CP2K"),
    )
    figure_of_merit_context("subroutine", regex=TIMING, output_format="Subroutine {routine}")
    figures_of_merit(
        ("Calls", "calls", ""),
        ("Stack depth", "asd", ""),
        ("Self time average", "self_avg", "s"),
        ("Self time max", "self_max", "s"),
        ("Total time average", "total_avg", "s"),
        ("Total time max", "total_max", "s"),
        fom_regex=TIMING,
        contexts=["subroutine"],
    )
    figures_of_merit(
        ("{mp} calls", MP, "calls", ""),
        ("{mp} average volume", MP_VOLUME, "volume", "B"),
        ("Peak process memory", r"^ MEMORY\| Estimated peak process memory \[MiB\]\s+(?P<v>[0-9]+)", "v", "MiB"),
        ("MD steps", r"^\s*(?:MD\|\s+Step number|STEP NUMBER\s+=)\s+(?P<step>[0-9]+)", "step", ""),
    )
    for _new, _old, _label, _units in (
        (r"Time \[fs\]", r"TIME \[fs\]", "MD time", "fs"),
        (r"Conserved quantity \[hartree\]", r"CONSERVED QUANTITY \[hartree\]", "Conserved quantity", "hartree"),
    ):
        figure_of_merit(
            _label, fom_regex=MD_ONE.replace("{new}", _new).replace("{old}", _old), group_name="v", units=_units
        )
    for _new, _old, _label, _units in (
        (r"CPU time per MD step \[s\]", r"CPU TIME \[s\]", "CPU time per MD step", "s"),
        (r"Energy drift per atom \[K\]", r"ENERGY DRIFT PER ATOM \[K\]", "Energy drift per atom", "K"),
        (r"Potential energy \[hartree\]", r"POTENTIAL ENERGY\s?\[hartree\]", "Potential energy", "hartree"),
        (r"Kinetic energy \[hartree\]", r"KINETIC ENERGY \[hartree\]", "Kinetic energy", "hartree"),
        (r"Temperature \[K\]", r"TEMPERATURE \[K\]", "Temperature", "K"),
    ):
        _regex = MD_PAIR.replace("{new}", _new).replace("{old}", _old)
        figure_of_merit(_label, fom_regex=_regex, group_name="inst", units=_units)
        figure_of_merit(f"{_label} average", fom_regex=_regex, group_name="avg", units=_units)
    figures_of_merit(
        (
            "Total energy",
            r"^ ENERGY\| Total FORCE_EVAL \( \w+ \) energy (?:\[a\.u\.\]|\(a\.u\.\)):\s+(?P<v>" + NUM + ")",
            "hartree",
        ),
        ("Warnings", r"^ The number of warnings for this run is : (?P<v>[0-9]+)", ""),
        group_name="v",
    )

    log_criteria(
        "{log_file}",
        # The timing report and the end banner are written only at a normal end; an abort prints
        # [ABORT] and stops.
        completed=r".*PROGRAM ENDED AT",
        no_errors=absent(r".*(?:\[ABORT\]|SIGSEGV)"),
        # Not a criterion: "SCF run NOT converged" is a warning CP2K's own benchmarks print on
        # their first MD step (e.g. ARCHER2's H2O-64 runs) and go on from; the catalog's input
        # converges.
        finite_values=absent(r"(?i)^ (?:ENERGY|MD)\|.*\s[-+]?(?:nan|inf(?:inity)?)\s*$"),
        requested_ranks=r".*GLOBAL\| Total number of message passing processes\s+{n_ranks}\s*$",
    )
