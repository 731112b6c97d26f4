"""The report of `make validate`: the verdict, which gate failed (the hardware's limits, the
baseline), each FOM's fraction of its limit beside the expected band, the FOMs that moved, the
experiments that failed, and the scheduler's job statistics, in one Markdown file.

    python -m analysis.validate_report --verdict PASS|FAIL --system S --limits LIMITS_CSV
        [--baseline CSV --gate GATE_CSV] --results CSV [--jobs JOBS_CSV] -o report.md
"""

import sys

import pandas as pd

from analysis import files
from analysis.cli import _Parser
from analysis.errors import InputError
from analysis.frame import SUCCESS
from analysis.gate import rule as gate_rule


def _table(df: pd.DataFrame) -> str:
    if df.empty:
        return "(none)\n"
    return files.render(df, "markdown") + "\n"


def build(verdict, system, limits, results, baseline=None, gate=None, jobs=None) -> str:
    failed = results[results["status"] != SUCCESS]
    failed = failed.drop_duplicates("experiment")[["experiment", "status", "status_reason"]]
    below = limits[limits["verdict"] == "FAIL"]
    moved = gate[gate["verdict"] == "FAIL"] if gate is not None else gate
    failing = [
        name
        for name, bad in (
            ("the hardware's limits", len(below)),
            ("the baseline", 0 if moved is None else len(moved)),
            ("failed experiments", len(failed)),
        )
        if bad
    ]
    parts = [
        f"# Validation of {system}: {verdict}\n",
        ("Failed on: " + ", ".join(failing) + ".\n") if failing else "Every gate passed.\n",
        "## Against the hardware's limits\n",
        "Each FOM's fraction of the limit its system's facts allow (`hpcaas limits`), beside the fraction a "
        "healthy system reaches (bar chart: `limits.png`); `unknown` where the facts give no limit.\n",
        _table(limits),
        f"## Below the expected fraction ({len(below)})\n",
        _table(below[["metric", "fraction", "expected", "limit_from"]]),
    ]
    if gate is not None:
        cols = [
            c
            for c in ("metric", "unit", "baseline", "measured", "change_pct", "tolerance_pct", "verdict", "reason")
            if c in gate.columns
        ]
        parts += [
            "## Against the baseline\n",
            f"Baseline: `{baseline}`. A FOM fails when it moved the bad way by more than its tolerance "
            f"({gate_rule()}).\n",
            f"## FOMs that moved ({len(moved)})\n",
            _table(moved[cols]),
            "## All gated FOMs\n",
            _table(gate[cols]),
        ]
    else:
        parts.append("No baseline: this run was gated against the hardware's limits only.\n")
    parts += [f"## Failed experiments ({len(failed)})\n", _table(failed)]
    if jobs is not None:
        keep = [c for c in ("job_id", "name", "state", "exit_code", "nodes", "wait_s", "run_s") if c in jobs.columns]
        parts += ["## Scheduler jobs (wait and run time, from Slurm's job completion log)\n", _table(jobs[keep])]
        if {"wait_s", "run_s"} <= set(jobs.columns):
            w, r = pd.to_numeric(jobs["wait_s"]), pd.to_numeric(jobs["run_s"])
            parts.append(
                f"{len(jobs)} jobs: wait {w.sum():.0f} s in total (max {w.max():.0f} s), "
                f"run {r.sum():.0f} s in total (max {r.max():.0f} s).\n"
            )
    parts.append("Figures: `figures/report.md` (hpcaas-analyze report of the run).\n")
    return "\n".join(parts)


def main(argv=None) -> int:
    ap = _Parser(prog="validate_report", description=__doc__.split("\n")[0])
    ap.add_argument("--verdict", required=True, choices=["PASS", "FAIL"])
    ap.add_argument("--system", required=True)
    ap.add_argument("--limits", required=True, help="hpcaas limits -o CSV")
    ap.add_argument("--baseline")
    ap.add_argument("--results", required=True)
    ap.add_argument("--gate", help="hpcaas-analyze gate -o CSV (with --baseline)")
    ap.add_argument("--jobs")
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args(argv)
    try:
        results = files.read_results(args.results)
        gate = pd.read_csv(args.gate) if args.gate else None
        limits = pd.read_csv(args.limits)
        jobs = pd.read_csv(args.jobs) if args.jobs else None
        text = build(args.verdict, args.system, limits, results, args.baseline, gate, jobs)
        files.atomic_write(args.output, text)
    except InputError as e:
        print(f"validate_report: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
