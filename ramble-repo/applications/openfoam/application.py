import os

from ramble.appkit import *
from ramble.app.builtin.openfoam import Openfoam as BuiltinOpenfoam

# Every OpenFOAM utility opens its log with a banner naming itself ("Exec   : simpleFoam -parallel");
# the lines after it belong to that utility.
BANNER = r"^Exec\s+:\s+(?P<application>\S+)"
# Printed after each solver iteration; the last one of a utility is its total.
TIMES = r"^ExecutionTime\s*=\s*(?P<exec_time>[0-9.eE+-]+)\s+s\s+ClockTime\s*=\s*(?P<clock_time>[0-9.eE+-]+)\s+s"


class Openfoam(BuiltinOpenfoam):
    """OpenFOAM (ESI) motorBike for S1 (HPCaaS-Bench T7: srun binding x distribution): blockMesh,
    snappyHexMesh, decomposePar, potentialFoam, simpleFoam, as in Ramble's builtin workloads.

    The cell count is the workload variable mesh_size (the background blockMesh): "(20 8 8)" is
    the tutorial's; Ramble's own sizes are (100 40 40) for ~20M and (130 52 52) for ~42M cells;
    the study's 10M cells are between (80 32 32) and (100 40 40); "(10 4 4)" gives 65,955 cells
    (one rank: snappyHexMesh 27 s on this machine). The pipeline runs every utility with
    -parallel, and OpenFOAM stops a parallel run on one rank ("attempt to run parallel on 1
    processor"): run it on 2 ranks or more.

    Differs from Ramble's builtin: a pinned Spack spec; per-utility execution and clock times,
    told apart by each utility's banner (the builtin's "simpleFoam Time" and "potentialFoam
    Time" read the last ExecutionTime of a file, whichever utility wrote it, so they are
    replaced); and success means every utility of the study reached its "End" line with no FOAM
    FATAL ERROR (the builtin looks for "Finalising parallel run", which a crashed simpleFoam can
    lack while snappyHexMesh has it, and which serial runs never print).
    """

    name = "openfoam"

    maintainers("hpcaas-bench")

    define_compiler("gcc12", pkg_spec="gcc@12.2.0", package_manager="spack*")
    # 2306: the ESI release of the study's time (SC'23); environments/ pin the same.
    software_spec("openfoam", pkg_spec="openfoam@2306", compiler="gcc12", package_manager="spack*")

    for _workload in ("motorbike", "motorbike_20m", "motorbike_42m"):
        # Not {n_ranks}: the snappyHexMesh executable sets n_ranks to this variable.
        workload_variable("n_ranks_hex", default="{processes_per_node}*{n_nodes}", workload=_workload,
                          description="Ranks for snappyHexMesh, every rank of the allocation by default "
                                      "(the builtin's 16 does not fit small systems); decomposePar1 "
                                      "splits the background mesh into this many parts")

        # The builtin's -writePhi makes ESI's potentialFoam write the velocity potential, not the
        # flux: simpleFoam then interpolates a flux from U that is far from divergence-free (first
        # continuity error 23582 instead of 0.167 at (10 4 4)); on 2 ranks it stopped on SIGFPE at
        # iteration 11 (tests/apps/openfoam/logs).
        workload_variable("potential_flags", default="-writephi", workload=_workload,
                          description="Flags for potentialFoam (-writephi: write the flux simpleFoam "
                                      "starts from)")

    # The utilities of the study, each writing log.<executable> in the run directory.
    STUDY_LOGS = ("blockMesh", "decomposePar2", "snappyHexMesh", "potentialFoam", "simpleFoam")

    log_all = os.path.join("{experiment_run_dir}", "log.openfoam")

    figure_of_merit_context("application", regex=BANNER, output_format="{application}")
    figure_of_merit("Execution time", log_file=log_all, fom_regex=TIMES, group_name="exec_time",
                    units="s", contexts=["application"])
    figure_of_merit("Clock time", log_file=log_all, fom_regex=TIMES, group_name="clock_time",
                    units="s", contexts=["application"])
    # simpleFoam's last pseudo-time is the number of SIMPLE iterations it ran (deltaT 1).
    figure_of_merit("Last time step", log_file=log_all, fom_regex=r"^Time = (?P<time>[0-9.eE+-]+)\s*$",
                    group_name="time", units="", contexts=["application"])
    figure_of_merit("Processes", log_file=log_all, fom_regex=r"^nProcs\s*:\s*(?P<nprocs>[0-9]+)",
                    group_name="nprocs", units="", contexts=["application"])

    # Same names as the builtin's criteria, so these replace them.
    for _stage in STUDY_LOGS:
        _log = os.path.join("{experiment_run_dir}", f"log.{_stage}")
        success_criteria(f"{_stage}_completed", mode="string", match=r"^End\s*$", file=_log)
        success_criteria(f"{_stage}_no_fatal_error", mode="string", anti_match=r".*FOAM FATAL", file=_log)

    def _prepare_analysis(self, workspace, app_inst=None):
        """Join the utilities' logs, in the order the workload ran them, into log.openfoam, where
        each utility's banner opens its context (a figure of merit reads one file)."""
        super()._prepare_analysis(workspace, app_inst)
        run_dir = self.expander.expand_var("{experiment_run_dir}")
        workload = self.workloads[self.expander.expand_var("{workload_name}")]
        logs = [os.path.join(run_dir, f"log.{name}") for name in workload.executables]
        with open(os.path.join(run_dir, "log.openfoam"), "w") as joined:
            for log in logs:
                if os.path.isfile(log):
                    with open(log, errors="replace") as part:
                        joined.write(part.read())


# The builtin's per-file times (see the class docstring); "Execution time" per utility replaces them.
for _fom in ("simpleFoam Time", "potentialFoam Time"):
    Openfoam.figures_of_merit.pop(_fom, None)
