"""hpcaas: the project's commands besides the analysis (hpcaas-analyze).

    hpcaas systems validate|table      the systems of configs/
    hpcaas render STUDY SYSTEM         a study's Ramble workspace for a system and scale
    hpcaas study check|report          what a system lacks to run a study; a study's report
    hpcaas catalog study|table         every application's build and smallest run
    hpcaas environments pairs|stale    the studies' Spack environments and their committed locks
    hpcaas spack-inputs SYSTEM         the hash of a system's Spack inputs
    hpcaas limits SYSTEM RESULTS       a run against the hardware's limits (validation, no baseline)
    hpcaas dry-run-cache key|store|restore   generated dry-run workspaces, kept for identical inputs
    hpcaas run|reproduce STUDY SYSTEM  a study run on a system, under runs/<system>/<scale>/<study>/

Bad input prints one line `<file>: <key>: <expected>` and exits 2.
"""

import argparse
import importlib
import sys

from analysis.errors import InputError
from hpcaas.run.tools import ToolError

# Each command's module, imported only when that command runs (the analysis modules load pandas,
# which a render or a dry-run does not need); --help imports them all.
COMMANDS = {
    "systems": "systems",
    "render": "render",
    "study": "studies",
    "catalog": "catalog",
    "environments": "environments",
    "spack-inputs": "spack_inputs",
    "limits": "limits",
    "dry-run-cache": "dryrun",
    "run": "run",
    "reproduce": "run",
    "dry-run": "run",
    "concretize": "run",
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="hpcaas", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    argv = sys.argv[1:] if argv is None else argv
    wanted = [COMMANDS[argv[0]]] if argv and argv[0] in COMMANDS else list(dict.fromkeys(COMMANDS.values()))
    for name in wanted:
        importlib.import_module(f"hpcaas.{name}").register(sub)
    args = ap.parse_args(argv)
    try:
        return args.func(args)
    except InputError as err:
        print(f"hpcaas {args.command}: {err}", file=sys.stderr)
        return 2
    except ToolError as err:
        print(f"hpcaas {args.command}: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
