"""python -m analysis.hpctoolkit DATABASE [-o OUT.csv] [--top N]: per-function CPU time of an
HPCToolkit database, largest exclusive time first, and the share of time spent in MPI.
python -m analysis.hpctoolkit --workspace WS -o OUT.csv: the same for every experiment of a Ramble
workspace run with the hpctoolkit modifier (its experiments/*/*/*/hpctoolkit-database), one CSV
with the experiment's name (application.workload.experiment) on each row."""

import argparse
import os
import subprocess
import sys
from pathlib import Path

from hpcaas.paths import ROOT

VENV_PYTHON = ROOT / ".venv-hpctoolkit" / "bin" / "python"
REEXEC = "HPCAAS_HPCTOOLKIT_REEXEC"  # set once we run under the venv: never loop


def ensure_hatchet(argv):
    """Return if hatchet imports here; else make .venv-hpctoolkit and re-run under it."""
    try:
        import hatchet  # noqa: F401

        return
    except ImportError:
        if os.environ.get(REEXEC):
            sys.exit(
                f"analysis.hpctoolkit: hatchet does not import in {VENV_PYTHON.parent.parent}; "
                "remove that folder and run again"
            )
    # venv.sh's progress goes to stderr so stdout stays the table.
    if subprocess.run([str(ROOT / "analysis/hpctoolkit/venv.sh")], stdout=sys.stderr).returncode:
        sys.exit("analysis.hpctoolkit: could not make .venv-hpctoolkit (see above)")
    env = {
        **os.environ,
        REEXEC: "1",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    os.execve(VENV_PYTHON, [str(VENV_PYTHON), "-m", "analysis.hpctoolkit", *argv], env)


def main(argv):
    parser = argparse.ArgumentParser(prog="python -m analysis.hpctoolkit", description=__doc__)
    parser.add_argument(
        "database",
        nargs="?",
        help="HPCToolkit database directory: meta.db, profile.db, cct.db "
        "(hpcprof >= 2022.10) or experiment.xml, *.metric-db (hpcprof-mpi <= 2022.05)",
    )
    parser.add_argument("--workspace", help="every database of this Ramble workspace's experiments")
    parser.add_argument("-o", "--output", help="write the whole table to this CSV")
    parser.add_argument("--top", type=int, default=20, help="rows to print (default 20)")
    args = parser.parse_args(argv)
    if bool(args.database) == bool(args.workspace):
        parser.error("give a DATABASE or --workspace WS")
    ensure_hatchet(argv)

    from analysis.hpctoolkit import reader

    if args.workspace:
        return workspace_table(reader, Path(args.workspace), args.output)

    try:
        gf, scale = reader.read(args.database)
    except reader.ReaderError as e:  # bad input: one line, exit 2, as hpcaas-analyze does
        print(f"analysis.hpctoolkit: {e}", file=sys.stderr)
        sys.exit(2)
    table = reader.function_table(gf, scale)
    size = reader.shape(gf)
    total = table["exclusive_s"].sum()
    print(
        f"{args.database}: {size['rows']} rows, {size['ranks']} ranks x {size['threads']} threads; "
        "times are CPU seconds summed over ranks and threads"
    )
    # The console shows module only; the CSV also has each function's source file.
    shown = table.head(args.top).drop(columns="file")
    print(
        shown.to_string(
            index=False,
            formatters={"inclusive_s": "{:.6f}".format, "exclusive_s": "{:.6f}".format, "share_pct": "{:.2f}".format},
        )
    )
    print(f"MPI: {reader.mpi_share_pct(table):.2f}% of {total:.6f} s (MPI calls and everything below them)")
    if args.output:
        table.to_csv(args.output, index=False)
        print(f"wrote {len(table)} functions to {args.output}")


def workspace_table(reader, workspace: Path, output):
    """One row per (experiment, function), with the experiment's MPI share; exit 1 if none."""
    import pandas as pd

    frames = []
    for db in sorted(workspace.glob("experiments/*/*/*/hpctoolkit-database")):
        app, workload, name = db.parent.relative_to(workspace / "experiments").parts
        table = reader.function_table(*reader.read(db))
        table.insert(0, "experiment", f"{app}.{workload}.{name}")
        table["mpi_share_pct"] = reader.mpi_share_pct(table)
        frames.append(table)
    if not frames:
        sys.exit(f"analysis.hpctoolkit: no hpctoolkit-database under {workspace}/experiments")
    out = pd.concat(frames, ignore_index=True)
    out.to_csv(output or sys.stdout, index=False)
    print(f"{len(frames)} databases, {len(out)} rows" + (f" -> {output}" if output else ""), file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
