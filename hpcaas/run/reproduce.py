"""make reproduce: a study on a system end to end. First what the system lacks for the study at
the scale (nodes, cores, GPUs, licensed sources, swept variables), said before anything runs; then
the run (hpcaas/run/study.py); then the study's report in the run's folder, from this run's
results only: a run that produced none leaves every earlier report as it was."""

import sys

from hpcaas import studies
from hpcaas.run import finish
from hpcaas.run.study import Run


def reproduce(study: str, system: str, scale: str = "paper", profile: str = None) -> int:
    doc = studies.load(study)
    lacks = studies.missing(study, system, scale, doc)
    if lacks:
        hint = ""
        small = "small" in (doc.get("scales") or {})
        if scale != "small" and small and not studies.missing(study, system, "small", doc):
            hint = f"; its small preset runs there: make reproduce STUDY={study} SYSTEM={system} SCALE=small"
        print(f"{study} cannot run on {system}; it needs " + "; ".join(lacks) + hint, file=sys.stderr)
        return 2
    outcome = Run(study, system, scale, profile=profile)()
    report_rc = studies.report(study, str(outcome.results), str(outcome.run))
    rc = finish(outcome, extra=[f"report: {outcome.run / 'report.md'}"])
    # The run's failure wins; a failed report alone still fails the command.
    return rc or report_rc
