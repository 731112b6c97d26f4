import os
import re

from hpcaas_kit import *
from ramble.app.builtin.openfoam import Openfoam as BuiltinOpenfoam
from ramble.appkit import *

# Every OpenFOAM utility opens its log with a banner naming itself ("Exec   : simpleFoam -parallel");
# the lines after it belong to that utility.
# A utility run by its path ("Exec   : /usr/bin/simpleFoam -parallel", Debian's) is named by its file name.
BANNER = r"^Exec\s+:\s+(?:\S*/)?(?P<application>\S+)"
# Printed after each solver iteration; the last one of a utility is its total.
TIMES = r"^ExecutionTime\s*=\s*(?P<exec_time>" + NUM + r")\s+s\s+ClockTime\s*=\s*(?P<clock_time>" + NUM + r")\s+s"
CONTINUITY = (
    rf"^time step continuity errors : sum local = (?P<local>{NUM}), global = (?P<global>{NUM}), "
    rf"cumulative = (?P<cumulative>{NUM})"
)
DECOMPOSED_CELLS = (
    r"^Max number of cells = (?P<max>[0-9]+) \((?P<imbalance>" + NUM + r")% above average (?P<avg>" + NUM + r")\)"
)


class Openfoam(BuiltinOpenfoam):
    """OpenFOAM (ESI): motorBike for S1 (HPCaaS-Bench T7: srun binding x distribution) - blockMesh,
    snappyHexMesh, decomposePar, potentialFoam, simpleFoam, as in Ramble's builtin workloads - and
    the pitzDaily tutorial (simpleFoam, 12,225 cells, to convergence), the catalog's workload.

    The cell count of motorBike is the workload variable mesh_size (the background blockMesh):
    "(20 8 8)" is the tutorial's; Ramble's own sizes are (100 40 40) for ~20M and (130 52 52) for
    ~42M cells; the study's 10M cells are between (80 32 32) and (100 40 40); "(10 4 4)" gives
    65,955 cells. That pipeline runs every utility with -parallel, and OpenFOAM stops a parallel
    run on one rank ("attempt to run parallel on 1 processor"): run it on 2 ranks or more.
    pitzdaily runs serially on one rank and decomposed (decomposePar, method simple) on more.

    Each utility writes log.<utility>; the analysis joins them, in the order the workload ran
    them, into results_file, where each utility's banner opens its context. Differs from Ramble's
    builtin: a pinned Spack spec and no compiler; per-utility execution and clock times (the
    builtin's "simpleFoam Time" and "potentialFoam Time" read the last ExecutionTime of a file,
    whichever utility wrote it); success means every utility reached its "End" line, with no
    FOAM FATAL error, crash or NaN (the builtin looks for "Finalising parallel run", which a
    crashed simpleFoam can lack while snappyHexMesh has it, and which serial runs never print).
    """

    name = "openfoam"

    maintainers("hpcaas-bench")

    # v1912: the ESI release Debian 12 ships (this machine's external; Spack's builtin builds it from
    # OpenFOAM-v1912.tgz elsewhere), so the catalog runs here. S1 T7 pins its own, v2306 (SC'23).
    spack_package("openfoam", "openfoam@1912")

    # A run of a workload is several utilities, each with its banner: a run starts with the first
    # utility of a workload (motorBike: surfaceFeatureExtract; pitzDaily: blockMesh).
    run_start_regex = r"^Exec\s+:\s+(surfaceFeatureExtract|surfaceFeatures|blockMesh)\b"

    _motorbike = ["motorbike", "motorbike_20m", "motorbike_42m"]
    # Not {n_ranks}: the snappyHexMesh executable sets n_ranks to this variable.
    workload_variable(
        "n_ranks_hex",
        default="{processes_per_node}*{n_nodes}",
        workloads=_motorbike,
        description="Ranks for snappyHexMesh, every rank of the allocation by default "
        "(the builtin's 16 does not fit small systems); decomposePar1 "
        "splits the background mesh into this many parts",
    )
    # The builtin's -writePhi makes ESI's potentialFoam write the velocity potential, not the
    # flux: simpleFoam then interpolates a flux from U that is far from divergence-free (first
    # continuity error 23582 instead of 0.167 at (10 4 4)); on 2 ranks it stopped on SIGFPE at
    # iteration 11 (tests/apps/openfoam/logs).
    workload_variable(
        "potential_flags",
        default="-writephi",
        workloads=_motorbike,
        description="Flags for potentialFoam (-writephi: write the flux simpleFoam starts from)",
    )

    # pitzDaily: the tutorial as shipped (its controlDict and fvSolution: SIMPLE until the residuals
    # fall below their controls, 282-285 iterations), decomposed along x when on more than one rank.
    executable(
        "pitzdaily_case",
        template=[("cp -r {input_path}/0 {input_path}/constant {input_path}/system " "{experiment_run_dir}/")],
        use_mpi=False,
    )
    # The tutorials' decomposeParDict next door (hierarchical), split along x into n_ranks parts.
    executable(
        "pitzdaily_decomposition",
        template=[
            "cp {decomposition_dict} {experiment_run_dir}/system/decomposeParDict",
            'foamDictionary -entry numberOfSubdomains -set "{n_ranks}" system/decomposeParDict',
            'foamDictionary -entry coeffs/n -set "({n_ranks} 1 1)" system/decomposeParDict',
            "if [ {n_ranks} -gt 1 ]; then decomposePar -force; fi",
        ],
        use_mpi=False,
        redirect="{experiment_run_dir}/log.decomposePar",
    )
    # -parallel only when decomposed: one rank runs the serial solver under the launcher.
    executable(
        "pitzdaily_solver",
        template=["{solver} $([ {n_ranks} -gt 1 ] && echo -parallel) {solver_flags}"],
        use_mpi=True,
        redirect="{experiment_run_dir}/log.{solver}",
    )
    workload(
        "pitzdaily",
        executables=["clean", "pitzdaily_case", "blockMesh", "pitzdaily_decomposition", "pitzdaily_solver"],
        tags=["catalog"],
    )
    workload_variables(
        (
            "input_path",
            "$FOAM_TUTORIALS/incompressible/simpleFoam/pitzDaily",
            "The tutorial case (Debian: openfoam-examples)",
        ),
        ("solver", "simpleFoam", "Solver of the case"),
        (
            "decomposition_dict",
            "$FOAM_TUTORIALS/incompressible/simpleFoam/pitzDailyExptInlet/system/decomposeParDict",
            "A decomposeParDict to start from (its method's coeffs/n is set to (n_ranks 1 1))",
        ),
        ("solver_flags", "", "Extra solver options"),
        workload="pitzdaily",
    )
    workload_variable(
        "results_file",
        default="{experiment_run_dir}/log.openfoam",
        workloads=_motorbike + ["pitzdaily"],
        description="Every utility's log, joined in the order the workload ran them",
    )

    figure_of_merit_context("application", regex=BANNER, output_format="{application}")
    figures_of_merit(
        ("Execution time", TIMES, "exec_time", "s"),
        ("Clock time", TIMES, "clock_time", "s"),
        # A solver's last pseudo-time is the number of SIMPLE iterations it ran (deltaT 1).
        ("Last time step", r"^Time = (?P<time>" + NUM + r")\s*$", "time", ""),
        ("Processes", r"^nProcs\s*:\s*(?P<nprocs>[0-9]+)", "nprocs", ""),
        ("Converged iterations", r"^(SIMPLE|PIMPLE) solution converged in (?P<n>[0-9]+) iterations", "n", ""),
        ("Continuity error local", CONTINUITY, "local", ""),
        ("Continuity error global", CONTINUITY, "global", ""),
        ("Continuity error cumulative", CONTINUITY, "cumulative", ""),
        # blockMesh's and checkMesh's mesh sizes.
        ("Cells", r"^\s+(nCells:|cells:)\s+(?P<n>[0-9]+)\s*$", "n", ""),
        ("Processor faces", r"^Number of processor faces = (?P<n>[0-9]+)\s*$", "n", ""),
        ("Max cells per processor", DECOMPOSED_CELLS, "max", ""),
        ("Cell imbalance", DECOMPOSED_CELLS, "imbalance", "%"),
        ("Average cells per processor", DECOMPOSED_CELLS, "avg", ""),
        # forceCoeffs' table after each iteration (motorBike): v1912 "    Cd       : 0.41\t(pressure:
        # ...", v2312 "    Cd:\t0.41\t<pressure>\t<viscous>\t<internal>"; the total, the last
        # iteration's.
        (
            "Force coefficient {coefficient}",
            r"^\s+(?P<coefficient>C[dlsm][A-Za-z]*(?:\([fr]\))?)\s*:\s*(?P<total>" + NUM + r")(\s|$)",
            "total",
            "",
        ),
        log_file="{results_file}",
        contexts=["application"],
    )

    log_criteria(
        "{results_file}",
        # Named after what they check; the builtin's criteria (per-file "Finalising parallel run")
        # are removed below. Whether every utility, not only some, reached "End" is
        # evaluate_success's.
        completed=r"^End\s*$",
        no_errors=absent(r".*(FOAM FATAL|FOAM aborting|Process received signal)"),
        finite_values=absent(r"^(.*residual|ExecutionTime|time step continuity errors).*=\s*[-+]?(nan|inf)\b"),
    )

    def _prepare_analysis(self, workspace, app_inst=None):
        """Join the utilities' logs, in the order the workload ran them, into results_file (a
        figure of merit reads one file). Without any of them (a log from elsewhere placed at
        results_file), results_file is left as it is."""
        # An experiment whose build failed was never set up: the builtin's step would write its
        # openfoam_config into a directory that does not exist and stop the whole analysis,
        # every other application's experiments included. It stays FAILED.
        if not os.path.isdir(self.expander.expand_var("{experiment_run_dir}")):
            return
        super()._prepare_analysis(workspace, app_inst)
        logs = []
        for name in self.workloads[self.expander.expand_var("{workload_name}")].executables:
            redirect = self.expander.expand_var(self.executables[name].redirect or "")
            if os.path.basename(redirect).startswith("log.") and redirect not in logs:
                logs.append(redirect)
        if not any(os.path.isfile(log) for log in logs):
            return
        with open(self.expander.expand_var("{results_file}"), "w") as joined:
            for log in logs:
                if os.path.isfile(log):
                    with open(log, errors="replace") as part:
                        joined.write(part.read())

    def evaluate_success(self):
        """Every utility of the log reached its "End": a crash or a stop after the banner leaves
        its part without one (named criteria read one line at a time)."""
        path = self.expander.expand_var("{results_file}")
        if not os.path.isfile(path):
            return False
        with open(path, errors="replace") as f:
            parts = re.split(BANNER, f.read(), flags=re.MULTILINE)
        # re.split with a group: [before, name1, text1, name2, text2, ...]
        texts = parts[2::2]
        return bool(texts) and all(re.search(r"^End\s*$", text, re.MULTILINE) for text in texts)


# The builtin's per-file times (see the class docstring); "Execution time" per utility replaces them.
# Its "<utility> Ranks" restate the experiment's variables whatever ran (pitzdaily has no
# potentialFoam); "Processes" is read from each utility's banner instead.
for _fom in ("simpleFoam Time", "potentialFoam Time", "snappyHexMesh Ranks", "simpleFoam Ranks", "potentialFoam Ranks"):
    Openfoam.figures_of_merit.pop(_fom, None)
# The builtin's criteria read log.snappyHexMesh and log.simpleFoam, which pitzdaily does not write,
# and accept a crashed simpleFoam whose "Finalising parallel run" another utility printed.
for _criterion in ("snappyHexMesh_completed", "simpleFoam_completed"):
    Openfoam.success_criteria.pop(_criterion, None)
# No compiler in an application (the study's or the catalog's spec names it).
for _compiler in list(Openfoam.compilers):
    del Openfoam.compilers[_compiler]
for _spec in ("impi2018",):
    Openfoam.software_specs.pop(_spec, None)
