from hpcaas_kit import *
from ramble.appkit import *

# A row of the timer table MPAS prints at the end of log.atmosphere.0000.out:
# level, name, total, calls, min, max, avg, pct_tot, pct_par, par_eff (TIMER_TIMES: total to avg).
TIMER_TIMES = rf"\s+(?P<total>{NUM})\s+(?P<calls>[0-9]+)\s+(?P<min>{NUM})\s+(?P<max>{NUM})\s+(?P<avg>{NUM})\s"
TIMER_ROW = (
    r"^\s*(?P<level>[0-9]+)\s+(?P<timer>\S.*?)"
    + TIMER_TIMES
    + rf"+(?P<pct_tot>{NUM})\s+(?P<pct_par>{NUM})\s+(?P<par_eff>{NUM})\s*$"
)


def timer(level, name):
    """The row of one timer (its level and name fixed), to its avg column."""
    return rf"^\s*{level}\s+{name}" + TIMER_TIMES


# The graph of the catalog's mesh for METIS, from the mesh itself (ncdump of nEdgesOnCell and
# cellsOnCell): "nCells nEdges", then each cell's neighbours. Braces escaped for Ramble's expander.
GRAPH_AWK = (
    '/^ *nEdgesOnCell =/ \\{m = "n"; sub(/.*=/, "")\\} /^ *cellsOnCell =/ \\{m = "c"; sub(/.*=/, "")\\} '
    'm != "" \\{gsub(/[;,]/, " "); for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) \\{if (m == "n") n[++nc] = $i; '
    'else c[++cc] = $i\\}\\} /;/ \\{m = ""\\} '
    "END \\{w = cc / nc; e = 0; for (i = 1; i <= nc; i++) e += n[i]; print nc, e / 2; "
    'for (i = 1; i <= nc; i++) \\{l = ""; for (j = 1; j <= n[i]; j++) l = l " " c[(i - 1) * w + j]; '
    "print substr(l, 2)\\}\\}"
)


class MpasAtmosphere(ExecutableApplication):
    """MPAS-Atmosphere for S1 (HPCaaS-Bench T8: compiler {gnu, intel, cray} x {-O3, -Ofast}): the
    120 km quasi-uniform mesh (x1.40962, 40,962 cells), a 20-day forecast with the
    mesoscale_reference physics suite; and the catalog's idealized case, the Jablonowski-Williamson
    baroclinic wave (init_atmosphere case 2, dry dynamics) on the 162-cell x1.162 mesh.

    x1_40962's input is NCAR's MPAS-A benchmark (initial conditions, graph, physics tables,
    namelist), whose namelist is edited for the run length. jw_x1_162's only input is the mesh
    (MPAS-Tools' test copy of x1.162.grid.nc, a small file pinned by commit and sha256): the
    experiment makes the initial state with init_atmosphere_model, the graph of the mesh with
    ncdump, then runs atmosphere_model from the namelist and streams the package installs.
    MPAS needs a partition of the mesh graph for the number of MPI ranks (<graph>.part.<n_ranks>),
    made with METIS' gpmetis when the input does not carry one. Rank 0 writes
    log.atmosphere.0000.out (results_file), ending with MPAS' timer table and message counts, from
    which the figures of merit come. A run that crashes (the study's GNU -Ofast build segfaults)
    never prints "Finished running the atmosphere core" and fails.
    """

    name = "mpas-atmosphere"

    maintainers("hpcaas-bench")

    tags("weather", "atmosphere", "climate")
    # Two builds of ~400 Fortran files (init_atmosphere, atmosphere): about 9 min on 2 cores, the
    # catalog's slow tier. Its jw_x1_162 input is a file of MPAS-Tools at a pinned commit, which
    # make mirror serves (scripts/mirror-inputs.py).
    tags("slow-build")

    # opt is the T8 axis (with the compiler): set it per experiment in the software section.
    spack_package("mpas-atmosphere", "mpas-atmosphere@7.3 opt=O3 precision=double")
    software_spec("metis", pkg_spec="metis@5.1.0", package_manager="spack*")

    run_start_regex = r"^Beginning MPAS-atmosphere Output Log File for task\s+0\s+of"

    # NCAR publishes no checksum; none was found elsewhere either, so Ramble cannot verify it.
    input_file(
        "mpas_a_benchmark_120km",
        url="https://www2.mmm.ucar.edu/projects/mpas/benchmark/v7.0/MPAS-A_benchmark_120km_v7.0.tar.gz",
        description="NCAR's MPAS-Atmosphere v7.0 benchmark on the 120 km mesh (x1.40962.init.nc, "
        "graph, namelist and streams, physics tables). Offline: save it as "
        "<mirror>/mpas-atmosphere/mpas_a_benchmark_120km.tar.gz in a Ramble mirror",
    )
    # MpasMeshConverter.x's output for base_grids/x1.162.grid.nc (on the unit sphere, as MPAS-A's
    # grids are), kept by MPAS-Tools as its mesh converter's test mesh.
    input_file(
        "x1_162_grid",
        url="https://raw.githubusercontent.com/MPAS-Dev/MPAS-Tools/e0e4dcb9315b64ef2cc01f6bc003a48176325d4e/"
        "mesh_tools/mesh_conversion_tools/test/mesh.QU.1920km.151026.nc",
        sha256="5dd5332d546c122aa3f42766ff7897bea64034318742afa8498c52221376dbae",
        expand=False,
        description="The x1.162 quasi-uniform mesh (162 cells, ~1920 km), MPAS-Tools' copy. Offline: "
        "make mirror puts it into the project's Ramble mirror from MPAS-Tools' git at that commit",
    )

    executable(
        "link-inputs",
        template=[
            "ln -sf {input_path}/* {experiment_run_dir}/",
            # the namelist is edited: a copy, not a link
            "rm -f {experiment_run_dir}/namelist.atmosphere",
            "cp {input_path}/namelist.atmosphere {experiment_run_dir}/",
        ],
        use_mpi=False,
    )
    # MPAS runs mesoscale_reference when the namelist names no suite.
    executable(
        "configure",
        template=[
            "sed -i \"s/config_run_duration *=.*/config_run_duration = '{run_duration}'/\" namelist.atmosphere",
            "sed -i \"s/config_physics_suite *=.*/config_physics_suite = '{physics_suite}'/\" namelist.atmosphere",
        ],
        use_mpi=False,
    )
    executable(
        "partition",
        template=[
            ("test -f {graph_file}.part.{n_ranks} || {gpmetis} -minconn -contig " "-niter=200 {graph_file} {n_ranks}")
        ],
        use_mpi=False,
    )
    executable("execute", "{atmosphere_exe}", use_mpi=True)

    # The catalog's case: defaults installed with the model (bin/), renamed to the mesh x1.162.
    executable(
        "idealized-inputs",
        template=[
            (
                "cp $(dirname $(command -v {atmosphere_exe}))/namelist.init_atmosphere "
                "$(dirname $(command -v {atmosphere_exe}))/streams.init_atmosphere "
                "$(dirname $(command -v {atmosphere_exe}))/namelist.atmosphere "
                "$(dirname $(command -v {atmosphere_exe}))/streams.atmosphere "
                "$(dirname $(command -v {atmosphere_exe}))/stream_list.atmosphere.* {experiment_run_dir}/"
            ),
            "cp {x1_162_grid} {experiment_run_dir}/x1.162.grid.nc",
            (
                "sed -i 's/x1\\.40962/x1.162/g' namelist.init_atmosphere streams.init_atmosphere namelist.atmosphere "
                "streams.atmosphere"
            ),
            # Streams default to PnetCDF, which ParallelIO is built without here (~pnetcdf): netCDF.
            (
                "sed -i -e 's/<immutable_stream /&io_type=\"netcdf\" /' -e 's/<stream /&io_type=\"netcdf\" /' "
                "streams.init_atmosphere streams.atmosphere"
            ),
            (
                'sed -i "s/config_init_case *=.*/config_init_case = 2/; s/config_nvertlevels *=.*/config_nvertlevels = '
                '{vertical_levels}/" namelist.init_atmosphere'
            ),
            (
                'sed -i "s/config_dt *=.*/config_dt = {time_step}/; s/config_len_disp *=.*/config_len_disp = '
                '{dissipation_length}/" namelist.atmosphere'
            ),
        ],
        use_mpi=False,
    )
    executable(
        "mesh-graph",
        template=[
            "ncdump -v nEdgesOnCell,cellsOnCell x1.162.grid.nc | awk '" + GRAPH_AWK + "' > {graph_file}",
            # One rank: every cell in part 0 (gpmetis wants two parts or more).
            "if [ {n_ranks} -eq 1 ]; then awk 'NR > 1 \\{print 0\\}' {graph_file} > {graph_file}.part.1; fi",
        ],
        use_mpi=False,
        redirect="",
    )  # not into the log: its own redirections write the graph
    executable("init", "{init_exe}", use_mpi=False, redirect="{experiment_run_dir}/init_atmosphere.out")

    workload(
        "x1_40962", executables=["link-inputs", "configure", "partition", "execute"], input="mpas_a_benchmark_120km"
    )
    workload(
        "jw_x1_162",
        executables=["idealized-inputs", "mesh-graph", "partition", "init", "configure", "execute"],
        input="x1_162_grid",
        tags=["catalog"],
    )

    workload_variable(
        "input_path",
        default="{mpas_a_benchmark_120km}",
        workload="x1_40962",
        description="Directory of the unpacked benchmark",
    )
    for _workload, _duration, _suite, _graph in (
        ("x1_40962", "20_00:00:00", "mesoscale_reference", "x1.40962.graph.info"),
        ("jw_x1_162", "1_00:00:00", "none", "x1.162.graph.info"),
    ):
        workload_variable(
            "run_duration",
            default=_duration,
            workload=_workload,
            description="Forecast length, MPAS' D_HH:MM:SS (the study: 20 days)",
        )
        workload_variable(
            "physics_suite",
            default=_suite,
            workload=_workload,
            description="MPAS physics suite (the study: mesoscale_reference; the baroclinic wave "
            "is dry dynamics: none)",
        )
        workload_variable(
            "graph_file",
            default=_graph,
            workload=_workload,
            description="Mesh graph; MPAS reads <graph_file>.part.<n_ranks>",
        )
    _both = ["x1_40962", "jw_x1_162"]
    workload_variables(
        ("gpmetis", "gpmetis", "METIS' graph partitioner, used when the partition is missing"),
        ("atmosphere_exe", "atmosphere_model", "MPAS-Atmosphere model binary"),
        ("results_file", "{experiment_run_dir}/log.atmosphere.0000.out", "Rank 0's log"),
        workloads=_both,
    )
    environment_variable(
        "OMP_NUM_THREADS",
        value="{n_threads}",
        workloads=_both,
        description="OpenMP threads per rank (the recipe builds MPAS with OpenMP)",
    )
    workload_variables(
        ("init_exe", "init_atmosphere_model", "MPAS' init_atmosphere core (makes x1.162.init.nc)"),
        ("vertical_levels", "26", "Vertical levels of the idealized state (Jablonowski-Williamson: 26)"),
        # MPAS: a time step of at most ~6 x the cell spacing in km (1920 km here).
        ("time_step", "1800.0", "Model time step (s)"),
        ("dissipation_length", "1920000.0", "config_len_disp: the mesh's cell spacing (m)"),
        workload="jw_x1_162",
    )

    figures_of_merit(
        ("Total time", timer(1, "total time"), "total", "s"),
        ("Initialize time", timer(2, "initialize"), "total", "s"),
        ("Time integration", timer(2, "time integration"), "total", "s"),
        ("Time steps", timer(2, "time integration"), "calls", ""),
        ("Time per step (avg)", timer(2, "time integration"), "avg", "s"),
        ("Time per step (max)", timer(2, "time integration"), "max", "s"),
        ("Physics driver time", timer(3, "physics driver"), "total", "s"),
        log_file="{results_file}",
    )
    # Every row of the timer table, by timer name (the rows depend on the physics and the build).
    for _column, _units in (
        ("total", "s"),
        ("calls", ""),
        ("min", "s"),
        ("max", "s"),
        ("avg", "s"),
        ("pct_tot", "%"),
        ("pct_par", "%"),
        ("par_eff", ""),
    ):
        figure_of_merit(
            "{timer} " + _column, log_file="{results_file}", fom_regex=TIMER_ROW, group_name=_column, units=_units
        )
    figures_of_merit(
        ("MPI tasks", r"^Beginning MPAS-atmosphere Output Log File for task\s+0\s+of\s+(?P<tasks>[0-9]+)", "tasks", ""),
        ("Cells", r"^\s*nCells\s*=\s*(?P<cells>[0-9]+)", "cells", ""),
        *[
            (_name, r"^\s*" + _label + r"\s*=\s*(?P<n>[0-9]+)", "n", "")
            for _name, _label in (
                ("Output messages", "Output messages"),
                ("Warning messages", "Warning messages"),
                ("Error messages", "Error messages"),
                ("Critical errors", "Critical error messages"),
            )
        ],
        # After every step: its wall time and the extremes of w and u (the last step's are kept).
        ("Last step time", rf"^\s*Timing for integration step:\s*(?P<s>{NUM})\s*s", "s", "s"),
        log_file="{results_file}",
    )
    for _field in ("w", "u"):
        for _end, _group in (("min", "lo"), ("max", "hi")):
            figure_of_merit(
                f"Last step global {_end} {_field}",
                log_file="{results_file}",
                fom_regex=r"^\s*global min, max " + _field + r"\s+(?P<lo>" + NUM + r")\s+(?P<hi>" + NUM + r")\s*$",
                group_name=_group,
                units="m/s",
            )

    log_criteria(
        "{results_file}",
        completed=r"^\s*Finished running the atmosphere core",
        # MPAS' own count of critical errors (its log ends with it).
        no_errors=r"^\s*Critical error messages\s*=\s*0\s*$",
        finite_values=absent(r"^\s*(global min, max|Timing for integration step).*\b(NaN|nan|Infinity|inf)\b"),
        requested_tasks=r"^Beginning MPAS-atmosphere Output Log File for task\s+0\s+of\s+{n_ranks}\s*$",
    )
