"""Runs: a study, the catalog or a dry-run on a system, kept under the runs root (place.py).

    hpcaas run STUDY SYSTEM [--scale paper|small] [--set 'name=value;...'] [--profile hpctoolkit]
    hpcaas reproduce STUDY SYSTEM [--scale ...]    run, then the study's report beside its results
    hpcaas dry-run STUDY SYSTEM [--scale ...]      the experiments generated, nothing built or run
    hpcaas concretize SYSTEM STUDY | --stale       solve and write environments/<study>/<system>/

Exit status: 0 every experiment succeeded; 1 a run or an experiment failed (its results and log
are in the run's folder); 2 bad input, before anything ran."""

from hpcaas.run.progress import say

#: A summary longer than this many lines goes to the run's summary.md only.
SUMMARY_LINES = 40


def finish(outcome, extra=()) -> int:
    """The few lines a run ends with: the verdict, the failed experiments, where everything is."""
    from analysis import files, summary

    if outcome.results is None:
        return outcome.rc
    text = summary.summary(files.read_results(outcome.results))
    (outcome.run / "summary.md").write_text(text)
    if text.count("\n") <= SUMMARY_LINES:
        print(text, flush=True)
    total = text.split(" experiments:")[0]
    verdict = f"{len(outcome.failed)} FAILED" if outcome.failed else "all SUCCESS"
    say(f"{outcome.place.study} on {outcome.place.system}: {total} experiments, {verdict}")
    for name in outcome.failed[:10]:
        say(f"  FAILED {name} (status_reason in results.csv)")
    say(f"results: {outcome.results}")
    for line in extra:
        say(line)
    say(f"latest run of {outcome.place.study} on {outcome.place.system}: {outcome.place.latest}")
    return outcome.rc


def register(sub):
    from hpcaas.run import cli

    cli.register(sub)
