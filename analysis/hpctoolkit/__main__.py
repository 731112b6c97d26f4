"""python -m analysis.hpctoolkit DATABASE [-o OUT.csv] [--top N]: per-function CPU time of an
HPCToolkit database, largest exclusive time first, and the share of time spent in MPI."""

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENV_PYTHON = ROOT / ".venv-hpctoolkit" / "bin" / "python"
REEXEC = "HPCAAS_HPCTOOLKIT_REEXEC"  # set once we run under the venv: never loop


def ensure_hatchet(argv):
    """Return if hatchet imports here; else make .venv-hpctoolkit and re-run under it."""
    try:
        import hatchet  # noqa: F401
        return
    except ImportError:
        if os.environ.get(REEXEC):
            sys.exit(f"analysis.hpctoolkit: hatchet does not import in {VENV_PYTHON.parent.parent}; "
                     "remove that folder and run again")
    # venv.sh's progress goes to stderr so stdout stays the table.
    if subprocess.run([str(ROOT / "analysis/hpctoolkit/venv.sh")], stdout=sys.stderr).returncode:
        sys.exit("analysis.hpctoolkit: could not make .venv-hpctoolkit (see above)")
    env = {**os.environ, REEXEC: "1",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    os.execve(VENV_PYTHON, [str(VENV_PYTHON), "-m", "analysis.hpctoolkit", *argv], env)


def main(argv):
    parser = argparse.ArgumentParser(prog="python -m analysis.hpctoolkit", description=__doc__)
    parser.add_argument("database", help="HPCToolkit database directory: meta.db, profile.db, cct.db "
                        "(hpcprof >= 2022.10) or experiment.xml, *.metric-db (hpcprof-mpi <= 2022.05)")
    parser.add_argument("-o", "--output", help="write the whole table to this CSV")
    parser.add_argument("--top", type=int, default=20, help="rows to print (default 20)")
    args = parser.parse_args(argv)
    ensure_hatchet(argv)

    from analysis.hpctoolkit import reader

    try:
        gf, scale = reader.read(args.database)
    except reader.ReaderError as e:  # bad input: one line, exit 2, as hpcaas-analyze does
        print(f"analysis.hpctoolkit: {e}", file=sys.stderr)
        sys.exit(2)
    table = reader.function_table(gf, scale)
    size = reader.shape(gf)
    total = table["exclusive_s"].sum()
    print(f"{args.database}: {size['rows']} rows, {size['ranks']} ranks x {size['threads']} threads; "
          "times are CPU seconds summed over ranks and threads")
    # The console shows module only; the CSV also has each function's source file.
    shown = table.head(args.top).drop(columns="file")
    print(shown.to_string(index=False, formatters={
        "inclusive_s": "{:.6f}".format, "exclusive_s": "{:.6f}".format, "share_pct": "{:.2f}".format}))
    print(f"MPI: {reader.mpi_share_pct(table):.2f}% of {total:.6f} s (MPI calls and everything below them)")
    if args.output:
        table.to_csv(args.output, index=False)
        print(f"wrote {len(table)} functions to {args.output}")


if __name__ == "__main__":
    main(sys.argv[1:])
