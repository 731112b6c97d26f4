"""Success criteria named by what they check (ramble-repo/README.md item 4)."""

from hpcaas_kit.patterns import LOG
from ramble.appkit import success_criteria

# How a rank or a job step dies, whichever MPI and launcher ran it (alternatives, each found
# anywhere in a line): Open MPI ("MPI_ABORT was invoked on rank 0", "mpirun noticed that process
# rank 1 ... exited on signal 11 (Segmentation fault)", "... exited with non-zero status"), MPICH,
# Intel MPI and Cray MPICH ("application called MPI_Abort(...)", "BAD TERMINATION OF ONE OF YOUR
# APPLICATION PROCESSES"), Slurm ("srun: error: n1: task 0: Killed", "slurmstepd: error: *** STEP
# 12.0 ON n1 CANCELLED AT ..."), Cray's aprun ("Application 2155432 exit codes: 1", "... exit
# signals: Killed"), a crash's own report (gfortran's "Program received signal SIGSEGV:
# Segmentation fault", Intel Fortran's "forrtl: error (78): process killed (SIGTERM)", a core dump).
CRASHES = "|".join(
    [
        "MPI_ABORT was invoked",
        "application called MPI_Abort",
        "BAD TERMINATION",
        "mpirun noticed that process rank",
        "exited on signal",
        "exited with non-zero status",
        "Segmentation fault",
        "core dumped",
        "srun: error",
        "slurmstepd: error",
        "Application [0-9]+ exit (?:codes|signals):",
        "forrtl: (?:severe|error)",
    ]
)


class absent(str):
    """A regex no line of the file may match (a success criterion's anti_match)."""


def log_criteria(file, **criteria):
    """Success criteria named by what they check (ramble-repo/README.md item 4), in the order
    given, each a regex on the lines of `file`: a line must match it or, given as absent(regex),
    none may. A keyword is the criterion's name with "_" for "-" (no_errors: "no-errors").

    Then the criterion every application has, `no-crashes`: no line of the experiment's own
    output ({log_file}: its stdout and stderr, where MPI launchers and Slurm report) says a rank
    or a job step died (CRASHES), whatever the application's own files say; the application's
    `no-errors` names only its own error lines."""
    for name, regex in criteria.items():
        _criterion(name, file, regex)
    _criterion("no_crashes", LOG, absent(f".*(?:{CRASHES})"))


def _criterion(name, file, regex):
    kind = "anti_match" if isinstance(regex, absent) else "match"
    success_criteria(name.replace("_", "-"), mode="string", file=file, **{kind: str(regex)})
