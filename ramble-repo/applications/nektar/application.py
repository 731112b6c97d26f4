from ramble.appkit import *

NUM = r"[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?"
# Printed every IO_InfoSteps steps by Nektar++'s time-stepping solvers (UnsteadySystem).
STEPS = (r"^\s*Steps:\s*(?P<steps>[0-9]+)\s+Time:\s*(?P<time>" + NUM + r")\s+CPU Time:\s*(?P<cpu>"
         + NUM + r")s")


class Nektar(ExecutableApplication):
    """Nektar++ spectral/hp element solvers for S5 (PASC'19: an incompressible Navier-Stokes case,
    GNU vs Arm compilers), run as <solver> <session files>.

    The incompressible case is the study's own (not public): put its session file(s) in the
    workload's input directory, or point session_files elsewhere. Every time-stepping solver of
    Nektar++ (IncNavierStokesSolver, ADRSolver, CompressibleFlowSolver) prints the same progress
    and summary lines, from which the figures of merit come: the time-integration time (the loop
    alone) and the total computation time (with set-up and output).
    """

    name = "nektar"

    maintainers("hpcaas-bench")

    tags("cfd", "spectral-element")

    define_compiler("gcc12", pkg_spec="gcc@12.2.0", package_manager="spack*")
    software_spec("nektar", pkg_spec="nektar@5.5.0 +mpi +ins_solver ~python", compiler="gcc12",
                  package_manager="spack*")
    required_package("nektar", package_manager="spack*")

    executable("execute", "{solver} {solver_flags} {session_files}", use_mpi=True)

    workload("incns", executables=["execute"])

    workload_variable("solver", default="IncNavierStokesSolver", workload="incns",
                      description="Nektar++ solver binary")
    workload_variable("session_files", default="{workload_input_dir}/session.xml", workload="incns",
                      description="Session file(s) (mesh and conditions, space separated); the study's "
                                  "case is not public: place it here")
    workload_variable("solver_flags", default="", workload="incns",
                      description="Solver options (e.g. -v, --io-format Hdf5, -I GlobalSysSoln=...)")

    figure_of_merit("Time-integration time", fom_regex=r"^\s*Time-integration\s*:\s*(?P<seconds>" + NUM + r")s",
                    group_name="seconds", units="s")
    figure_of_merit("Total computation time",
                    fom_regex=r"^\s*Total Computation Time\s*=\s*(?P<seconds>" + NUM + r")s",
                    group_name="seconds", units="s")
    # The last progress line: how far the run got.
    figure_of_merit("Steps", fom_regex=STEPS, group_name="steps", units="")
    figure_of_merit("Simulated time", fom_regex=STEPS, group_name="time", units="")
    figure_of_merit("CPU time of the last steps", fom_regex=STEPS, group_name="cpu", units="s")
    figure_of_merit("Processes", fom_regex=r"^\s*Num\. Processes:\s*(?P<n>[0-9]+)", group_name="n", units="")
    figure_of_merit("L2 error {variable}", fom_regex=r"^\s*L 2 error \(variable (?P<variable>\w+)\)\s*:\s*(?P<error>"
                    + NUM + r")", group_name="error", units="")

    success_criteria("finished", mode="string", match=r"^\s*Total Computation Time", file="{log_file}")
    # Nektar++ reports errors as "Fatal : Level 0 assertion violation" (and NaN checks as errors).
    success_criteria("no-fatal-error", mode="string", anti_match=r".*(Level 0 assertion violation|Nektar\+\+ error)",
                     file="{log_file}")
