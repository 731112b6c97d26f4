from hpcaas_kit import *
from ramble.appkit import *

# Printed every IO_InfoSteps steps by Nektar++'s time-stepping solvers (UnsteadySystem).
STEPS = r"^\s*Steps:\s*(?P<steps>[0-9]+)\s+Time:\s*(?P<time>" + NUM + r")\s+CPU Time:\s*(?P<cpu>" + NUM + r")s"
# Nektar++ 5.x's timer summary after the run (LibUtilities::Timer::PrintElapsedRegions): a line per
# code region, name then average, minimum and maximum over ranks (s), call count and, from 5.3, an
# IO level, e.g. "Viscous Solve   1.76635e+05   1.76544e+05   1.76689e+05   25000   0" (older
# versions right-align the name and separate columns by tabs). The name starts with a letter and
# does not end in ':', so the assembly-map statistics ("- Local dof dist. ... : 9205 20025 ...")
# are not read as regions.
REGION = (
    rf"^\s*(?P<region>[A-Za-z][^\t]*?[^\s:])\s+(?P<avg>{NUM})\s+(?P<min>{NUM})\s+(?P<max>{NUM})"
    r"\s+(?P<count>[0-9]+)(?:\s+[0-9]+)?\s*$"
)
# gslib's set-up report of an MPI run: "pairwise times (avg, min, max): 2.58e-06 2.51e-06 2.65e-06".
GS = r"^\s*(?P<what>pairwise times|crystal router|all reduce|handle bytes|buffer bytes)\s*(?:\(avg, min, max\))?\s*:\s*"


class Nektar(ExecutableApplication):
    """Nektar++ spectral/hp element solvers for S5 (PASC'19: an incompressible Navier-Stokes case,
    GNU vs Arm compilers), run as <solver> <session files>.

    The study's incompressible case is its own (not public): put its session file(s) in the incns
    workload's input directory, or point session_files elsewhere. The catalog's workload,
    chanflow_m3, is Nektar++'s own regression case ChanFlow_m3 (2D Poiseuille channel flow,
    modified basis P=3, 1000 steps of the velocity correction scheme, exact solution known), which
    the nektar recipe installs to share/nektar/tests. Every time-stepping solver of Nektar++
    (IncNavierStokesSolver, ADRSolver, CompressibleFlowSolver) prints the same session summary,
    progress and summary lines, from which the figures of merit come: the time-integration time
    (the loop alone), the total computation time (with set-up and output), when the session
    defines an exact solution its L2 and Linf errors, and (5.x) the timer summary's time and calls
    per code region (Execute, Pressure Solve, Viscous Solve...).
    """

    name = "nektar"

    maintainers("hpcaas-bench")

    tags("cfd", "spectral-element")
    # The recipe's gsmpi resource (nektar.info/thirdparty) is a download no mirror here serves, and
    # a cold build takes hours on two cores: the fast tier leaves it out (make catalog tries it).
    tags("needs-internet", "slow-build")

    # 5.3.0: the newest release whose commit a snapshot of the repository here carries.
    spack_package("nektar", "nektar@5.3.0 +mpi +ins_solver ~python")

    # The session summary's first item (rank 0 prints it once; the rule lines around it are two).
    run_start_regex = r"^\s*EquationType:"

    executable("execute", "{solver} {solver_flags} {session_files}", use_mpi=True)
    executable("copy-session", template=["cp {session_source} {experiment_run_dir}/"], use_mpi=False)

    workload("incns", executables=["execute"])
    workload("chanflow_m3", executables=["copy-session", "execute"], tags=["catalog"])

    for _workload, _session in (
        ("incns", "{workload_input_dir}/session.xml"),
        ("chanflow_m3", "{experiment_run_dir}/ChanFlow_m3.xml"),
    ):
        workload_variable(
            "session_files",
            default=_session,
            workload=_workload,
            description="Session file(s) (mesh and conditions, space separated); the study's "
            "case is not public: place it here",
        )
    workload_variables(
        ("solver", "IncNavierStokesSolver", "Nektar++ solver binary"),
        ("solver_flags", "", "Solver options (e.g. -v, --io-format Hdf5, -I GlobalSysSoln=...)"),
        workloads=["incns", "chanflow_m3"],
    )
    workload_variable(
        "session_source",
        default="{nektar_path}/share/nektar/tests/IncNavierStokesSolver/ChanFlow_m3.xml",
        workload="chanflow_m3",
        description="The regression session the nektar package installs",
    )

    figures_of_merit(
        ("Time-integration time", r"^\s*Time-integration\s*:\s*(?P<seconds>" + NUM + r")s", "seconds", "s"),
        ("Total computation time", r"^\s*Total Computation Time\s*=\s*(?P<seconds>" + NUM + r")s", "seconds", "s"),
        # The last progress line: how far the run got.
        ("Steps", STEPS, "steps", ""),
        ("Simulated time", STEPS, "time", ""),
        ("CPU time of the last steps", STEPS, "cpu", "s"),
        *[
            (
                f"L{_norm} error {{variable}}",
                rf"^\s*L {_norm} error \(variable (?P<variable>\w+)\)\s*:\s*(?P<error>{NUM})",
                "error",
                "",
            )
            for _norm in ("2", "inf")
        ],
    )
    # The session summary's numbers.
    for _name, _label, _units in (
        ("Processes", r"Num\. Processes", ""),
        ("Spatial dimension", r"Spatial Dim\.", ""),
        ("Expansion dimension", r"Expansion Dim\.", ""),
        ("Max expansion order", r"Max SEM Exp\. Order", ""),
        ("Time step", r"Time Step", ""),
        ("Number of steps", r"No\. of Steps", ""),
        ("Checkpoint interval", r"Checkpoints \(steps\)", ""),
    ):
        figure_of_merit(
            _name, fom_regex=r"^\s*" + _label + r":\s*(?P<n>" + NUM + r")\s*$", group_name="n", units=_units
        )
    # gslib's communication set-up (MPI runs): average, minimum and maximum of each measure.
    for _stat in ("avg", "min", "max"):
        figure_of_merit(
            "gslib {what} " + _stat,
            fom_regex=GS + r"(?P<avg>" + NUM + r")\s+(?P<min>" + NUM + r")\s+(?P<max>" + NUM + r")\s*$",
            group_name=_stat,
            units="",
        )
    figures_of_merit(
        ("gslib unique labels shared", r"^\s*gs_setup:\s*(?P<n>[0-9]+) unique labels shared", "n", ""),
        # The output write of the last checkpoint or field file: "Writing: "x.fld" (0.0113s, XML)".
        ("Last write time", r'^\s*Writing: ".*" \((?P<seconds>' + NUM + r")s, \w+\)", "seconds", "s"),
    )

    figure_of_merit_context("region", regex=REGION, output_format="{region}")
    figures_of_merit(
        ("Region time avg", REGION, "avg", "s"),
        ("Region time min", REGION, "min", "s"),
        ("Region time max", REGION, "max", "s"),
        ("Region calls", REGION, "count", ""),
        contexts=["region"],
    )

    log_criteria(
        "{log_file}",
        completed=r"^\s*Total Computation Time",
        # Nektar++ reports errors as "Fatal : Level 0 assertion violation" (and NaN checks as errors).
        no_errors=absent(r".*(Level 0 assertion violation|Nektar\+\+ error|NaN found)"),
        finite_values=absent(r"^\s*(Steps:|L 2 error|L inf error|Time-integration).*\b(nan|-nan|inf|NaN)\b"),
        # An experiment's check (make foms leaves it out for a log from elsewhere): a parallel run
        # names its process count in the session summary ("Num. Processes: 2"), a serial one none,
        # so the criterion refuses a count other than the experiment's (a serial log passes any
        # n_ranks).
        requested_processes=absent(r"^\s*Num\. Processes:\s*(?!{n_ranks}\s*$)[0-9]+\s*$"),
    )
