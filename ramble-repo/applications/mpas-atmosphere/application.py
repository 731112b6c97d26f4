import os

from ramble.appkit import *

NUM = r"[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?"
# A row of the timer table MPAS prints at the end of log.atmosphere.0000.out:
# level, name, total, calls, min, max, avg, pct_tot, pct_par, par_eff.
TIMER = (r"^\s*{level}\s+{name}\s+(?P<total>" + NUM + r")\s+(?P<calls>[0-9]+)\s+(?P<min>" + NUM
         + r")\s+(?P<max>" + NUM + r")\s+(?P<avg>" + NUM + r")\s")


def timer(level, name):
    return TIMER.replace("{level}", str(level)).replace("{name}", name)


class MpasAtmosphere(ExecutableApplication):
    """MPAS-Atmosphere for S1 (HPCaaS-Bench T8: compiler {gnu, intel, cray} x {-O3, -Ofast}): the
    120 km quasi-uniform mesh (x1.40962, 40,962 cells), a 20-day forecast with the
    mesoscale_reference physics suite.

    The input is NCAR's MPAS-A benchmark (initial conditions, graph, physics tables, namelist);
    its namelist is edited for the run length. MPAS needs a partition of the mesh graph for the
    number of MPI ranks (x1.40962.graph.info.part.<n_ranks>): it is made with METIS' gpmetis when
    the input does not carry one. Rank 0 writes log.atmosphere.0000.out, ending with MPAS' timer
    table, from which the figures of merit come. A run that crashes (the study's GNU -Ofast build
    segfaults) never prints "Finished running the atmosphere core" and fails.
    """

    name = "mpas-atmosphere"

    maintainers("hpcaas-bench")

    tags("weather", "atmosphere", "climate")

    define_compiler("gcc12", pkg_spec="gcc@12.2.0", package_manager="spack*")
    # opt is the T8 axis (with the compiler): set it per experiment in the software section.
    software_spec("mpas-atmosphere", pkg_spec="mpas-atmosphere@7.3 opt=O3 precision=double",
                  compiler="gcc12", package_manager="spack*")
    software_spec("metis", pkg_spec="metis@5.1.0", compiler="gcc12", package_manager="spack*")
    required_package("mpas-atmosphere", package_manager="spack*")

    # NCAR publishes no checksum; none was found elsewhere either, so Ramble cannot verify it.
    input_file(
        "mpas_a_benchmark_120km",
        url="https://www2.mmm.ucar.edu/projects/mpas/benchmark/v7.0/MPAS-A_benchmark_120km_v7.0.tar.gz",
        description="NCAR's MPAS-Atmosphere v7.0 benchmark on the 120 km mesh (x1.40962.init.nc, "
                    "graph, namelist and streams, physics tables). Offline: save it as "
                    "<mirror>/mpas-atmosphere/mpas_a_benchmark_120km.tar.gz in a Ramble mirror",
    )

    executable("link-inputs", template=["ln -sf {input_path}/* {experiment_run_dir}/",
                                        # the namelist is edited: a copy, not a link
                                        "rm -f {experiment_run_dir}/namelist.atmosphere",
                                        "cp {input_path}/namelist.atmosphere {experiment_run_dir}/"],
               use_mpi=False)
    # MPAS runs mesoscale_reference when the namelist names no suite.
    executable("configure", template=[
        "sed -i \"s/config_run_duration *=.*/config_run_duration = '{run_duration}'/\" namelist.atmosphere",
        "sed -i \"s/config_physics_suite *=.*/config_physics_suite = '{physics_suite}'/\" namelist.atmosphere",
    ], use_mpi=False)
    executable("partition", template=["test -f {graph_file}.part.{n_ranks} || {gpmetis} -minconn -contig "
                                      "-niter=200 {graph_file} {n_ranks}"], use_mpi=False)
    executable("execute", "{atmosphere_exe}", use_mpi=True)

    workload("x1_40962", executables=["link-inputs", "configure", "partition", "execute"],
             input="mpas_a_benchmark_120km")

    workload_variable("input_path", default="{mpas_a_benchmark_120km}", workload="x1_40962",
                      description="Directory of the unpacked benchmark")
    workload_variable("run_duration", default="20_00:00:00", workload="x1_40962",
                      description="Forecast length, MPAS' D_HH:MM:SS (the study: 20 days)")
    workload_variable("physics_suite", default="mesoscale_reference", workload="x1_40962",
                      description="MPAS physics suite (the study: mesoscale_reference)")
    workload_variable("graph_file", default="x1.40962.graph.info", workload="x1_40962",
                      description="Mesh graph; MPAS reads <graph_file>.part.<n_ranks>")
    workload_variable("gpmetis", default="gpmetis", workload="x1_40962",
                      description="METIS' graph partitioner, used when the partition is missing")
    workload_variable("atmosphere_exe", default="atmosphere_model", workload="x1_40962",
                      description="MPAS-Atmosphere model binary")
    environment_variable("OMP_NUM_THREADS", value="{n_threads}", workload="x1_40962",
                         description="OpenMP threads per rank (the recipe builds MPAS with OpenMP)")

    log_str = os.path.join("{experiment_run_dir}", "log.atmosphere.0000.out")

    for _name, _row, _group, _units in (
        ("Total time", timer(1, "total time"), "total", "s"),
        ("Initialize time", timer(2, "initialize"), "total", "s"),
        ("Time integration", timer(2, "time integration"), "total", "s"),
        ("Time steps", timer(2, "time integration"), "calls", ""),
        ("Time per step (avg)", timer(2, "time integration"), "avg", "s"),
        ("Time per step (max)", timer(2, "time integration"), "max", "s"),
        ("Physics driver time", timer(3, "physics driver"), "total", "s"),
    ):
        figure_of_merit(_name, log_file=log_str, fom_regex=_row, group_name=_group, units=_units)
    figure_of_merit("MPI tasks", log_file=log_str,
                    fom_regex=r"^Beginning MPAS-atmosphere Output Log File for task\s+0\s+of\s+(?P<tasks>[0-9]+)",
                    group_name="tasks", units="")
    figure_of_merit("Cells", log_file=log_str, fom_regex=r"^\s*nCells\s*=\s*(?P<cells>[0-9]+)",
                    group_name="cells", units="")
    figure_of_merit("Critical errors", log_file=log_str,
                    fom_regex=r"^\s*Critical error messages\s*=\s*(?P<n>[0-9]+)", group_name="n", units="")

    success_criteria("finished", mode="string", match=r"^\s*Finished running the atmosphere core",
                     file=log_str)
    success_criteria("no-critical-error", mode="string",
                     match=r"^\s*Critical error messages\s*=\s*0\s*$", file=log_str)
