from ramble.appkit import *
from ramble.app.builtin.hpcc import Hpcc as BuiltinHpcc

# HPCC's input (the HPL.dat layout plus PTRANS lines). Only the problem size, block size and
# process grid vary; the rest is HPCC's own _hpccinf.txt.
HPCCINF_LINES = [
    "HPLinpack benchmark input file",
    "Innovative Computing Laboratory, University of Tennessee",
    "HPL.out      output file name (if any)",
    "8            device out (6=stdout,7=stderr,file)",
    "1            # of problems sizes (N)",
    "{hpl_n}         Ns",
    "1            # of NBs",
    "{hpl_nb}           NBs",
    "0            PMAP process mapping (0=Row-,1=Column-major)",
    "1            # of process grids (P x Q)",
    "{hpl_p}            Ps",
    "{hpl_q}            Qs",
    "{hpl_threshold}         threshold",
    "1            # of panel fact",
    "2            PFACTs (0=left, 1=Crout, 2=Right)",
    "1            # of recursive stopping criterium",
    "4            NBMINs (>= 1)",
    "1            # of panels in recursion",
    "2            NDIVs",
    "1            # of recursive panel fact.",
    "1            RFACTs (0=left, 1=Crout, 2=Right)",
    "1            # of broadcast",
    "1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)",
    "1            # of lookahead depth",
    "1            DEPTHs (>=0)",
    "2            SWAP (0=bin-exch,1=long,2=mix)",
    "64           swapping threshold",
    "0            L1 in (0=transposed,1=no-transposed) form",
    "0            U  in (0=transposed,1=no-transposed) form",
    "1            Equilibration (0=no,1=yes)",
    "8            memory alignment in double (> 0)",
    "##### This line (no. 32) is ignored (it serves as a separator). ######",
    "0            Number of additional problem sizes for PTRANS",
    "1200 10000 30000   values of N",
    "0            number of additional blocking sizes for PTRANS",
    "40 9 8 13 13 20 16 32 64   values of NB",
]


class Hpcc(BuiltinHpcc):
    """HPC Challenge, with its input written for each experiment and a success criterion.

    Ramble's builtin hpcc downloads a stock input for a 2 x 2 grid and copies it as
    _hpccinf.txt, which HPCC does not read: HPCC then silently runs built-in sizes and the
    builtin app still reports SUCCESS. This one writes hpccinf.txt from the variables below
    (no download) and succeeds only when HPCC reached its end without an HPL error.
    """

    name = "hpcc"

    maintainers("hpcaas-bench")

    executable(
        "write-input",
        template=["printf '%s\\n' "
                  + " ".join(f"'{line}'" for line in HPCCINF_LINES)
                  + " > {experiment_run_dir}/hpccinf.txt"],
        use_mpi=False,
        redirect="",
    )

    workload("sized", executables=["write-input", "execute"])

    # The stock input (standard workload) is N=1000 on a 2 x 2 grid.
    for workloads, n, p, q in ((["sized"], "1000", "1", "{n_ranks}"), (["standard"], "1000", "2", "2")):
        workload_variable("hpl_n", default=n, workloads=workloads,
                          description="HPL problem size N (memory ~ 8 N^2 bytes over all ranks)")
        workload_variable("hpl_p", default=p, workloads=workloads,
                          description="Process grid rows P (P x Q must equal n_ranks)")
        workload_variable("hpl_q", default=q, workloads=workloads,
                          description="Process grid columns Q (P x Q must equal n_ranks)")
    workload_variable("hpl_nb", default="80", workloads=["sized"], description="HPL block size NB")
    workload_variable("hpl_threshold", default="16.0", workloads=["sized"],
                      description="HPL residual threshold: a scaled residual above it fails verification")
    workload_variable("out_file", default="{experiment_run_dir}/hpccoutf.txt",
                      workloads=["standard", "sized"], description="Output file HPCC writes")

    # HPCC prints its end line even after a failed HPL, and when the input does not fit the
    # ranks it silently runs its own sizes: the run counts only if HPL used our N and grid.
    success_criteria("hpcc-finished", mode="string",
                     match=r".*End of HPC Challenge tests", file="{out_file}")
    success_criteria("hpl-no-error", mode="string",
                     anti_match=r".*HPL ERROR", file="{out_file}")
    # A failed verification (HPL's residual check, PTRANS') still reaches the end line.
    success_criteria("hpl-residuals-passed", mode="string",
                     anti_match=r"^\s*[1-9][0-9]* tests completed and failed residual checks", file="{out_file}")
    success_criteria("no-failed-check", mode="string", anti_match=r".*\bFAILED\b", file="{out_file}")
    # A summary value HPCC could not compute (name=nan / inf): the FOM regexes would skip it.
    success_criteria("finite-summary", mode="string", anti_match=r"(?i)^\w+=[-+]?(nan|inf)", file="{out_file}")
    success_criteria("hpl-requested-n", mode="string",
                     match=r"^N\s+:\s+{hpl_n}\s*$", file="{out_file}")
    success_criteria("hpl-requested-q", mode="string",
                     match=r"^Q\s+:\s+{hpl_q}\s*$", file="{out_file}")

    # The builtin's summary regex wants digits.digits: HPCC prints %g, so a whole number
    # ("StarSTREAM_Scale=56") was dropped and an exponent ("1.5e-05") cut to its mantissa.
    # Same FOM names and units; -1 (HPCC's "not measured", e.g. PingPong on one rank) stays out.
    for metric, unit in BuiltinHpcc.summary_metrics:
        figure_of_merit(metric, log_file="{out_file}", group_name="val", units=unit, contexts=["Summary"],
                        fom_regex=metric + r"=(?P<val>[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)\s*$")
