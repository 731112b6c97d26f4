from hpcaas_kit import *
from ramble.app.builtin.lammps import Lammps as BuiltinLammps
from ramble.appkit import *

# LAMMPS' own packages the S4 study compares, on top of the usual MD set.
PACKAGES = "+molecule +kspace +rigid +manybody +class2 +opt +openmp-package +extra-molecule"
# The version this offline machine builds and runs (Debian's tarball of stable 29 Sep 2021
# update 2, see spack-repo/packages/lammps); the studies name their own (20200303).
VERSION = "20220106"

# LAMMPS' bench/in.lj (3d Lennard-Jones melt, 32,000 atoms per 20^3 cells), written in the
# experiment. The box edges are one-letter LAMMPS variables ($X, not ${xx}): Ramble would expand
# a LAMMPS ${...} as its own variable.
LJ_INPUT = [
    "variable x index 1",
    "variable y index 1",
    "variable z index 1",
    "variable X equal {xx}",
    "variable Y equal {yy}",
    "variable Z equal {zz}",
    "units lj",
    "atom_style atomic",
    "lattice fcc 0.8442",
    "region box block 0 $X 0 $Y 0 $Z",
    "create_box 1 box",
    "create_atoms 1 box",
    "mass 1 1.0",
    "velocity all create 1.44 87287 loop geom",
    "pair_style lj/cut 2.5",
    "pair_coeff 1 1 1.0 1.0 2.5",
    "neighbor 0.3 bin",
    "neigh_modify delay 0 every 20 check no",
    "fix 1 all nve",
    "run {timesteps}",
]

# "Performance: 74.406 ns/day, 0.323 hours/ns, 430.591 timesteps/s, 862.904 katom-step/s":
# LJ units print tau/day, the others ns/day and hours/ns; atom-steps since 2020 (k, M or G).
PERF = r"^Performance:.*?\s(?P<v>" + NUM + r") {unit}"
LOOP = (
    r"^Loop time of (?P<loop>" + NUM + r") on (?P<procs>[0-9]+) procs(?: \([0-9]+ MPI x [0-9]+ OpenMP\))? "
    r"for (?P<steps>[0-9]+) steps with (?P<atoms>[0-9]+) atoms"
)
# "99.3% CPU use with 4 MPI tasks x 1 OpenMP threads" ("x no OpenMP threads" without OpenMP).
CPU_USE = r"^(?P<cpu>" + NUM + r")% CPU use with (?P<mpi>[0-9]+) MPI tasks x (?P<omp>[0-9]+|no) OpenMP threads"
# "MPI task timing breakdown": Section | min | avg | max | %varavg | %total ("Other" has avg and
# %total only).
SECTION = (
    rf"^(?P<section>[A-Z][a-z]+)\s*\|\s*(?P<min>{NUM})\s*\|\s*(?P<avg>{NUM})\s*\|\s*(?P<max>{NUM})"
    rf"\s*\|\s*(?P<var>{NUM})\s*\|\s*(?P<pct>{NUM})\s*$"
)
OTHER = r"^Other\s*\|\s*\|\s*(?P<avg>" + NUM + r")\s*\|\s*\|\s*\|\s*(?P<pct>" + NUM + r")\s*$"
# Per-rank statistics: "Nlocal:   501 ave   508 max   490 min" (Nghost, Neighs, FullNghs alike).
PER_RANK = rf"^(?P<stat>Nlocal|Nghost|Neighs|FullNghs):\s+(?P<ave>{NUM}) ave\s+(?P<max>{NUM}) max\s+(?P<min>{NUM}) min"
# "Per MPI rank memory allocation (min/avg/max) = 16.01 | 16.22 | 16.41 Mbytes" (2017 on).
MEMORY = r"^Per MPI rank memory allocation \(min/avg/max\) = "
# GPU package, on stdout only: "Device Time Info (average)" block.
DEVICE_TIME = (
    r"^(?P<item>Data Transfer|Data Cast/Pack|Neighbor copy|Neighbor unpack|Neighbor build|Force calc"
    r"|Device Overhead|CPU Neighbor|CPU Cast/Pack|CPU Driver_Time|CPU Idle_Time):\s+(?P<v>" + NUM + r") s\."
)


class Lammps(ResultIdentity, BuiltinLammps):
    """LAMMPS for S4 (Desmos/Angara): LJ weak scaling, the C30H62 oil and ApoA1 models, each with
    the CPU, GPU package and INTEL package builds; and the catalog's LJ melt written in the experiment.

    Adds to Ramble's builtin: a pinned spec without a compiler, oil and ApoA1 workloads, an LJ workload
    that downloads nothing (catalog), every number of LAMMPS' run summary (performance in every
    unit it prints, loop time, CPU use, the timing breakdown of every section, per-rank atom and
    neighbor statistics, neighbor list builds, memory, GPU package device times) and criteria
    that judge the run from its log (the builtin only looked for "Total wall time").
    """

    name = "lammps"

    maintainers("hpcaas-bench")

    # Built from source (Debian's pristine tarball) in about 4 min on 2 cores: the catalog's slow
    # tier, beside GROMACS (CI's fresh run has no room for it in the fast tier).
    tags("slow-build")

    # The catalog's build: the builtin's default packages. Studies name theirs in their own specs.
    spack_package("lammps", f"lammps@{VERSION}")
    # Run the GPU and INTEL builds with their suffix flags in lammps_flags (-sf gpu -pk gpu 1 /
    # -sf intel). GPU package (not KOKKOS): Desmos had GTX 1070 cards (sm_61).
    software_spec("lammps_intel", pkg_spec=f"lammps@{VERSION} {PACKAGES} +openmp +intel", package_manager="spack*")
    software_spec(
        "lammps_gpu",
        pkg_spec=f"lammps@{VERSION} {PACKAGES} +openmp ~kokkos +cuda cuda_arch=61 " "gpu_precision=mixed",
        package_manager="spack*",
    )

    # The first line of every run's log: "LAMMPS (29 Sep 2021 - Update 2)".
    run_start_regex = r"^LAMMPS \("

    input_file(
        "leonard-jones",
        url="https://www.lammps.org/inputs/in.lj.txt",
        expand=False,
        sha256="874b4c63b6fcbb6ede76522df19087acf2f49b6bc96794cf0aa3218c66ff7e06",
        description="LJ atomic fluid, 32k atoms per 20^3 cells, 100 timesteps. Offline (Ramble then "
        "only says 'All fetchers failed'): copy a Ramble mirror holding in.lj.txt, made with "
        "`ramble mirror create` on a connected machine, and `ramble mirror add` it",
    )

    executable(
        "write-lj", template=[printf_command(LJ_INPUT, "{experiment_run_dir}/input.txt")], use_mpi=False, redirect=""
    )

    # The builtin's set-timesteps ("s/run.*[0-9]+/..." in sed's basic syntax, where + is a plain
    # character) never matches a "run 100" line, so a copied input kept its own step count.
    executable(
        "set-timesteps",
        template=[r"sed -E -i 's/^(\s*run\s+)[0-9]+/\1{timesteps}/' {experiment_run_dir}/input.txt"],
        use_mpi=False,
    )

    # The catalog's: bench/in.lj written in the experiment, nothing downloaded.
    workload("lj_local", executables=["write-lj", "execute"], tags=["catalog"])
    # C30H62 (triacontane) oil, all-atom, real units: the study's input is not public.
    workload("oil", executables=["copy", "set-timesteps", "execute"])
    workload_variable(
        "input_path",
        default="{workload_input_dir}/in.oil",
        workload="oil",
        description="LAMMPS input of the C30H62 oil model (with its data file); " "not public: place it here",
    )
    # ApoA1 in water (92,224 atoms, CHARMM, PME), IJHPCA'19 Fig. 9: no public LAMMPS input (NAMD's
    # benchmark files converted with LAMMPS' tools/ch2lmp is one way): the site's.
    workload("apoa1", executables=["copy", "set-timesteps", "execute"])
    workload_variable(
        "input_path",
        default="{workload_input_dir}/in.apoa1",
        workload="apoa1",
        description="LAMMPS input of the ApoA1 model (with its data file); not public: place it here",
    )
    workload_variable(
        "timesteps", default="100", workloads=["oil", "apoa1", "lj_local"], description="Number of timesteps"
    )
    workload_variable(
        "lammps_flags",
        default="",
        workloads=["oil", "apoa1", "lj_local"],
        description="Additional execution flags for lammps (e.g. -sf gpu -pk gpu 1)",
    )
    for _axis in ("xx", "yy", "zz"):
        workload_variable(
            _axis,
            default=f"20*${_axis[0]}",
            workloads=["lj", "eam", "lj_local"],
            description=f"Lattice cells along {_axis[0]} (32,000 atoms at 20^3); for weak "
            f"scaling grow it with the ranks, e.g. 20*2 for 8 ranks",
        )

    # Every run or minimize command of an input is a run block with its own summary, opened by
    # its memory line: "Per MPI rank memory allocation" (2017 on), "Memory usage per processor".
    figure_of_merit_context(
        "run", regex=r"^(?:Per MPI rank memory allocation|Memory usage per processor)", output_format="run"
    )
    section_contexts = ("run",)

    for _name, _unit in (
        ("Tau per day", "tau/day"),
        ("Nanoseconds per day", "ns/day"),
        ("Hours per nanosecond", "hours/ns"),
        ("Timesteps per second", "timesteps/s"),
        ("Katom-steps per second", "katom-step/s"),
        ("Matom-steps per second", "Matom-step/s"),
        ("Gatom-steps per second", "Gatom-step/s"),
    ):
        figure_of_merit(_name, fom_regex=PERF.replace("{unit}", _unit.replace("/", r"/")), group_name="v", units=_unit)
    figures_of_merit(
        ("Loop time", LOOP, "loop", "s"),
        ("Processors", LOOP, "procs", ""),
        ("Steps", LOOP, "steps", ""),
        ("Atoms", LOOP, "atoms", ""),
        ("CPU use", CPU_USE, "cpu", "%"),
        ("MPI tasks", CPU_USE, "mpi", ""),
        ("OpenMP threads", CPU_USE.replace("[0-9]+|no", "[0-9]+"), "omp", ""),
    )

    # The builtin's names ("Pair avg time", ...), for every section LAMMPS prints.
    figures_of_merit(
        ("{section} min time", "min", "s"),
        ("{section} avg time", "avg", "s"),
        ("{section} max time", "max", "s"),
        ("{section} avg. variance", "var", "%"),
        ("{section} percent of runtime", "pct", "%"),
        fom_regex=SECTION,
    )
    figures_of_merit(("Other avg time", "avg", "s"), ("Other percent of runtime", "pct", "%"), fom_regex=OTHER)

    figures_of_merit(
        ("{stat} per rank average", "ave", ""),
        ("{stat} per rank max", "max", ""),
        ("{stat} per rank min", "min", ""),
        fom_regex=PER_RANK,
    )
    figures_of_merit(
        ("Total neighbors", r"^Total # of neighbors = (?P<v>" + NUM + ")", ""),
        ("Neighbors per atom", r"^Ave neighs/atom = (?P<v>" + NUM + ")", ""),
        ("Special neighbors per atom", r"^Ave special neighs/atom = (?P<v>" + NUM + ")", ""),
        ("Neighbor list builds", r"^Neighbor list builds = (?P<v>[0-9]+)", ""),
        ("Dangerous builds", r"^Dangerous builds = (?P<v>[0-9]+)", ""),
        # Before the run: MEMORY's line (2017 on) or "Memory usage per processor = 9.96267 Mbytes".
        ("Memory per rank min", MEMORY + rf"(?P<v>{NUM}) \|", "Mbytes"),
        ("Memory per rank avg", MEMORY + rf"{NUM} \| (?P<v>{NUM}) \|", "Mbytes"),
        ("Memory per rank max", MEMORY + rf"{NUM} \| {NUM} \| (?P<v>{NUM}) Mbytes", "Mbytes"),
        ("Memory per processor", r"^Memory usage per processor = (?P<v>" + NUM + r") Mbytes", "Mbytes"),
        ("GPU average split", r"^Average split:\s+(?P<v>" + NUM + r")\.", ""),
        ("GPU threads per atom", r"^(?:Threads|Lanes) / atom:\s+(?P<v>[0-9]+)\.", ""),
        ("GPU vector width", r"^Vector width:\s+(?P<v>[0-9]+)\.", ""),
        ("GPU max memory per rank", r"^Max Mem / Proc:\s+(?P<v>" + NUM + r") MB\.", "MB"),
        ("GPU {item}", DEVICE_TIME, "s"),
        group_name="v",
    )

    log_criteria(
        "{log_file}",
        # LAMMPS prints "Total wall time" last, after every run of the input; an ERROR stops it before.
        completed=r"^Total wall time:",
        no_errors=absent(r"ERROR"),
        # Thermo output holding nan or inf ("-nan" in columns, "TotEng = nan" in thermo_style multi).
        finite_values=absent(
            rf"(?i)(?:^(?=.*\b(?:nan|inf)\b)\s*[0-9]+(?:\s+(?:{NUM}|[-+]?nan|[-+]?inf))+\s*$|.*=\s*[-+]?(?:nan|inf)\b)"
        ),
        requested_ranks=r".*with {n_ranks} MPI tasks",
    )


# The builtin's "Total wall time" is LAMMPS' H:MM:SS text ("0:00:01"), not a number, so a tidy
# results table cannot hold it and marks the run failed; "Loop time" is the run's time in seconds.
# Its "Modifier ..." FOMs name a section LAMMPS calls "Modify" (now read by "{section} ..."), its
# per-section ones are replaced by those, its criterion by "completed", its ns/day regex also took
# tau/day, and its compiler and specs pin gcc 9.3 and Intel MPI (convention item 2).
for _fom in [
    f
    for f in Lammps.figures_of_merit
    if f == "Total wall time" or f.split(" ")[0] in ("Pair", "Neigh", "Comm", "Output", "Modifier")
]:
    del Lammps.figures_of_merit[_fom]
del Lammps.success_criteria["walltime"]
del Lammps.compilers["gcc9"]
del Lammps.software_specs["impi2018"]
