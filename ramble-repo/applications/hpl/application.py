import os

from ramble.appkit import *
from ramble.app.builtin.hpl import Hpl as BuiltinHpl
from ramble.expander import Expander

LOG = Expander.expansion_str("log_file")

# HPL.dat for one problem: only N, NB, the P x Q grid and the residual threshold vary; the
# algorithm choices are HPL's own sample values (the first of each list in its HPL.dat).
LOCAL_HPL_DAT = """HPLinpack benchmark input file
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
6            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
{hpl_n}         Ns
1            # of NBs
{hpl_nb}           NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
{hpl_p}            Ps
{hpl_q}            Qs
{hpl_threshold}         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
"""

# One result line per test: "WR11C2R4        4000   128     1     2    1.59    2.6817e+01"
RESULT = (r"^(?P<tv>W[RC]\S+)\s+(?P<N>\d+)\s+(?P<NB>\d+)\s+(?P<P>\d+)\s+(?P<Q>\d+)\s+"
          r"(?P<time>[0-9.]+)\s+(?P<gflops>[0-9.]+e[+-]\d+)")
# Its residual check follows it: "||Ax-b||_oo/(eps*(...)*N)=   3.16e-03 ...... PASSED"
RESIDUAL = r"^\|\|Ax-b\|\|_oo/\(eps\*.*=\s*(?P<resid>[0-9.]+e[+-]\d+)\s+\.+\s+(?P<check>PASSED|FAILED)"


def summary(what):
    return r"^\s+(?P<count>\d+) tests " + what


class Hpl(BuiltinHpl):
    """HPL with a one-problem "local" workload and a success criterion on its residual checks.

    Ramble's builtin reports each test's time and GFLOP/s but no residual check: a run whose
    checks FAILED, or whose grid did not fit the ranks (HPL then skips the tests or exits),
    still counted as a success. Here every test must pass its check, none may be skipped, and
    HPL must reach "End of Tests.". FOMs are per test, in a context naming its variant and size.
    """

    name = "hpl"

    maintainers("hpcaas-bench")

    define_compiler("gcc12", pkg_spec="gcc@12.2.0", package_manager="spack*")
    software_spec("hpl", pkg_spec="hpl@2.3", compiler="gcc12", package_manager="spack*")

    workload("local", executables=["execute"])
    workload_variable("hpl_n", default="4000", workloads=["local"],
                      description="Problem size N (memory: 8 N^2 bytes over all ranks)")
    workload_variable("hpl_nb", default="128", workloads=["local"], description="Block size NB")
    workload_variable("hpl_p", default="1", workloads=["local"],
                      description="Process grid rows P (P x Q must equal n_ranks)")
    workload_variable("hpl_q", default="{n_ranks}", workloads=["local"],
                      description="Process grid columns Q (P x Q must equal n_ranks)")
    workload_variable("hpl_threshold", default="16.0", workloads=["local"],
                      description="Residual threshold: a test passes below it (HPL's default 16.0)")

    figure_of_merit_context("problem-name", regex=RESULT,
                            output_format="{tv} N={N} NB={NB} P={P} Q={Q}")
    figure_of_merit("Time", log_file=LOG, fom_regex=RESULT, group_name="time", units="s",
                    contexts=["problem-name"])
    figure_of_merit("GFlops", log_file=LOG, fom_regex=RESULT, group_name="gflops",
                    units="GFLOP/s", contexts=["problem-name"])
    figure_of_merit("Scaled residual", log_file=LOG, fom_regex=RESIDUAL, group_name="resid",
                    units="", contexts=["problem-name"])
    figure_of_merit("Residual check", log_file=LOG, fom_regex=RESIDUAL, group_name="check",
                    units="", contexts=["problem-name"])
    for fom, what in (("Tests passed", "completed and passed"), ("Tests failed", "completed and failed"),
                      ("Tests skipped", "skipped")):
        figure_of_merit(fom, log_file=LOG, fom_regex=summary(what), group_name="count", units="")

    success_criteria("finished", mode="string", match=r"^End of Tests\.", file=LOG)
    success_criteria("none-failed", mode="string", file=LOG,
                     match=summary("completed and failed residual checks").replace(r"(?P<count>\d+)", "0"))
    success_criteria("none-skipped", mode="string", file=LOG,
                     match=summary("skipped because of illegal input values").replace(r"(?P<count>\d+)", "0"))
    success_criteria("some-passed", mode="string", file=LOG,
                     anti_match=summary("completed and passed residual checks").replace(r"(?P<count>\d+)", "0"))
    success_criteria("no-hpl-error", mode="string", file=LOG, anti_match=r"^HPL ERROR")

    def _make_experiments(self, workspace, app_inst=None):
        if self.expander.workload_name != "local":
            return super()._make_experiments(workspace, app_inst)
        # The builtin's HPL.dat writer needs the standard workload's 29 variables.
        super(BuiltinHpl, self)._make_experiments(workspace)
        run_dir = self.expander.expand_var_name("experiment_run_dir")
        with open(os.path.join(run_dir, "HPL.dat"), "w") as f:
            f.write(self.expander.expand_var(LOCAL_HPL_DAT))


# The builtin also pins Intel MPI 2018 built with gcc 9.3.0: neither is what the studies use
# nor installable here. The MPI comes from Spack (its default provider) or the workspace.
del Hpl.software_specs["impi_2018"]
del Hpl.compilers["gcc9"]
