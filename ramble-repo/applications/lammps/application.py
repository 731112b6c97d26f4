from ramble.appkit import *
from ramble.app.builtin.lammps import Lammps as BuiltinLammps

# LAMMPS' own packages the S4 study compares, on top of the usual MD set.
PACKAGES = "+molecule +kspace +rigid +manybody +class2 +opt +openmp-package +extra-molecule"


class Lammps(BuiltinLammps):
    """LAMMPS for S4 (Desmos/Angara): LJ weak scaling and the C30H62 oil model, each with the
    CPU, GPU package and INTEL package builds.

    Adds to Ramble's builtin: pinned specs for the three builds, an oil workload, FOMs that keep
    LJ units (tau/day) apart from real units (ns/day), the loop time, and a criterion that a run
    ending in a LAMMPS ERROR fails.
    """

    name = "lammps"

    maintainers("hpcaas-bench")

    define_compiler("gcc12", pkg_spec="gcc@12.2.0", package_manager="spack*")
    # One build per study axis value; pick one in the workspace's software section. Run the GPU
    # and INTEL builds with their suffix flags in lammps_flags (-sf gpu -pk gpu 1 / -sf intel).
    software_spec("lammps", pkg_spec=f"lammps@20240829.1 {PACKAGES} +openmp", compiler="gcc12",
                  package_manager="spack*")
    software_spec("lammps_intel", pkg_spec=f"lammps@20240829.1 {PACKAGES} +openmp +intel",
                  compiler="gcc12", package_manager="spack*")
    # GPU package (not KOKKOS): Desmos had GTX 1070 cards (sm_61).
    software_spec("lammps_gpu", pkg_spec=f"lammps@20240829.1 {PACKAGES} +openmp ~kokkos +cuda "
                  "cuda_arch=61 gpu_precision=mixed", compiler="gcc12", package_manager="spack*")

    input_file(
        "leonard-jones", url="https://www.lammps.org/inputs/in.lj.txt", expand=False,
        sha256="874b4c63b6fcbb6ede76522df19087acf2f49b6bc96794cf0aa3218c66ff7e06",
        description="LJ atomic fluid, 32k atoms per 20^3 cells, 100 timesteps. Offline (Ramble then "
                    "only says 'All fetchers failed'): copy a Ramble mirror holding in.lj.txt, made with "
                    "`ramble mirror create` on a connected machine, and `ramble mirror add` it",
    )

    # C30H62 (triacontane) oil, all-atom, real units: the study's input is not public.
    workload("oil", executables=["copy", "set-timesteps", "execute"])
    workload_variable("input_path", default="{workload_input_dir}/in.oil", workload="oil",
                      description="LAMMPS input of the C30H62 oil model (with its data file); "
                                  "not public: place it here")
    workload_variable("timesteps", default="100", workload="oil", description="Number of timesteps")
    workload_variable("lammps_flags", default="", workload="oil",
                      description="Additional execution flags for lammps (e.g. -sf gpu -pk gpu 1)")
    for _axis in ("xx", "yy", "zz"):
        workload_variable(_axis, default=f"20*${_axis[0]}", workloads=["lj", "eam"],
                          description=f"Lattice cells along {_axis[0]} (32,000 atoms at 20^3); for weak "
                                      f"scaling grow it with the ranks, e.g. 20*2 for 8 ranks")

    # The builtin reads both as ns/day; LJ units print tau/day, real units (oil) ns/day.
    figure_of_merit("Nanoseconds per day", fom_regex=r"Performance:\s+(?P<rate>[0-9.]+)\s+ns/day",
                    group_name="rate", units="ns/day")
    figure_of_merit("Tau per day", fom_regex=r"Performance:\s+(?P<rate>[0-9.]+)\s+tau/day",
                    group_name="rate", units="tau/day")
    loop = (r"Loop time of (?P<loop>[0-9.eE+-]+) on (?P<procs>[0-9]+) procs for (?P<steps>[0-9]+) "
            r"steps with (?P<atoms>[0-9]+) atoms")
    figure_of_merit("Loop time", fom_regex=loop, group_name="loop", units="s")
    figure_of_merit("Atoms", fom_regex=loop, group_name="atoms", units="")

    success_criteria("no-error", mode="string", anti_match=r"^ERROR", file="{log_file}")


# The builtin's "Total wall time" is LAMMPS' H:MM:SS text ("0:00:01"), not a number, so a tidy
# results table cannot hold it and marks the run failed; "Loop time" is the run's time in seconds.
Lammps.figures_of_merit.pop("Total wall time", None)
