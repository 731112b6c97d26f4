"""make validate / make baseline: the validation suite on every node of one allocation at once,
each node judged part by part (judge.py), and the report (report.md in the run's folder,
runs/<system>/<scale>/validate/latest/).

    python -m hpcaas.validate SYSTEM [--nodes all|N] [--fault NODE:FAULT] [--baseline CSV]
                                     [--scale paper|small] [--set NAME=VALUE;...] [--write-baseline]

Steps, each a function: bad input is refused before anything runs (the system, NODES, FAULT,
SET, and a baseline of another system, application or suite, naming both); the sizes follow
from the system's facts (sizing.py); the suite runs (suite.run_suite); each node is judged
against the limits, its peers and the baseline; the report and its tables are written.
Without --baseline, baselines/<system>.csv is used when it exists. --write-baseline keeps the
run as the baseline (with each node's inventory beside it), unless an experiment or a tool
failed (a part that ran but FAILed a gate is kept, with a warning naming it).

Exit status: 0 PASS, 1 FAIL, 2 bad input, 3 UNSTABLE (too noisy to tell; nothing FAILed).
"""

import argparse
import os
import re
import shutil
import sys
from pathlib import Path

from analysis import files, frame, validate_report
from analysis import gate as rule
from analysis.errors import InputError
from hpcaas import limits, studies, systems
from hpcaas.paths import CONFIGS, ROOT
from hpcaas.run import checks as run_checks
from hpcaas.validate import inventory, judge, sizing, suite

EXIT = {rule.PASS: 0, rule.FAIL: 1, rule.UNSTABLE: 3}
# The faults suite.sh injects (its `task`), and what each does.
FAULTS = {
    "slowblas": "OpenBLAS forced onto its generic SSE3 kernels (OPENBLAS_CORETYPE=Prescott), as a wrong BLAS build",
    "tcp": "MPI without shared memory between ranks (Open MPI's TCP, MPICH's netmod)",
    "kill": "every tool killed after 3 s",
    "membw": "a process copying 256 MiB back and forth beside each task (memory bandwidth and some CPU)",
    "corunner<percent>": "a process busy for that share of each of the node's cores (e.g. corunner25)",
}


def describe_fault(fault: str) -> str:
    if fault.startswith("corunner"):
        return f"a process busy for {fault.removeprefix('corunner')} % of each of the node's cores"
    return FAULTS[fault]


def parse_fault(text: str) -> tuple:
    """'n2:slowblas' -> ('n2', 'slowblas'); ('', 'none') for no fault."""
    if not text:
        return "", "none"
    node, sep, fault = text.partition(":")
    if not sep or not re.fullmatch(r"[A-Za-z0-9_.-]+", node):
        raise InputError("command line", "FAULT", f"<node>:<fault> (e.g. n2:slowblas); got {text!r}")
    if fault not in FAULTS and not re.fullmatch(r"corunner([1-9][0-9]?)", fault):
        raise InputError("command line", "FAULT", f"a fault among {', '.join(FAULTS)}; got {fault!r}")
    return node, fault


def expected_suite(system: str) -> set:
    """The suite's experiments as gate.suite() names them: <application>.<workload>.<name>."""
    doc = studies.load(suite.STUDY)
    out = set()
    for app, block in doc["ramble"]["applications"].items():
        for workload, w in block["workloads"].items():
            for name in w["experiments"]:
                out.add(f"{app}.{workload}.{name}")
    return out


def read_baseline(path, system: str):
    """The baseline's results, refused unless it is of this system, application and suite."""
    if not Path(path).is_file():
        raise InputError(path, "BASELINE", f"an existing file (make baseline SYSTEM={system} writes one)")
    base = files.read_results(str(path))
    for column in ("system", "application", "experiment", "context"):
        frame.require(base, [column], path, "a results CSV of the validation suite")
    theirs = sorted(set(base["system"].astype(str)) - {""})
    if theirs != [system]:
        raise InputError(
            path, "system", f"a baseline of system {system}; it is of system {', '.join(theirs) or 'none'}"
        )
    apps = sorted(set(base["application"].astype(str)) - {""})
    if apps != [suite.APPLICATION]:
        raise InputError(
            path, "application", f"a baseline of application {suite.APPLICATION}; it is of {', '.join(apps) or 'none'}"
        )
    mine, found = expected_suite(system), rule.suite(base)
    if not mine & found:
        raise InputError(
            path,
            "experiment",
            f"a baseline of the suite {', '.join(sorted(mine))}; it is of {', '.join(sorted(found))}",
        )
    return base


def plan(system: str, fault: tuple, extra: dict, scale: str = "paper") -> dict:
    """The Ramble variables of the run: the sizes, the fault, then SET's."""
    doc = systems.load_system(CONFIGS / system)
    node, name = fault
    return {**sizing.sizes(doc, scale), "fault": name, "faulty_node": node or "none", **extra}


def slurm_env():
    """The environment, with the project's Slurm (make slurm-up) when no other is named."""
    return run_checks.slurm_env(dict(os.environ))


def shares_of(results) -> dict:
    ok = results[frame.ok(results)]
    out = {}
    for metric in sorted(set(ok["metric"].astype(str))):
        if metric.endswith(" CPU share"):
            out[metric.removesuffix(" CPU share")] = [float(v) for v in ok.loc[ok["metric"] == metric, "value"]]
    return out


def report(out, system, run_info, checks, summary, heat, nodes_inventory, base_inventory):
    """The report and its tables in the run's folder `out`."""
    doc = systems.load_system(CONFIGS / system)
    sources = {f"configs/{system}/system.yaml: {k}": " ".join(str(v).split()) for k, v in doc["sources"].items()}
    sources.update(limits.expected_sources(system, doc))
    nodes = list(heat["node"])
    files.atomic_write(out / "heatmap.png", validate_report.heat_figure(summary, heat, list(judge.PARTS)))
    text = validate_report.build(
        run_info, summary, heat, checks, inventory.table(nodes_inventory, base_inventory), sources
    )
    files.atomic_write(out / "report.md", text)
    files.atomic_write(out / "checks.csv", files.render(checks, "csv"))
    files.atomic_write(out / "nodes.csv", files.render(summary, "csv"))
    return nodes


class _Parser(argparse.ArgumentParser):
    """Usage errors are bad input too: one line, exit 2."""

    def error(self, message):
        raise InputError("command line", "usage", f"make validate SYSTEM=<system> ...: {message}")


def main(argv=None) -> int:
    ap = _Parser(prog="make validate", description=__doc__.split("\n")[0])
    ap.add_argument("system")
    ap.add_argument("--nodes", default="all", help="all (every node Slurm can give) or a count")
    ap.add_argument("--fault", default="", help="NODE:FAULT, a fault injected on one node: " + ", ".join(FAULTS))
    ap.add_argument("--baseline", help="the baseline CSV (default baselines/<system>.csv when it exists)")
    ap.add_argument(
        "--scale", default="paper", choices=sorted(sizing.HPL_SECONDS), help="paper: 5 repeats; small: 3, shorter HPL"
    )
    ap.add_argument("--set", default="", help="NAME=VALUE[;NAME=VALUE]: Ramble variables of the suite for this run")
    ap.add_argument("--write-baseline", action="store_true", help="keep this run as the baseline (make baseline)")
    try:
        return _main(ap.parse_args(argv))
    except InputError as err:
        print(f"[hpcaas] error: {err}", file=sys.stderr)
        return 2


def _main(args) -> int:
    system = args.system
    if not (CONFIGS / system / "system.yaml").is_file():
        raise InputError(f"configs/{system}/system.yaml", "SYSTEM", "an existing system (see ls configs/)")
    systems.check_system_dir(CONFIGS / system)
    fault = parse_fault(args.fault)
    extra = run_checks.parse_sets(args.set)
    if args.nodes != "all" and not re.fullmatch(r"[1-9][0-9]*", args.nodes):
        raise InputError("command line", "NODES", f"all or a count of nodes; got {args.nodes!r}")
    default = ROOT / "baselines" / f"{system}.csv"
    baseline_path = Path(args.baseline) if args.baseline else default
    baseline = None
    if args.write_baseline:
        if args.baseline is None:
            baseline_path = default
    elif args.baseline or default.is_file():
        baseline = read_baseline(baseline_path, system)
    env = slurm_env()
    count = suite.node_count(system, args.nodes, env)
    if fault[0] and suite.scheduler(system) == "slurm" and fault[0] not in suite.available_nodes(env):
        raise InputError(
            "command line", "FAULT", f"a node Slurm has ({', '.join(suite.available_nodes(env))}); got {fault[0]!r}"
        )
    variables = plan(system, fault, extra, args.scale)
    sizes = sizing.explain(systems.load_system(CONFIGS / system), variables, args.scale)
    print(f"[hpcaas] validate {system}: {count} node(s) at once; {sizes}")
    try:
        run = suite.run_suite(system, variables, count, args.scale)
    except RuntimeError as err:
        print(f"[hpcaas] error: {err}", file=sys.stderr)
        return 1
    results = files.read_results(str(run.results))
    sections = {r: suite.read_results_file(p) for r, p in suite.results_files(run.workspace, results).items()}
    found = inventory.collect(sections)
    checks = judge.judge(system, results, baseline, inventory.failures(sections))
    nodes = list(found) or sorted({s.split(" ", 1)[1] for s in checks["section"] if s.startswith("node ")})
    summary = judge.summary(checks, nodes)
    verdict = judge.verdict(summary)
    run_info = {
        "system": system,
        "verdict": verdict,
        "nodes": nodes,
        "repeats": len(sections),
        "sizes": sizes,
        "fault": f"{fault[1]} on {fault[0]} ({describe_fault(fault[1])})" if fault[0] else "none",
        "load": inventory.load(found, shares_of(results)),
        "baseline": _baseline_text(baseline_path, baseline),
        "rule": rule.rule(),
        "limits_rule": judge.GATES_TEXT,
    }
    base_inventory = inventory.read(baseline_path) if baseline is not None else {}
    report(run.folder, system, run_info, checks, summary, judge.heat(checks, nodes), found, base_inventory)
    for r in summary.itertuples():
        print(f"{r.node} {validate_report.PART_TITLES[r.part]}: {r.verdict}" + (f": {r.why}" if r.why else ""))
    print(f"[hpcaas] report: {run.folder / 'report.md'}")
    if args.write_baseline:
        return keep_baseline(run, results, checks, summary, found, baseline_path, system, verdict)
    print(verdict)
    return EXIT[verdict]


def keep_baseline(run, results, checks, summary, found, path: Path, system: str, verdict: str) -> int:
    """make baseline: the run and its nodes' inventory kept at `path`. A run where something
    failed measured nothing there: never a baseline. A part that ran but FAILed a gate is what
    the machine does: kept, and said (the peers and the limits still judge it in every later run)."""
    failed = results[results["status"] != frame.SUCCESS]
    broken = checks[(checks["gate"] == "run") & (checks["verdict"] == rule.FAIL)]
    if not failed.empty or not broken.empty:
        why = "failed experiments" if not failed.empty else "tools that failed"
        print(f"[hpcaas] error: not writing a baseline from a run with {why} ({run.results})", file=sys.stderr)
        print(rule.FAIL)
        return 1
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(run.results, str(path) + ".part")
    Path(str(path) + ".part").replace(path)
    inventory.write(path, found)
    bad = summary[summary["verdict"] == rule.FAIL]
    if not bad.empty:
        parts = ", ".join(f"{r.node} {validate_report.PART_TITLES[r.part]}" for r in bad.itertuples())
        print(f"[hpcaas] warning: the baseline keeps parts that FAIL here: {parts} (the report says why)")
    print(f"[hpcaas] baseline: {path} ({verdict}); next: make validate SYSTEM={system}")
    print(verdict)
    return 0


def _baseline_text(path, baseline) -> str:
    if baseline is None:
        return "none (make baseline writes one); judged against the limits and the other nodes only"
    stamps = sorted(set(baseline.get("timestamp", []).astype(str)) - {"", "nan"})
    commits = sorted(set(baseline.get("project_commit", []).astype(str)) - {"", "nan"})
    when = f", run {stamps[0]}" if stamps else ""
    return f"`{path}`{when}" + (f", project commit {commits[0][:12]}" if commits else "")


if __name__ == "__main__":
    sys.exit(main())
