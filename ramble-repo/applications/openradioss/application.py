import os
import re

from hpcaas_kit import *
from ramble.appkit import *

# OpenRadioss numbers print as ".2620E+01", "0.45" or "-0.0".
# A row of the cycle table: CYCLE TIME TIME-STEP ELEMENT(type id) ERROR I-ENERGY K-ENERGY-T
# K-ENERGY-R EXT-WORK MAS.ERR TOTAL-MASS MASS-ADDED (the last two since 2019's versions).
CYCLE_ROW = (
    rf"^\s+(?P<cycle>[0-9]+)\s+(?P<time>{NUM})\s+(?P<dt>{NUM})\s+(?P<element>\S+)\s+(?P<element_id>[0-9]+)"
    rf"\s+(?P<error>{NUM})%\s+(?P<ie>{NUM})\s+(?P<ket>{NUM})\s+(?P<ker>{NUM})\s+(?P<ext>{NUM})"
    rf"\s+(?P<mas_err>{NUM})(?:\s+(?P<mass>{NUM})\s+(?P<mass_added>{NUM}))?\s*$"
)
# The per-process timer tables ("** CPU USER TIME **" / "** ELAPSED TIME **", each with a SUMMARY
# and an SPMD COM. TIME table whose columns depend on the model), flattened one value a line.
TABLES = "openradioss_tables.out"
SECTION = re.compile(r"^\s+\*\* (CPU USER TIME|ELAPSED TIME) \*\*\s*$")
TABLE = re.compile(r"^\s+\*\* (SUMMARY|SPMD COM\. TIME) \*\*\s*$")
HEADER = re.compile(r"^\s*(?:#PROC)?((?:\s+[A-Z0-9%][A-Z0-9.%]*)+)\s*$")
ROW = re.compile(r"^\s+([0-9]+|MIN|MAX|AVG)((?:\s+" + NUM + r")+)\s*$")


def flatten_tables(lines):
    """The per-process timer tables of an engine listing as 'process: <row>' context lines and
    '<section> / <table> / <column> = <value>' lines (figures of merit read one value a line)."""
    out, section, table, columns = [], None, None, []
    for line in lines:
        if SECTION.match(line):
            section, table, columns = SECTION.match(line).group(1), None, []
        elif TABLE.match(line):
            table, columns = TABLE.match(line).group(1), []
        elif section and table and HEADER.match(line) and not ROW.match(line):
            columns = HEADER.match(line).group(1).split()
        elif section and table and columns and ROW.match(line):
            row, values = ROW.match(line).group(1), ROW.match(line).group(2).split()
            if len(values) == len(columns):
                out.append(f"process: {row}")
                out.extend(f"{section} / {table} / {column} = {value}" for column, value in zip(columns, values))
        elif line.strip().startswith("** ") and "TIME" not in line:
            section, table, columns = None, None, []
    return out


class Openradioss(ExecutableApplication):
    """OpenRadioss explicit crash simulation for S1 (HPCaaS-Bench T6: MPI x fabric x file system,
    1-14 nodes of 28 ranks x 4 threads, the NEON 1M-element frontal crash to 80 ms).

    A run is two programs: the starter reads <run>_0000.rad and splits the model into one domain
    per MPI rank, then the engine runs <run>_0001.rad on those ranks, each with n_threads OpenMP
    threads. The engine writes its listing to <run>_0001.out (results_file: the figures of merit
    and the success criteria read it) and ends it with NORMAL TERMINATION or ERROR TERMINATION.
    Formats: the MPI build's listing (SPMD domains, estimated speedup, SPMD communication times) and
    the thread-only build's (one domain, neither); header and copyright of 2022-2026 versions.

    Workloads: neon_1m (the study's, a download: openradioss.org's HPC benchmark model) and
    tritubv4, the catalog's: the crash tube of triangles of OpenRadioss' own QA tests (2570 cycles,
    75 ms), two small files of the repository at the pinned commit.
    """

    name = "openradioss"

    maintainers("hpcaas-bench")

    tags("crash", "explicit", "fem")
    # The build's extlib (prebuilt hm_reader and h3d libraries) is Git LFS content, which no git
    # mirror here serves: the fast tier leaves it out (make catalog tries it). The TRITUBV4 decks
    # are files of the repository at a pinned commit: make mirror serves them.
    tags("needs-internet")

    spack_package("openradioss", "openradioss@20230701 +mpi")

    # The engine listing's first line names the file ("TRITUBV4_0001.out"), restarts _0002 on.
    run_start_regex = r"^ \S+_[0-9]{4}\.out\s*$"

    # sha256 from the Phoronix Test Suite profile pts/openradioss-1.1.1 (downloads.xml), which
    # fetches the same attachment; openradioss.org publishes none.
    input_file(
        "neon_1m",
        url="https://openradioss.atlassian.net/wiki/download/attachments/47546369/Neon1m11_2017.zip?api=v2",
        sha256="0077444173c51600f5d733fed3735e180fc7ed0eda18b3c615c17837322f9aaa",
        extension="zip",
        description="NEON 1M-element frontal crash (Neon1m11_2017.zip: NEON1M11_0000.rad, "
        "NEON1M11_0001.rad), from openradioss.org's HPC benchmark models. Offline: save it "
        "as <mirror>/openradioss/neon_1m.zip in a Ramble mirror (ramble mirror add)",
    )
    # The QA deck at the commit the openradioss recipe builds (CC BY-NC 4.0, Altair).
    _QA = (
        "https://raw.githubusercontent.com/OpenRadioss/OpenRadioss/6247818ad01c01aedd530c4a386bb075bcd81a5b/"
        "qa-tests/miniqa/CRASH/crashtriangles/data/"
    )
    input_file(
        "tritubv4_starter",
        url=_QA + "TRITUBV4_0000.rad",
        expand=False,
        sha256="6bd699ea3fdd509eded5f6e68b3d10e1e929629f5dbc6d0aac662d60c27d71c9",
        description="TRITUBV4 starter deck (model: a tube of 3-node shells crashing into a wall). "
        "Offline: make mirror puts it into the project's Ramble mirror from OpenRadioss' git",
    )
    input_file(
        "tritubv4_engine",
        url=_QA + "TRITUBV4_0001.rad",
        expand=False,
        sha256="9b0da09e53c7de44ccf79c2a7b76f2cc629636a8359be2897dd6b88062269b4a",
        description="TRITUBV4 engine deck (/RUN to 75.1 ms, animation every 5 ms)",
    )

    executable(
        "copy-inputs",
        template=[
            "cp {starter_input} {experiment_run_dir}/{run_name}_0000.rad",
            "cp {engine_input} {experiment_run_dir}/{run_name}_0001.rad",
        ],
        use_mpi=False,
    )
    # The Phoronix profile shortens NEON the same way (0.08 -> 0.008 s): the engine file's /RUN
    # card carries the final time.
    executable(
        "set-end-time",
        template=[('sed -i "s/{deck_end_time}/{end_time}/g" ' "{experiment_run_dir}/{run_name}_0001.rad")],
        use_mpi=False,
    )
    executable(
        "starter",
        "{starter_exe} -i {run_name}_0000.rad -np {n_ranks} -nt {n_threads}",
        use_mpi=False,
        redirect="{experiment_run_dir}/starter.log",
    )
    executable("engine", "{engine_exe} -i {run_name}_0001.rad -nt {n_threads} {engine_flags}", use_mpi=True)

    workload("neon_1m", executables=["copy-inputs", "set-end-time", "starter", "engine"], input="neon_1m")
    workload(
        "tritubv4",
        executables=["copy-inputs", "starter", "engine"],
        inputs=["tritubv4_starter", "tritubv4_engine"],
        tags=["catalog"],
    )

    for _workload, _run, _end, _starter, _engine in (
        ("neon_1m", "NEON1M11", "0.08", "{neon_1m}/NEON1M11_0000.rad", "{neon_1m}/NEON1M11_0001.rad"),
        ("tritubv4", "TRITUBV4", "0.0751", "{tritubv4_starter}", "{tritubv4_engine}"),
    ):
        workload_variable(
            "starter_input",
            default=_starter,
            workload=_workload,
            description="The starter deck (<run_name>_0000.rad); neon_1m: in the unpacked "
            "archive, whose single top directory Ramble strips",
        )
        workload_variable(
            "engine_input", default=_engine, workload=_workload, description="The engine deck (<run_name>_0001.rad)"
        )
        workload_variable(
            "run_name",
            default=_run,
            workload=_workload,
            description="Run name: the deck's file names and the engine listing <run_name>_0001.out",
        )
        workload_variable(
            "deck_end_time",
            default=_end,
            workload=_workload,
            description="Final time written in the deck's engine file",
        )
        workload_variable(
            "end_time",
            default=_end,
            workload=_workload,
            description="Final time to simulate (NEON: the study's 80 ms; shorter for a quick run)",
        )
    _both = ["neon_1m", "tritubv4"]
    workload_variables(
        ("starter_exe", "starter_linux64_gf", "Starter binary (starter_<arch>, e.g. starter_linux64_gf for gfortran)"),
        ("engine_exe", "engine_linux64_gf_ompi", "Engine binary (engine_<arch>[_ompi]; _ompi is the MPI build)"),
        ("engine_flags", "", "Extra engine options (e.g. -norst: no restart files)"),
        ("results_file", "{experiment_run_dir}/{run_name}_0001.out", "The engine listing"),
        workloads=_both,
    )
    # OpenRadioss' own advice; its threads need a large private stack.
    environment_variable(
        "OMP_STACKSIZE",
        value="400m",
        workloads=_both,
        description="OpenMP thread stack size for the starter and engine",
    )
    environment_variable(
        "OMP_NUM_THREADS", value="{n_threads}", workloads=_both, description="OpenMP threads per MPI rank"
    )

    figures_of_merit(
        ("Elapsed time", rf"^\s*ELAPSED TIME\s+=\s*(?P<value>{NUM})\s+s\s*$", "s"),
        ("Cycles", r"^\s*TOTAL NUMBER OF CYCLES\s*:\s*(?P<value>[0-9]+)", ""),
        ("SPMD domains", r"^\s*NUMBER OF SPMD DOMAINS\s+(?P<value>[0-9]+)", ""),
        ("Threads per domain", r"^\s*NUMBER OF THREADS PER DOMAIN\s+(?P<value>[0-9]+)", ""),
        ("HMPP processes", r"^\s*NUMBER OF HMPP PROCESSES\s+(?P<value>[0-9]+)", ""),
        ("Estimated speedup", rf"^\s*ESTIMATED SPEEDUP\s*=\s*(?P<value>{NUM})", ""),
        ("Total memory", r"^\s*TOTAL MEMORY USED \.+:\s*(?P<value>[0-9]+)\s+MB", "MB"),
        ("Maximum memory per processor", r"^\s*MAXIMUM MEMORY PER PROCESSOR\.+:\s*(?P<value>[0-9]+)\s+MB", "MB"),
        ("Minimum memory per processor", r"^\s*MINIMUM MEMORY PER PROCESSOR\.+:\s*(?P<value>[0-9]+)\s+MB", "MB"),
        ("Average memory per processor", r"^\s*AVERAGE MEMORY PER PROCESSOR\.+:\s*(?P<value>[0-9]+)\s+MB", "MB"),
        ("Total disk space", r"^\s*TOTAL DISK SPACE USED \.+:\s*(?P<value>[0-9]+)\s+MB", "MB"),
        ("Animation, H3D, TH and OUTP size", r"^\s*ANIMATION/H3D/TH/OUTP SIZE \.+:\s*(?P<value>[0-9]+)\s+MB", "MB"),
        ("Restart file size", r"^\s*RESTART FILE SIZE \.+:\s*(?P<value>[0-9]+)\s+MB", "MB"),
        ("Starter runtime", rf"^\s*STARTER RUNTIME\s*=\s*(?P<value>{NUM})s", "s"),
        ("Engine runtime", rf"^\s*#\s*[0-9]+\s+ENGINE RUNTIME\s*=\s*(?P<value>{NUM})s", "s"),
        ("Starter and engine runtime", rf"^\s*STARTER\+ENGINE RUNTIME\s*=\s*(?P<value>{NUM})s", "s"),
        log_file="{results_file}",
        group_name="value",
    )
    # CUMULATIVE CPU TIME SUMMARY: "ELEMENT FORCES..............: .2399E+01    21.90 %" (its rows
    # depend on the model: contact, element, kinematic conditions, integration, ...).
    _CUMULATIVE = rf"^\s(?P<part>[A-Z][A-Za-z ()/]*?)\.+:\s*(?P<seconds>{NUM})\s+(?P<share>{NUM}) %\s*$"
    figures_of_merit(
        ("{part} CPU time", "seconds", "s"),
        ("{part} CPU share", "share", "%"),
        log_file="{results_file}",
        fom_regex=_CUMULATIVE,
    )
    # The cycle table: how far a run got and its last energies (the last row printed).
    figures_of_merit(
        ("Last cycle", "cycle", ""),
        ("Simulated time", "time", "s"),
        ("Time step", "dt", "s"),
        ("Energy error", "error", "%"),
        ("Internal energy", "ie", ""),
        ("Translational kinetic energy", "ket", ""),
        ("Rotational kinetic energy", "ker", ""),
        ("External work", "ext", ""),
        ("Mass error", "mas_err", ""),
        ("Total mass", "mass", ""),
        ("Mass added", "mass_added", ""),
        log_file="{results_file}",
        fom_regex=CYCLE_ROW,
    )

    tables_str = os.path.join("{experiment_run_dir}", TABLES)
    figure_of_merit_context("process", regex=r"^process: (?P<process>\S+)$", output_format="process {process}")
    _CELL = r"^(?P<section>[A-Z ]+) / (?P<table>[A-Z. ]+) / (?P<column>[A-Z0-9.]+) = (?P<value>" + NUM + r")$"
    figures_of_merit(
        ("{section} {table} {column}", _CELL, "s"),
        ("{section} {table} share", r"^(?P<section>[A-Z ]+) / (?P<table>[A-Z. ]+) / % = (?P<value>" + NUM + r")$", "%"),
        log_file=tables_str,
        group_name="value",
        contexts=["process"],
    )

    log_criteria(
        "{results_file}",
        completed=r"^\s*NORMAL TERMINATION",
        # Energy or mass error limits stop the engine early ("RUN KILLED: ENERGY ERROR LIMIT REACHED").
        no_errors=absent(r".*(ERROR TERMINATION|RUN KILLED|forrtl: severe)"),
        finite_values=absent(r"^\s+[0-9]+\s+.*\b(NaN|NAN|nan|Infinity|INF)\b"),
        requested_ranks=r"^\s*NUMBER OF SPMD DOMAINS\s+{n_ranks}\s*$",
        requested_threads=r"^\s*NUMBER OF THREADS PER DOMAIN\s+{n_threads}\s*$",
    )

    def _prepare_analysis(self, workspace, app_inst=None):
        """Flatten the engine listing's per-process timer tables into openradioss_tables.out."""
        super()._prepare_analysis(workspace, app_inst)
        listing = self.expander.expand_var("{results_file}")
        tables = self.expander.expand_var(self.tables_str)
        if os.path.isfile(listing):
            with open(listing, errors="replace") as f:
                flat = flatten_tables(f.read().splitlines())
            with open(tables, "w") as f:
                f.write("".join(line + "\n" for line in flat))
        elif os.path.exists(tables):
            os.remove(tables)
