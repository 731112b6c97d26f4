"""`make bench [FULL=1]`: measure the speed targets of issue 17 on this machine, print every
figure and append it to runs/bench/bench.csv (with the date, host, cores, target and load).

    python -m bench [--full] [--ci] [--only rows,dryrun,overhead,clone,ci] [--rows N] [--repeats N]

Fast (about a minute): the analysis of 1,000,000 rows, make dry-run at 10 and 100 experiments,
Ramble's overhead on the smoke study (when make smoke has set it up). --full adds the dry-run
at 1000 experiments and a fresh clone's make setup && make smoke, cold and warm (minutes); --ci
adds .ci/run on a clean clone with an empty cache, then warm (bench/ci.py: an hour or more).
Figures are reported against the issue's targets, never asserted: the exit status is 0 unless a
measurement could not be made."""

import argparse
import sys
import tempfile
import traceback
from pathlib import Path

from bench import record

PARTS = ("rows", "dryrun", "overhead", "clone", "ci")


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
    from bench import ci

    return ci.measure(record.CSV.parent)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    ap.add_argument("--full", action="store_true", help="add the measurements that take minutes")
    ap.add_argument("--ci", action="store_true", help="add .ci/run fresh and warm (an hour or more)")
    ap.add_argument("--only", help=f"comma-separated parts: {','.join(PARTS)}")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=3, help="runs of the analysis (the median is reported)")
    args = ap.parse_args(argv)
    chosen = {"clone": args.full, "ci": args.ci}
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
    if failed:
        print(f"not measured: {', '.join(failed)} (messages above)", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
