"""The commands of hpcaas/run/ (make run, reproduce, dry-run, concretize, catalog)."""

from analysis.errors import InputError
from hpcaas import render
from hpcaas.run import checks


def _study_args(p, scale=True):
    p.add_argument("study", help="a folder of ramble-workspaces/")
    p.add_argument("system", help="a folder of configs/")
    if scale:
        p.add_argument("--scale", default="paper", help="paper (the default) or small")


def _scale(args):
    if args.scale not in render.SCALES:
        raise InputError("SCALE", args.scale, f"one of {', '.join(render.SCALES)}")


def cmd_run(args) -> int:
    from hpcaas.run import finish
    from hpcaas.run.study import Run

    _scale(args)
    sets = checks.parse_sets(args.set)
    return finish(Run(args.study, args.system, args.scale, sets, args.profile)())


def cmd_reproduce(args) -> int:
    from hpcaas.run import reproduce

    _scale(args)
    return reproduce.reproduce(args.study, args.system, args.scale, args.profile)


def cmd_dry_run(args) -> int:
    from hpcaas.run import dryrun

    _scale(args)
    print(dryrun.generate(args.study, args.system, args.scale))
    return 0


def register(sub):
    from hpcaas.run import concretize

    p = sub.add_parser("run", help="run a study on a system; results in runs/<system>/<scale>/<study>/")
    _study_args(p)
    p.add_argument("--set", default="", help="'name=value;...': Ramble variables for this run only")
    p.add_argument("--profile", choices=render.PROFILERS, help="run every MPI executable under this profiler")
    p.set_defaults(func=cmd_run)
    p = sub.add_parser("reproduce", help="check, run and report a study on a system (make reproduce)")
    _study_args(p)
    p.add_argument("--profile", choices=render.PROFILERS, help="run every MPI executable under this profiler")
    p.set_defaults(func=cmd_reproduce)
    p = sub.add_parser("dry-run", help="generate a study's experiments for a system without building or running")
    _study_args(p)
    p.set_defaults(func=cmd_dry_run)
    concretize.register(sub)
