"""hpcaas-analyze: Ramble results -> tidy CSV -> tables, scaling, A/B ratios, cost, gates, plots.

Every command reads a tidy CSV (ours from `collect`, or a published reference table; '-' is
stdin), writes CSV to stdout or -o FILE (or Markdown with --format markdown), and on bad input
prints one line `hpcaas-analyze: <file>: <column>: <expected>` and exits 2.
"""

import argparse
import os
import sys
from pathlib import Path

from analysis.errors import InputError

PROG = "hpcaas-analyze"


class _Parser(argparse.ArgumentParser):
    """Usage errors are bad input too: one line, exit 2 (via InputError), no usage dump."""

    def error(self, message):
        raise InputError("command line", self.prog.replace(PROG, "").strip() or PROG, message)


# --------------------------------------------------------------------------- helpers


class _Inputs(str):
    """Several results files read as one table (e.g. two systems' runs of a study), named in
    messages by their paths joined with ' + '."""

    def __new__(cls, paths):
        named = str.__new__(cls, " + ".join(paths))
        named.paths = paths
        return named


def _input(path: str) -> str:
    """A results CSV, or a run's folder (hpcaas/run/place.py: its results.csv)."""
    folder = Path(path)
    return str(folder / "results.csv") if folder.is_dir() and (folder / "results.csv").is_file() else path


def _read(path, **kwargs):
    """The table of a results file (or of several, one after the other); a file without a single
    row is bad input: an analysis of nothing would print an empty answer and exit 0."""
    import pandas as pd

    from analysis import files

    paths = path.paths if isinstance(path, _Inputs) else [path]
    frames = [files.read_results(p, **kwargs) for p in paths]
    for p, df in zip(paths, frames):
        if df.empty:
            raise InputError(p, "(rows)", "at least one result row (the file has its header only)")
    if len(frames) == 1:
        return frames[0]
    df = pd.concat(frames, ignore_index=True)
    kinds = {c for f in frames for c in f.columns if isinstance(f[c].dtype, pd.CategoricalDtype)}
    return df.astype({c: "category" for c in kinds if c in df})


def _read_or_collect(path):
    """A results CSV, or a workspace folder (collected on the fly)."""
    from analysis import collect

    if Path(path).is_dir():
        return collect.collect(path), str(Path(path) / collect.RESULTS_FILE)
    return _read(path), path


def _given(args, *names):
    """The options a command passes on as they are: argparse's dest is the function's keyword."""
    return {name: getattr(args, name) for name in names}


def _emit(df, args):
    from analysis import files

    _write(files.render(df, args.format), args.output)


def _write(data, output):
    """Text to stdout or -o, a figure (bytes) to -o; an unwritable path is bad input."""
    from analysis import files

    try:
        files.emit(data, output)
    except OSError as err:
        raise InputError(output, "(output)", f"a writable file ({err.strerror})") from None


def _direction(args, df, file):
    """The direction of --metric (which must be in the file) from its unit or the flags."""
    from analysis import directions, frame

    unit = str(frame.select_metric(df, args.metric, file)["unit"].iloc[0])
    return directions.resolve(args.metric, unit, file, args.higher_is_better, args.lower_is_better)


# --------------------------------------------------------------------------- commands


def cmd_collect(args):
    from analysis import collect

    _emit(
        collect.collect(args.workspace, **_given(args, "configs_dir", "spack_lock", "commit", "inputs_hash", "jobs")),
        args,
    )


def cmd_table(args):
    from analysis import table

    df = _read(args.csv)
    _emit(table.table(df, args.metric, args.csv, args.rows, args.cols), args)


def cmd_scaling(args):
    from analysis import scaling

    df = _read(args.csv)
    out = scaling.scaling(
        df, args.metric, _direction(args, df, args.csv), args.csv, by=args.by, nodes_col=args.nodes_col, weak=args.weak
    )
    _emit(scaling.as_tidy(out, args.nodes_col) if args.tidy else out, args)


def cmd_compare(args):
    from analysis import compare

    df = _read(args.csv)
    _emit(
        compare.compare(
            df, args.metric, args.axis, args.a, args.b, _direction(args, df, args.csv), args.csv, by=args.by
        ),
        args,
    )


def cmd_normalise(args):
    from analysis import normalise

    df = _read(args.csv)
    _emit(normalise.normalise(df, args.metric, normalise.parse_cell(args.to), args.csv, by=args.by), args)


def cmd_best(args):
    from analysis import best

    df = _read(args.csv)
    _emit(best.best(df, args.metric, _direction(args, df, args.csv), args.csv, by=args.by or []), args)


def cmd_repeats(args):
    from analysis import repeats

    df = _read(args.csv)
    _emit(repeats.repeats(df, args.csv, metric=args.metric), args)


def _systems(df):
    return [str(s) for s in df["system"].unique()] if "system" in df.columns else []


def cmd_cost(args):
    from analysis import cost

    df = _read(args.csv)
    prices = (
        cost.prices_from_configs(args.prices, _systems(df))
        if Path(args.prices).is_dir()
        else cost.prices_from_csv(args.prices)
    )
    _emit(
        cost.cost(df, args.metric, prices, _direction(args, df, args.csv), args.csv, args.prices, by=args.by or []),
        args,
    )


def cmd_correlate(args):
    from analysis import correlate, files

    df = _read(args.csv)
    where = correlate.parse_where(args.where)
    traits_where = correlate.parse_where(args.traits_where, "--traits-where")
    labels = correlate.parse_systems(args.traits_systems)
    tables = []
    for source in args.traits:
        if Path(source).is_dir():
            tables.append((source, correlate.from_configs(source, _systems(df))))
        else:
            tables.append((source, files.read_traits(source, where=traits_where, systems=labels)))
    traits = correlate.join_traits(tables)
    named = " + ".join(args.traits)
    best = _direction(args, df, args.csv) if args.best else None
    out = correlate.correlate(
        df, args.metric, traits, args.csv, named, by=args.by or [], where=where, best=best, names=args.trait
    )
    _emit(out, args)


def cmd_rpeak(args):
    from analysis import files, rpeak

    if args.csv is not None and not args.metric:
        raise InputError("command line", "rpeak", "--metric with a results CSV")
    df = _read(args.csv) if args.csv is not None else None
    if Path(args.systems).is_dir():
        peaks = rpeak.from_configs(args.systems, None if df is None else _systems(df), gpu=args.gpu)
    else:
        peaks = rpeak.from_traits(files.read_traits(args.systems), args.systems)
    _emit(peaks if df is None else rpeak.rpeak(df, args.metric, peaks, args.csv), args)


def cmd_per_atom_step(args):
    from analysis import files, peratom, rpeak

    df = _read(args.csv)
    peaks = None
    if args.systems is not None:
        if Path(args.systems).is_dir():
            peaks = rpeak.from_configs(args.systems, _systems(df), gpu=args.gpu)
        else:
            peaks = rpeak.from_traits(files.read_traits(args.systems), args.systems)
    _emit(
        peratom.per_atom_step(
            df, args.metric, args.atoms, args.csv, steps=args.steps, timestep=args.timestep, peaks=peaks
        ),
        args,
    )


def cmd_published(args):
    from analysis import published

    mapping = {}
    for item in args.map or []:
        if "=" not in item:
            raise InputError("command line", "--map", f"MEASURED=PUBLISHED metric names; got {item!r}")
        mine, theirs = item.split("=", 1)
        mapping[mine] = theirs
    measured = _read(args.csv)
    reference = _read(args.reference, value_decimals=True)
    _emit(published.published(measured, reference, args.csv, args.reference, rename=mapping), args)


def cmd_gate(args):
    from analysis import gate

    measured, baseline = _read(args.csv), _read(args.baseline)
    options = _given(args, "sigma", "floor", "cap", "metrics", "higher_is_better", "lower_is_better")
    out = gate.gate(measured, baseline, args.csv, args.baseline, **options)
    _emit(out, args)
    counts = {v: int((out["verdict"] == v).sum()) for v in (gate.FAIL, gate.UNSTABLE, gate.PASS)}
    version = ", ".join(
        f"{c} {', '.join(sorted(set(baseline[c].astype(str)) - {''}))}"
        for c in ("project_commit", "timestamp")
        if c in baseline.columns
    )
    against = f" against {args.baseline}" + (f" ({version})" if version else "")
    if counts[gate.FAIL] or counts[gate.UNSTABLE]:
        told = ", ".join(f"{n} {v}" for v, n in counts.items() if n and v != gate.PASS)
        print(f"{PROG}: gate: {told} of {len(out)} FOMs{against}", file=sys.stderr)
        for row in out[out["verdict"].isin([gate.FAIL, gate.UNSTABLE])].itertuples():
            print(f"{PROG}: gate: {row.metric}: {row.verdict}: {row.reason}", file=sys.stderr)
        return 1
    print(f"{PROG}: gate: all {counts[gate.PASS]} FOMs PASS{against}", file=sys.stderr)
    return 0


def cmd_plot(args):
    from analysis import plot, scaling

    df = _read(args.csv)
    if args.kind == "scaling":
        direction = _direction(args, df, args.csv)
        scaled = scaling.scaling(
            df, args.metric, direction, args.csv, by=args.by, nodes_col=args.nodes_col, weak=args.weak
        )
        by = args.by if args.by is not None else scaling.default_by(df[df["metric"] == args.metric], args.nodes_col)
        png = plot.scaling_figure(scaled, by, args.nodes_col, weak=args.weak)
    else:
        if not args.axis:
            raise InputError("command line", "plot", "--axis COLUMN for --kind bars")
        agg, others = plot.bars_data(df, args.metric, args.axis, args.csv, by=args.by)
        png = plot.bars_figure(agg, args.axis, others)
    _write(png, args.output)


def cmd_report(args):
    from analysis import report

    df, file = _read_or_collect(args.input)
    out = Path(args.output)
    if out.exists() and not out.is_dir():
        raise InputError(out, "(output)", "a folder for report.md, report.html and the figures")
    if not out.parent.is_dir():
        raise InputError(out, "(output)", "a folder whose parent exists")
    files = report.build(df, file, Path(args.input).name)
    out.mkdir(exist_ok=True)
    for name, content in files.items():
        _write(content, out / name)
    print(f"{PROG}: report: {out / 'report.md'}, {out / 'report.html'} and {len(files) - 2} figures", file=sys.stderr)


def cmd_summary(args):
    from analysis import summary

    df, _ = _read_or_collect(args.input)
    _write(summary.summary(df), args.output)


# --------------------------------------------------------------------------- parser


def _common(p, metric=True, metric_required=True, direction=False):
    p.add_argument("-o", "--output", help="write here (atomically) instead of stdout")
    p.add_argument("--format", choices=["csv", "markdown"], default="csv", help="output format (default: csv)")
    if metric:
        p.add_argument("--metric", required=metric_required, help="the metric (FOM) to analyse")
    if direction:
        p.add_argument(
            "--higher-is-better",
            nargs="*",
            metavar="METRIC",
            help="for a metric without a known direction (bare: the --metric)",
        )
        p.add_argument(
            "--lower-is-better",
            nargs="*",
            metavar="METRIC",
            help="for a metric without a known direction (bare: the --metric)",
        )


def _command(sub, run, help, **common):
    """The subcommand `run` (cmd_<name>) that reads a results CSV, with the common options."""
    p = sub.add_parser(run.__name__.removeprefix("cmd_").replace("_", "-"), help=help)
    p.add_argument(
        "csv",
        nargs="+",
        metavar="CSV",
        help="a results CSV or a run's folder; several are read as one table (e.g. two systems' runs)",
    )
    _common(p, **common)
    p.set_defaults(run=run)
    return p


def build_parser():
    from analysis import gate

    ap = _Parser(prog=PROG, description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("collect", help="Ramble results (results.latest.json) -> tidy CSV")
    p.add_argument("workspace", help="the Ramble workspace folder")
    _common(p, metric=False)
    p.add_argument(
        "--configs",
        dest="configs_dir",
        default="configs",
        help="configs/ folder for spack_inputs_hash (default: %(default)s)",
    )
    p.add_argument(
        "--spack-inputs-hash", dest="inputs_hash", help="use this instead of hashing the system's Spack inputs"
    )
    p.add_argument("--spack-lock-hash", dest="spack_lock", help="use this instead of hashing software/*/spack.lock")
    p.add_argument("--project-commit", dest="commit", help="use this instead of `git rev-parse HEAD`")
    p.add_argument(
        "--jobs", help="scheduler job statistics CSV (slurm/wait-jobs.py --csv): a failed job fails its experiment"
    )
    p.set_defaults(run=cmd_collect)

    p = _command(sub, cmd_table, "paper-style pivot: rows = configurations, columns = e.g. nodes")
    p.add_argument("--rows", nargs="+", help="row columns (default: the other varying columns)")
    p.add_argument("--cols", nargs="+", help="column columns (default: nodes, if it varies)")

    p = _command(sub, cmd_scaling, "speed-up and parallel efficiency vs the smallest node count", direction=True)
    p.add_argument("--by", nargs="*", help="one curve per combination (default: every other varying column)")
    p.add_argument("--nodes-col", default="nodes", help="the column scaled over (default: %(default)s)")
    p.add_argument("--weak", action="store_true", help="weak scaling (problem size grows with nodes)")
    p.add_argument("--tidy", action="store_true", help="speedup and parallel_efficiency as tidy metric rows")

    p = _command(sub, cmd_compare, "A/B ratio along one column, > 1 means B is better", direction=True)
    p.add_argument("--axis", required=True, help="the column compared along (mpi, compiler, ...)")
    p.add_argument("--a", required=True, help="value A (write --a=-O3 for values starting with '-')")
    p.add_argument("--b", required=True, help="value B")
    p.add_argument("--by", nargs="*", help="pair A and B within these columns (default: all others)")

    p = _command(sub, cmd_normalise, "each value over one reference cell's (a paper's 'normalised w.r.t.')")
    p.add_argument("--to", nargs="+", required=True, metavar="COLUMN=VALUE", help="the reference cell, e.g. ranks=32")
    p.add_argument("--by", nargs="*", help="a reference per group of these columns (default: all others that vary)")

    p = _command(sub, cmd_best, "the best configuration per group and its margin", direction=True)
    p.add_argument("--by", nargs="*", help="groups (default: one group)")

    p = _command(sub, cmd_repeats, "mean, min, max, stdev, CV per configuration", metric_required=False)

    p = _command(
        sub, cmd_cost, "performance per dollar (best = 1) from a price per node-hour or per node bought", direction=True
    )
    p.add_argument(
        "--prices",
        required=True,
        help="prices CSV (system[,variant],price_per_node_hour|price_per_node,currency,date,source) "
        "or a configs/ folder",
    )
    p.add_argument("--by", nargs="*", help="normalise within these groups (default: all rows)")

    p = _command(sub, cmd_correlate, "Pearson r of the metric with each numeric system trait", direction=True)
    p.add_argument(
        "--traits",
        required=True,
        nargs="+",
        metavar="SOURCE",
        help="system traits, joined on the system: a configs/ folder (numeric facts, rpeak_node_gflops) "
        "or a CSV (system + numeric columns, or tidy system,metric,value: a published table, a study's results)",
    )
    p.add_argument("--trait", nargs="+", metavar="NAME", help="correlate with these traits, in order (default: all)")
    p.add_argument(
        "--traits-where",
        nargs="+",
        metavar="COLUMN=VALUE",
        help="keep the trait CSVs' rows matching (COLUMN!=VALUE: not matching), e.g. variant=other_node",
    )
    p.add_argument(
        "--traits-systems", nargs="+", metavar="LABEL=SYSTEM", help="a trait CSV's system labels as our systems"
    )
    p.add_argument("--by", nargs="*", help="one r per group (default: all rows)")
    p.add_argument(
        "--where", nargs="+", metavar="COLUMN=VALUE", help="only the result rows matching (COLUMN!=VALUE: not matching)"
    )
    p.add_argument(
        "--best",
        action="store_true",
        help="each system once per group, at its best configuration (e.g. its best build)",
    )

    p = sub.add_parser("rpeak", help="R_peak per node and results normalised by it")
    p.add_argument("csv", nargs="?", help="results CSV (omit to list R_peak per system)")
    _common(p, metric_required=False)
    p.add_argument("--systems", required=True, help="system facts: configs/ folder or a traits CSV")
    p.add_argument(
        "--gpu",
        choices=["dp", "half_sp", "none"],
        default="dp",
        help="how GPUs count (configs only; default: %(default)s)",
    )
    p.set_defaults(run=cmd_rpeak)

    p = _command(sub, cmd_per_atom_step, "seconds per atom per MD step (IJHPCA'19 Figs. 8, 10), vs R_peak")
    p.add_argument("--atoms", required=True, help="the FOM holding the model's atom count (e.g. Atoms)")
    p.add_argument("--steps", help="the FOM holding the steps --metric (a time) covers (e.g. Steps)")
    p.add_argument("--timestep", help="the FOM holding the MD time step in ps, for --metric in ns/day")
    p.add_argument("--systems", help="system facts (configs/ folder or traits CSV): add the nodes' R_peak")
    p.add_argument("--gpu", choices=["dp", "half_sp", "none"], default="dp", help="how GPUs count in R_peak")

    p = _command(sub, cmd_published, "measured vs published, cell by cell", metric=False)
    p.add_argument("--reference", required=True, help="published reference CSV")
    p.add_argument("--map", nargs="+", metavar="MEASURED=PUBLISHED", help="metric names that differ")

    p = _command(
        sub,
        cmd_gate,
        "PASS/FAIL/UNSTABLE per FOM against a baseline (analysis/gate.py); exit 1 unless all PASS",
        metric=False,
        direction=True,
    )
    p.add_argument("--baseline", required=True, help="the baseline results CSV")
    p.add_argument(
        "--sigma",
        type=float,
        default=gate.SIGMA,
        help="tolerance in the baseline's run-to-run CVs (default: %(default)s)",
    )
    p.add_argument("--floor", type=float, default=gate.FLOOR, help="least tolerance, a fraction (default: %(default)s)")
    p.add_argument("--cap", type=float, default=gate.CAP, help="largest tolerance, a fraction (default: %(default)s)")
    p.add_argument("--metric", dest="metrics", nargs="+", help="gate only these FOMs")

    p = sub.add_parser("plot", help="PNG: scaling curves with the ideal line, or grouped A/B bars")
    p.add_argument("csv")
    p.add_argument("-o", "--output", required=True, help="the PNG file")
    p.add_argument("--metric", required=True)
    p.add_argument("--kind", choices=["scaling", "bars"], default="scaling")
    p.add_argument("--by", nargs="*", help="curves / bar groups (default: every other varying column)")
    p.add_argument("--nodes-col", default="nodes")
    p.add_argument("--weak", action="store_true")
    p.add_argument("--axis", help="bars: the column whose values are the bars")
    p.add_argument("--higher-is-better", nargs="*", metavar="METRIC")
    p.add_argument("--lower-is-better", nargs="*", metavar="METRIC")
    p.set_defaults(run=cmd_plot)

    p = sub.add_parser("report", help="report.md + report.html + PNGs of a results CSV or workspace")
    p.add_argument("input", help="results CSV or Ramble workspace folder")
    p.add_argument("-o", "--output", required=True, help="the report folder")
    p.set_defaults(run=cmd_report)

    p = sub.add_parser("summary", help="experiments, failures and FOMs at a glance (Markdown)")
    p.add_argument("input", help="results CSV or Ramble workspace folder")
    p.add_argument("-o", "--output")
    p.set_defaults(run=cmd_summary)
    return ap


def main(argv=None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if isinstance(getattr(args, "csv", None), list):
            paths = [_input(p) for p in args.csv]
            args.csv = paths[0] if len(paths) == 1 else _Inputs(paths)
        return args.run(args) or 0
    except InputError as err:
        print(f"{PROG}: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `hpcaas-analyze ... | head`: the reader has all it wants
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
