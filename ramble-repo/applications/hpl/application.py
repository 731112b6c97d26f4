from hpcaas_kit import *
from ramble.app.builtin.hpl import Hpl as BuiltinHpl
from ramble.app.builtin.hpl import pad_value
from ramble.appkit import *

# HPL.dat for one problem, as (the builtin's variable, value, HPL's description), in file order:
# only N, NB, the P x Q grid and the residual threshold vary (hpl_* variables); the algorithm
# choices are HPL's own sample values (the first of each list in its HPL.dat). "Number of" is
# written "#" in the file (the builtin's writer does that: Ramble's expander drops text after #).
# HPCC reads the same layout (ramble-repo/applications/hpcc imports it).
ONE_PROBLEM = [
    ("output_file", "HPL.out", "output file name (if any)"),
    ("device_out", "6", "device out (6=stdout,7=stderr,file)"),
    ("N-Ns", "1", "Number of problems sizes (N)"),
    ("Ns", "{hpl_n}", "Ns"),
    ("N-NBs", "1", "Number of NBs"),
    ("NBs", "{hpl_nb}", "NBs"),
    ("PMAP", "0", "PMAP process mapping (0=Row-,1=Column-major)"),
    ("N-Grids", "1", "Number of process grids (P x Q)"),
    ("Ps", "{hpl_p}", "Ps"),
    ("Qs", "{hpl_q}", "Qs"),
    ("threshold", "{hpl_threshold}", "threshold"),
    ("NPFACTs", "1", "Number of panel fact"),
    ("PFACTs", "2", "PFACTs (0=left, 1=Crout, 2=Right)"),
    ("N-NBMINs", "1", "Number of recursive stopping criterium"),
    ("NBMINs", "4", "NBMINs (>= 1)"),
    ("N-NDIVs", "1", "Number of panels in recursion"),
    ("NDIVs", "2", "NDIVs"),
    ("N-RFACTs", "1", "Number of recursive panel fact."),
    ("RFACTs", "1", "RFACTs (0=left, 1=Crout, 2=Right)"),
    ("N-BCASTs", "1", "Number of broadcast"),
    ("BCASTs", "1", "BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)"),
    ("N-DEPTHs", "1", "Number of lookahead depth"),
    ("DEPTHs", "1", "DEPTHs (>=0)"),
    ("SWAP", "2", "SWAP (0=bin-exch,1=long,2=mix)"),
    ("swapping_threshold", "64", "swapping threshold"),
    ("L1", "0", "L1 in (0=transposed,1=no-transposed) form"),
    ("U", "0", "U  in (0=transposed,1=no-transposed) form"),
    ("Equilibration", "1", "Equilibration (0=no,1=yes)"),
    ("mem_alignment", "8", "memory alignment in double (> 0)"),
]
HPL_DAT_HEADER = ["    HPLinpack benchmark input file", "Innovative Computing Laboratory, University of Tennessee"]
HPL_DAT_SEPARATOR = "##### This line (no. 32) is ignored (it serves as a separator). ######"


# The HPL.dat values a workload chooses (hpcc's as well), with what they are.
HPL_VARIABLES = {
    "hpl_n": "HPL problem size N (memory: 8 N^2 bytes over all ranks)",
    "hpl_nb": "HPL block size NB",
    "hpl_p": "HPL process grid rows P (P x Q must equal n_ranks)",
    "hpl_q": "HPL process grid columns Q (P x Q must equal n_ranks)",
    "hpl_threshold": "HPL residual threshold: a test passes below it (HPL's default 16.0)",
}


def hpl_variables(workloads, **defaults):
    """The workload variables of HPL_VARIABLES named in `defaults` (hpl_n="4000", ...), in
    `workloads`."""
    for name, default in defaults.items():
        workload_variable(name, default=default, workloads=workloads, description=HPL_VARIABLES[name])


def hpl_dat_lines(**values):
    """The lines the builtin's writer puts in HPL.dat for ONE_PROBLEM, a value replaced by
    name (e.g. device_out="8")."""
    settings = [pad_value(values.get(name, value), desc).replace("Number", "#") for name, value, desc in ONE_PROBLEM]
    return HPL_DAT_HEADER + settings + [HPL_DAT_SEPARATOR]


# One result line per test. HPL 2.3: "WR11C2R4        4000   128     1     2    1.59    2.6817e+01";
# 2.2 and older print 3 significant digits; NVIDIA's HPL adds the rate per GPU in parentheses.
RESULT = (
    r"^(?P<tv>W[RC]\S+)\s+(?P<N>\d+)\s+(?P<NB>\d+)\s+(?P<P>\d+)\s+(?P<Q>\d+)\s+"
    r"(?P<time>" + NUM + r")\s+(?P<gflops>" + NUM + r")"
)
RESULT_PER_GPU = RESULT + r"\s+\(\s*(?P<per_gpu>" + NUM + r")\s*\)"
# Its residual check follows it (PASSED or FAILED: the criteria judge it; FOMs are numbers):
# "||Ax-b||_oo/(eps*(...)*N)=   3.16e-03 ...... PASSED" (2.3), or a
# fixed-point value (2.0-2.2: "=        0.0064512 ...... PASSED").
RESIDUAL = r"^\|\|Ax-b\|\|_oo/\(eps\*.*=\s*(?P<resid>" + NUM + r")\s+\.+\s+(?P<check>PASSED|FAILED)"


def summary(what, count=r"(?P<count>\d+)"):
    return r"^\s+" + count + " tests " + what


class Hpl(ResultIdentity, BuiltinHpl):
    """HPL with a one-problem "local" workload and success criteria on its residual checks.

    Ramble's builtin reports each test's time and GFLOP/s but no residual check: a run whose
    checks FAILED, or whose grid did not fit the ranks (HPL then skips the tests or exits),
    still counted as a success. Here every test must pass its check, none may be skipped, and
    HPL must reach "End of Tests.". FOMs are per test, in a context naming its variant and size.
    """

    name = "hpl"

    maintainers("hpcaas-bench")

    spack_package("hpl", "hpl@2.3")

    run_start_regex = r"^HPLinpack \d"

    # "local": HPL.dat for one problem, written by the builtin's writer from these variables.
    workload("local", executables=["execute"], tags=["catalog"])
    hpl_variables(["local"], hpl_n="4000", hpl_nb="128", hpl_p="1", hpl_q="{n_ranks}", hpl_threshold="16.0")
    for _name, _value, _desc in ONE_PROBLEM:
        workload_variable(
            _name,
            default=pad_value(_value, _desc),
            workloads=["local"],
            description=f"HPL.dat line '{_desc}' (from the hpl_* variables)",
        )

    figure_of_merit_context("problem-name", regex=RESULT, output_format="{tv} N={N} NB={NB} P={P} Q={Q}")
    # HPL.dat may list a value twice (the same test twice): each is its own result, numbered.
    numbered_contexts = ("problem-name",)
    figures_of_merit(
        ("Time", RESULT, "time", "s"),
        ("GFlops", RESULT, "gflops", "GFLOP/s"),
        ("GFlops per GPU", RESULT_PER_GPU, "per_gpu", "GFLOP/s"),
        ("Scaled residual", RESIDUAL, "resid", ""),
        contexts=["problem-name"],
    )
    for fom, what in (
        ("Tests passed", "completed and passed"),
        ("Tests failed", "completed and failed"),
        ("Tests skipped", "skipped"),
    ):
        figure_of_merit(fom, fom_regex=summary(what), group_name="count", units="")

    log_criteria(
        LOG,
        completed=r"^End of Tests\.",
        verified=summary("completed and failed residual checks", count="0"),
        tests_passed=absent(summary("completed and passed residual checks", count="0")),
        none_skipped=summary("skipped because of illegal input values", count="0"),
        no_errors=absent(r"^HPL ERROR"),
        finite_values=absent(r"(?i)^W[RC]\S+\s+.*\b(nan|inf)\b|^\|\|Ax-b\|\|.*=\s*[-+]?(nan|inf)\b"),
    )


# The builtin's spec pins gcc 9.3.0 and Intel MPI 2018: the study or the catalog renders the
# system's compiler and MPI into the spec instead.
del Hpl.software_specs["impi_2018"]
del Hpl.compilers["gcc9"]
