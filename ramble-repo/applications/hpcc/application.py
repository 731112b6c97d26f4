from hpcaas_kit import *
from ramble.app.builtin.hpcc import Hpcc as BuiltinHpcc
from ramble.app.hpcaas.hpl import hpl_dat_lines, hpl_variables
from ramble.appkit import *

# HPCC's input: HPL.dat's layout (from the hpl application; device out 8, as HPCC's own
# _hpccinf.txt) plus the lines for PTRANS' extra sizes, which stay HPCC's defaults.
HPCCINF_LINES = hpl_dat_lines(device_out="8") + [
    "0            Number of additional problem sizes for PTRANS",
    "1200 10000 30000   values of N",
    "0            number of additional blocking sizes for PTRANS",
    "40 9 8 13 13 20 16 32 64   values of NB",
]

# Every number of HPCC's summary section that a run measures or chose (not the build's facts:
# type sizes, machine constants, FFTE and OpenMP settings), as HPCC 1.4 and 1.5 print them.
NAMED_RESULTS = [
    ("CommWorldProcs", ""),
    ("MPI_Wtick", "s"),
    ("HPL_Tflops", "Tflops"),
    ("HPL_time", "s"),
    ("HPL_eps", ""),
    ("HPL_RnormI", ""),
    ("HPL_Anorm1", ""),
    ("HPL_AnormI", ""),
    ("HPL_Xnorm1", ""),
    ("HPL_XnormI", ""),
    ("HPL_BnormI", ""),
    ("HPL_N", ""),
    ("HPL_NB", ""),
    ("HPL_nprow", ""),
    ("HPL_npcol", ""),
    ("HPL_depth", ""),
    ("HPL_nbdiv", ""),
    ("HPL_nbmin", ""),
    ("HPLMaxProcs", ""),
    ("HPLMinProcs", ""),
    ("DGEMM_N", ""),
    ("StarDGEMM_Gflops", "Gflops"),
    ("SingleDGEMM_Gflops", "Gflops"),
    ("PTRANS_GBs", "GB/s"),
    ("PTRANS_time", "s"),
    ("PTRANS_residual", ""),
    ("PTRANS_n", ""),
    ("PTRANS_nb", ""),
    ("PTRANS_nprow", ""),
    ("PTRANS_npcol", ""),
]
for _ra in ("MPIRandomAccess_LCG", "MPIRandomAccess"):
    NAMED_RESULTS += [
        (f"{_ra}_N", ""),
        (f"{_ra}_time", "s"),
        (f"{_ra}_CheckTime", "s"),
        (f"{_ra}_Errors", ""),
        (f"{_ra}_ErrorsFraction", ""),
        (f"{_ra}_ExeUpdates", ""),
        (f"{_ra}_GUPs", "GUP/s"),
        (f"{_ra}_TimeBound", "s"),
        (f"{_ra}_Algorithm", ""),
    ]
NAMED_RESULTS += [
    ("RandomAccess_LCG_N", ""),
    ("StarRandomAccess_LCG_GUPs", "GUP/s"),
    ("SingleRandomAccess_LCG_GUPs", "GUP/s"),
    ("RandomAccess_N", ""),
    ("StarRandomAccess_GUPs", "GUP/s"),
    ("SingleRandomAccess_GUPs", "GUP/s"),
    ("STREAM_VectorSize", ""),
    ("STREAM_Threads", ""),
    *[(f"{w}STREAM_{k}", "GB/s") for w in ("Star", "Single") for k in ("Copy", "Scale", "Add", "Triad")],
    ("FFT_N", ""),
    ("StarFFT_Gflops", "Gflops"),
    ("SingleFFT_Gflops", "Gflops"),
    ("MPIFFT_N", ""),
    ("MPIFFT_Gflops", "Gflops"),
    ("MPIFFT_maxErr", ""),
    ("MPIFFT_Procs", ""),
    *[(f"MPIFFT_time{i}", "s") for i in range(7)],
    *[(f"{m}PingPongLatency_usec", "usec") for m in ("Min", "Avg", "Max")],
    *[(f"{m}PingPongBandwidth_GBytes", "GB/s") for m in ("Min", "Avg", "Max")],
    ("NaturallyOrderedRingLatency_usec", "usec"),
    ("RandomlyOrderedRingLatency_usec", "usec"),
    ("NaturallyOrderedRingBandwidth_GBytes", "GB/s"),
    ("RandomlyOrderedRingBandwidth_GBytes", "GB/s"),
]


class Hpcc(BuiltinHpcc):
    """HPC Challenge, with its input written for each experiment and success criteria.

    Ramble's builtin hpcc downloads a stock input for a 2 x 2 grid and copies it as
    _hpccinf.txt, which HPCC does not read: HPCC then silently runs built-in sizes and the
    builtin app still reports SUCCESS. This one writes hpccinf.txt from the variables below
    (no download), extracts every number of HPCC's summary, and succeeds only when HPCC
    reached its end with every check passed.
    """

    name = "hpcc"

    maintainers("hpcaas-bench")

    spack_package("hpcc", "hpcc@1.5.0")

    # HPCC appends each run to hpccoutf.txt (write-input starts a fresh one for an experiment).
    run_start_regex = r"This is the DARPA/DOE HPC Challenge Benchmark version"

    executable(
        "write-input",
        template=[
            "rm -f {out_file}",
            printf_command(HPCCINF_LINES, "{experiment_run_dir}/hpccinf.txt"),
        ],
        use_mpi=False,
        redirect="",
    )

    workload("sized", executables=["write-input", "execute"], tags=["catalog"])

    # The stock input (standard workload) is N=1000 on a 2 x 2 grid.
    for workloads, n, p, q in ((["sized"], "1000", "1", "{n_ranks}"), (["standard"], "1000", "2", "2")):
        hpl_variables(workloads, hpl_n=n, hpl_p=p, hpl_q=q)
    hpl_variables(["sized"], hpl_nb="80", hpl_threshold="16.0")
    workload_variable(
        "out_file",
        default="{experiment_run_dir}/hpccoutf.txt",
        workloads=["standard", "sized"],
        description="Output file HPCC writes",
    )

    log_criteria(
        "{out_file}",
        # HPCC prints its end line even after a failed HPL or a failed check.
        completed=r".*End of HPC Challenge tests",
        # HPL's residual check, PTRANS' CHECK (FAILED) and RandomAccess' error count ("(failed)").
        verified=absent(
            r".*\bFAILED\b|^\s*[1-9][0-9]* tests completed and failed residual checks"
            r"|.*errors in .* locations \(failed\)"
        ),
        no_errors=absent(r".*HPL ERROR"),
        # A summary value HPCC could not compute (name=nan / inf): the FOM regexes would skip it.
        finite_values=absent(r"(?i)^\w+=[-+]?(nan|inf)"),
        # When the input does not fit the ranks, HPCC silently runs its own sizes: the experiment
        # counts only if HPL used its N and grid (HPL echoes its parameters as "N      :    1000").
        requested_n=r"^N\s+:\s+{hpl_n}\s*$",
        requested_p=r"^P\s+:\s+{hpl_p}\s*$",
        requested_q=r"^Q\s+:\s+{hpl_q}\s*$",
    )

    # HPCC prints %g: a whole number ("StarSTREAM_Scale=56") or an exponent ("1.5e-05"), which
    # the builtin's digits.digits regex dropped or cut. -1 (HPCC's "not measured", e.g. PingPong
    # on one rank) stays out. The builtin's 24 FOMs keep their names and units.
    for metric, unit in NAMED_RESULTS:
        figure_of_merit(
            metric,
            log_file="{out_file}",
            group_name="val",
            units=unit,
            contexts=["Summary"],
            fom_regex=metric + r"=(?P<val>" + UNSIGNED + r")\s*$",
        )


# The builtin pins gcc 9.3.0 and Intel MPI 2018: a study or the catalog renders the system's
# compiler and MPI into the spec instead.
del Hpcc.software_specs["impi2018"]
del Hpcc.compilers["gcc9"]
