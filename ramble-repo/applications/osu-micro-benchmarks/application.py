import os
import re

from hpcaas_kit import *
from ramble.app.builtin.osu_micro_benchmarks import OsuMicroBenchmarks as BuiltinOsu
from ramble.appkit import *

# The studies' benchmarks and the largest message size each prints by default (1 << 22 for
# point-to-point, 1 << 20 for collectives, in 5.3 as in 7.5).
STUDY_BENCHMARKS = {"osu_latency": "4194304", "osu_bw": "4194304", "osu_bibw": "4194304", "osu_alltoall": "1048576"}

# Tables the builtin does not recognise (its _prepare_analysis finds no FOM in them):
#   collectives with -f:  # Size  Avg Latency(us)  Min Latency(us)  Max Latency(us)  Iterations
#   data validation (-c, 5.9+): a last column "Pass" or "Fail"
SIZE = r"^\s*(?P<msg_size>[0-9]+)\s+"
EXTRA_TABLES = [
    (
        re.compile(r"^#\s*Size\s+Avg Latency\(us\)\s+Min Latency\(us\)\s+Max Latency\(us\)\s+Iterations"),
        SIZE + rf"(?P<avg_lat>{NUM})\s+(?P<min_lat>{NUM})\s+(?P<max_lat>{NUM})\s+(?P<iterations>[0-9]+)"
        r"(?:\s+(?:Pass|Fail))?\s*$",
    ),
    (
        re.compile(r"^#\s*Size\s+(?:Avg )?Latency ?\(us\)\s+Validation\s*$"),
        SIZE + rf"(?P<avg_lat>{NUM})\s+(?:Pass|Fail)\s*$",
    ),
    (re.compile(r"^#\s*Size\s+Bandwidth \(MB/s\)\s+Validation\s*$"), SIZE + rf"(?P<avg_bw>{NUM})\s+(?:Pass|Fail)\s*$"),
]
EXTRA_GROUPS = {"min_lat": ("Min Latency", "us"), "max_lat": ("Max Latency", "us"), "iterations": ("Iterations", "")}
# The columns of the tables the builtin recognises (its fom_regex_headers), by its group names:
# a row is the message size (where the table has one) and these numbers.
TYPES = BuiltinOsu.fom_types
TAIL_LAT, TAIL_BW = ("p50_lat", "p90_lat", "p99_lat"), ("p50_bw", "p90_bw", "p99_bw")
COLUMNS = {
    TYPES.single_lat: ("msg_size", "avg_lat"),
    TYPES.single_tail_lat: ("msg_size", "avg_lat", *TAIL_LAT),
    TYPES.avg_lat: ("msg_size", "avg_lat"),
    TYPES.avg_tail_lat: ("msg_size", "avg_lat", *TAIL_LAT),
    TYPES.single_bw: ("msg_size", "avg_bw"),
    TYPES.single_tail_bw: ("msg_size", "avg_bw", *TAIL_BW),
    TYPES.multi_bw: ("msg_size", "avg_bw", "msg_rate"),
    TYPES.multi_tail_bw: ("msg_size", "avg_bw", "msg_rate", *TAIL_BW),
    TYPES.single_avg_lat: ("avg_lat",),
    TYPES.single_avg_tail_lat: ("avg_lat", *TAIL_LAT),
}
# Every table, as (its header line, its row): the extra ones first (their headers are longer).
TABLES = EXTRA_TABLES + [
    (
        BuiltinOsu.fom_regex_headers[kind],
        r"^\s*" + r"\s+".join(f"(?P<{c}>{'[0-9]+' if c == 'msg_size' else NUM})" for c in columns) + r"\s*$",
    )
    for kind, columns in COLUMNS.items()
]


def table_rows(lines):
    """For each line, the row regex of the table it is a row of, or None (headers, titles, text)."""
    rows, row = [], None
    for line in lines:
        header = next((r for h, r in TABLES if h.match(line)), None)
        if header or line.startswith("# OSU "):
            row = header
        rows.append(row if row and re.match(row, line) else None)
    return rows


class OsuMicroBenchmarks(ResultIdentity, BuiltinOsu):
    """OSU Micro-Benchmarks: S2's latency and bandwidth (osu_latency, osu_bw; OSU 5.3) and S4's
    latency (OSU 5.4) at 2 ranks on 2 nodes; osu_alltoall and osu_bibw as well.

    Differs from Ramble's builtin: the version is pinned (5.3, the one the git mirror of the
    recipe serves) and no compiler or MPI is named; the tables the builtin misses (collectives'
    full format -f, data validation -c) give FOMs too; and a run needs success criteria (the
    builtin has none: a crashed or truncated run counted). OSU prints no closing line, so a run
    is complete when its table reached the experiment's largest message size (max_msg_size,
    the benchmark's default unless a study passes -m in additional_args: OSU 5.3's point-to-
    point benchmarks know no -m, so no -m is passed by default).
    """

    name = "osu-micro-benchmarks"

    maintainers("hpcaas-bench")

    spack_package("osu-micro-benchmarks", "osu-micro-benchmarks@5.3")

    # Every OSU benchmark opens with "# OSU MPI[-CUDA|-ROCM|...] <name> Test v<version>".
    run_start_regex = r"^# OSU .*Test"

    # The catalog's: two ranks, a few seconds (osu_latency needs exactly two processes).
    workload("osu_latency", executable="execute-osu_latency", tags=["catalog"])
    catalog_ranks = ["2"]
    workload_variable(
        "additional_args", default="", workloads=["osu_latency"], description="Additional arguments for benchmark"
    )

    for benchmark in BuiltinOsu.all_workloads:
        workload_variable(
            "max_msg_size",
            default=STUDY_BENCHMARKS.get(benchmark, "[0-9]+"),
            workloads=[benchmark],
            description="Largest message size in bytes the run must reach (the benchmark's "
            "default; set it with -m in additional_args); '[0-9]+' checks nothing",
        )

    log_criteria(
        LOG,
        # OSU's completion: at least one row of its table (the table's end is requested-max-size).
        completed=r"^\s*[0-9]+\s+[0-9]+\.[0-9]+",
        # Data validation (-c) marks a wrong message "Fail".
        verified=absent(r".*\sFail\s*$"),
        # Wrong rank count or bad options.
        no_errors=absent(r"(?i)^(This test requires|Invalid |Usage: )"),
        finite_values=absent(r"(?i)^\s*[0-9]+\s+.*\b(nan|inf)\b"),
        requested_max_size=r"^\s*{max_msg_size}\s+[0-9]+\.[0-9]+",
    )

    # Each benchmark of a file holding several (a job running osu_bw, then osu_latency) is a
    # section: its rows are named by it ("MPI Latency Test: Message Size: 8").
    figure_of_merit_context("benchmark", regex=r"^# OSU (?P<benchmark>.*Test)", output_format="{benchmark}")
    section_contexts = ("benchmark",)

    def _prepare_analysis(self, workspace, app_inst=None):
        super()._prepare_analysis(workspace, app_inst)
        # The builtin's "OMB Version" ("v5.3") is the build's version string, not a result: the
        # results table keeps numbers only, and a word there fails the experiment.
        self.figures_of_merit.pop("OMB Version", None)
        log_file = self.expander.expand_var_name("log_file")
        if not os.path.isfile(log_file):
            return
        with open(log_file, errors="replace") as f:
            lines = f.readlines()
        rows = table_rows(lines)
        kinds = list(dict.fromkeys(r for r in rows if r))
        if len(kinds) > 1:
            # Tables of several kinds (bandwidth, then latency): a row of one reads like a row of
            # another, so each kind's FOMs read a copy of the log without the other kinds' rows.
            for fom in [f for f, conf in self.figures_of_merit.items() if conf["contexts"] == ["msg_size"]]:
                del self.figures_of_merit[fom]
            run_dir = self.expander.expand_var_name("experiment_run_dir")
            for i, kind in enumerate(kinds):
                path = os.path.join(run_dir, f"osu_table_{i + 1}.out")
                with open(path, "w") as f:
                    f.writelines(line for line, row in zip(lines, rows) if row in (None, kind))
                self._table_foms(kind, path)
        elif kinds and not any(conf["contexts"] == ["msg_size"] for conf in self.figures_of_merit.values()):
            self._table_foms(kinds[0], LOG)

    def _table_foms(self, row, log_file):
        """The FOMs of a table whose rows match `row`, read from `log_file`: one per column, named
        as the builtin names it."""
        for group in re.compile(row).groupindex:
            name, units = EXTRA_GROUPS.get(group) or (
                (self.group_mapping[group]["name"], self.group_mapping[group]["units"])
                if group in self.group_mapping
                else (None, None)
            )
            if name:
                self.figure_of_merit(
                    name, fom_regex=row, group_name=group, units=units, log_file=log_file, contexts=["msg_size"]
                )


# The builtin pins a gcc and an openmpi of its own: a study or the catalog renders the
# system's compiler and MPI into the spec instead.
del OsuMicroBenchmarks.software_specs["openmpi"]
del OsuMicroBenchmarks.compilers["gcc"]
# The builtin's "OMB Datatype" (7.x: "# Datatype: MPI_CHAR.") is a word, not a result (see above).
del OsuMicroBenchmarks.figures_of_merit["OMB Datatype"]
