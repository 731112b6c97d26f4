"""`make bench [FULL=1]`: measure the speed targets of issues 17 and 32 on this machine, print
every figure against its target and append it to runs/bench/bench.csv (with the date, host,
cores, target and load: the machine is shared, so a figure is only as quiet as its neighbours).

    python -m bench [--full] [--ci] [--sensitivity] [--only rows,dryrun,overhead,clone,test,ci,sensitivity] [--rows N]
                    [--repeats N] [--tests ARGS...]

Fast (a few minutes): the first analysis of 1,000,000 rows in a new process, imports included,
with its peak RSS (rows); make dry-run at 10 and 100 experiments (dryrun); Ramble's overhead on
the smoke study, when make smoke has set it up (overhead). --full adds the dry-run at 1000
experiments, a new clone's make setup && make smoke on a new machine (an empty HPCAAS_CACHE)
and on this warm one, split into setup, Ramble's phases and the experiments' own runs (clone),
and make test's wall time with its slowest tests (test: --tests times scripts/test.sh ARGS
instead); --ci adds .ci/run on a clean clone with an empty cache, then warm (bench/ci.py: an
hour or more); --sensitivity the validation gates' sensitivity table (bench/sensitivity.py:
hours), which every make bench prints as last measured. Figures are reported against the
issues' targets, never asserted: the exit status is 0 unless a measurement could not be made."""

import argparse
import sys
import tempfile
import traceback
from pathlib import Path

from bench import record

PARTS = ("rows", "dryrun", "overhead", "clone", "test", "ci", "sensitivity")


def _measure(part, args, folder: Path) -> list:
    if part == "rows":
        from bench import rows

        return rows.measure(folder, args.rows, args.repeats)
    if part == "dryrun":
        from bench import dryrun

        return dryrun.measure(folder, (10, 100, 1000) if args.full else (10, 100))
    if part == "overhead":
        from bench import overhead

        return overhead.measure()
    if part == "clone":
        from bench import clone

        return clone.measure(record.CSV.parent)
    if part == "test":
        from bench import tests

        return tests.measure(record.CSV.parent, args.tests)
    if part == "sensitivity":
        from bench import sensitivity

        return sensitivity.measure(args.unchanged)
    from bench import ci

    return ci.measure(record.CSV.parent)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    ap.add_argument("--full", action="store_true", help="add the measurements that take minutes")
    ap.add_argument("--ci", action="store_true", help="add .ci/run fresh and warm (an hour or more)")
    ap.add_argument(
        "--sensitivity",
        action="store_true",
        help="add the validation gates' sensitivity on the Slurm cluster (bench/sensitivity.py: hours)",
    )
    ap.add_argument("--unchanged", type=int, default=20, help="unchanged runs for the false alarms (sensitivity)")
    ap.add_argument("--only", help=f"comma-separated parts: {','.join(PARTS)}")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=3, help="runs of the analysis (the median is reported)")
    ap.add_argument("--tests", nargs="+", help="test: time scripts/test.sh with these arguments instead of make test")
    args = ap.parse_args(argv)
    chosen = {"clone": args.full, "test": args.full, "ci": args.ci, "sensitivity": args.sensitivity}
    parts = args.only.split(",") if args.only else [p for p in PARTS if chosen.get(p, True)]
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        ap.error(f"--only: unknown part(s) {', '.join(unknown)}; the parts are {', '.join(PARTS)}")
    where, started, load = record.machine(), record.now(), record.load()
    machine = f"{where['host']} ({where['cores']} cores, {where['target']})"
    print(f"bench on {machine}, load {load:.2f}, {started:%Y-%m-%d %H:%M} UTC")
    failed = []
    for part in parts:
        with tempfile.TemporaryDirectory(prefix=f"hpcaas-bench-{part}-") as tmp:
            try:
                figures = _measure(part, args, Path(tmp))
            except Exception:  # one part failing still leaves the others' figures
                failed.append(part)
                print(f"{part}: not measured:\n{traceback.format_exc()}", file=sys.stderr)
                continue
        for fig in figures:
            print(fig.line(), flush=True)
        record.append(figures, where, started, load)
    print(f"figures appended to {record.CSV.relative_to(record.ROOT)}")
    table = record.CSV.parent / "sensitivity.md"
    if "sensitivity" not in parts:
        # The table takes hours to measure: make bench shows the last one, and says how to renew it.
        print(
            f"validation gates' sensitivity, as last measured ({table.relative_to(record.ROOT)}; "
            "make bench SENSITIVITY=1 measures it again):\n"
            + (table.read_text() if table.is_file() else "not measured yet\n")
        )
    if failed:
        print(f"not measured: {', '.join(failed)} (messages above)", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
