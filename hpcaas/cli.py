"""hpcaas: the project's commands besides the analysis (hpcaas-analyze).

    hpcaas systems validate|table      the systems of configs/
    hpcaas render STUDY SYSTEM         a study's Ramble workspace for a system and scale
    hpcaas study check|report          what a system lacks to run a study; a study's report
    hpcaas catalog study|table         every application's build and smallest run
    hpcaas environments pairs|stale    the studies' Spack environments and their committed locks
    hpcaas spack-inputs SYSTEM         the hash of a system's Spack inputs
    hpcaas limits SYSTEM RESULTS       a run against the hardware's limits (validation, no baseline)

Bad input prints one line `<file>: <key>: <expected>` and exits 2.
"""

import argparse
import sys

from analysis.errors import InputError
from hpcaas import catalog, environments, limits, render, spack_inputs, studies, systems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="hpcaas", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    for module in (systems, render, studies, catalog, environments, spack_inputs, limits):
        module.register(sub)
    args = ap.parse_args(argv)
    try:
        return args.func(args)
    except InputError as err:
        print(f"hpcaas {args.command}: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
