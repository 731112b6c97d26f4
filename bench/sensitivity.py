"""The validation gates' sensitivity, measured on this machine's Slurm cluster (make slurm-up):
`make bench SENSITIVITY=1` (python -m bench --only sensitivity).

One baseline run, then UNCHANGED runs of make validate on the unchanged machine, then one run
per graded regression injected on the last node only (FAULTS: a co-runner taking 10, 25 and
50 % of its cores, OpenBLAS's generic kernels, a process streaming memory, MPI over TCP instead
of shared memory). Every run is make validate itself (hpcaas.validate, SCALE=small: 3 repeats)
against the baseline, so each gate (limits, peers, baseline) gives its verdicts as a user gets
them. Reported per gate: its false alarms (runs of the unchanged machine in which it FAILed any
node's part) and UNSTABLE verdicts there; per regression, the loss it caused on the faulty node
(its HPL, DGEMM and STREAM means against the other nodes') and which gates FAILed the faulty
node, and whether any FAILed a healthy one. Each run's tables stay in runs/bench/sensitivity/
(a run already there is not made again), the table goes to runs/bench/sensitivity.md."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd

from analysis import files
from bench import record
from bench.record import Figure
from hpcaas.paths import ROOT
from hpcaas.validate import judge

SYSTEM = "local-slurm"
UNCHANGED = 20
FAULTS = ["corunner10", "corunner25", "corunner50", "slowblas", "membw", "tcp"]
GATES = ("limits", "peers", "baseline")
LOSS = {"HPL": "HPL GFlops", "DGEMM": "StarDGEMM_Gflops", "STREAM": "Triad top rate"}
OUT = record.CSV.parent / "sensitivity"


def validate(name: str, *args) -> Path:
    """One make validate (SCALE=small) kept as OUT/name/ (checks.csv, nodes.csv, report.md, the
    results CSV); a run already kept is not made again."""
    folder = OUT / name
    if (folder / "done.json").is_file():
        return folder
    proc = subprocess.run(
        [sys.executable, "-m", "hpcaas.validate", SYSTEM, "--scale", "small", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    folder.mkdir(parents=True, exist_ok=True)
    # make validate names the run's folder in its report line (a run without one wrote nothing).
    said = [line.split(": ", 1)[1] for line in proc.stdout.splitlines() if line.startswith("[hpcaas] report: ")]
    results = Path(said[-1]).parent if said else None
    for file in ("checks.csv", "nodes.csv", "report.md", "results.csv"):
        if results and (results / file).is_file():
            shutil.copyfile(results / file, folder / file)
    (folder / "log.txt").write_text(proc.stdout + proc.stderr)
    (folder / "done.json").write_text(json.dumps({"args": list(args), "exit": proc.returncode}) + "\n")
    return folder


def checks_of(folder: Path, baseline: Path) -> pd.DataFrame:
    """The run's checks, judged again from its results with the judge of this tree (a bench
    resumed after a change of the rule counts every run by the same rule)."""
    return judge.judge(SYSTEM, files.read_results(str(folder / "results.csv")), files.read_results(str(baseline)))


def flagged(checks: pd.DataFrame, verdict: str) -> dict:
    """{gate: {node: [parts]}} the run's checks gave this verdict, per gate (pair checks count
    for both nodes of the pair)."""
    nodes = sorted({s.split(" ", 1)[1] for s in checks["section"] if s.startswith("node ")})
    out = {g: {} for g in GATES}
    for row in checks[checks["verdict"] == verdict].itertuples():
        if row.gate not in out:
            continue
        members = (
            judge.pair_nodes(row.section, nodes) if row.section.startswith("pair ") else [row.section.split(" ", 1)[1]]
        )
        for node in members:
            out[row.gate].setdefault(node, set()).add(row.part)
    return out


def loss(checks: pd.DataFrame, node: str) -> dict:
    """{HPL, DGEMM, STREAM: % the faulty node's mean is below the other nodes' median}."""
    peers = checks[(checks["gate"] == "peers") & (checks["section"] == f"node {node}")]
    out = {}
    for name, metric in LOSS.items():
        row = peers[peers["metric"] == metric]
        out[name] = float(-row["change_pct"].iloc[0]) if not row.empty else None
    return out


def measure(unchanged: int = UNCHANGED) -> list:
    baseline = OUT / "baseline.csv"
    for attempt in range(1, 4):  # a baseline is refused from a run where a part FAILed
        base = validate(f"baseline-{attempt}", "--write-baseline", "--baseline", str(baseline))
        if baseline.is_file():
            break
    else:
        raise RuntimeError(f"no baseline: make baseline failed three times ({base / 'log.txt'})")
    nodes = sorted({r.node for r in pd.read_csv(base / "nodes.csv").itertuples() if r.node != "all"})
    faulty = nodes[-1]
    # The regressions first, then the unchanged runs (an interrupted bench resumes where it stopped).
    faults = {f: validate(f"fault-{f}", "--baseline", str(baseline), "--fault", f"{faulty}:{f}") for f in FAULTS}
    runs = [validate(f"unchanged-{i:02d}", "--baseline", str(baseline)) for i in range(1, unchanged + 1)]

    missing = [r.name for r in [*faults.values(), *runs] if not (r / "results.csv").is_file()]
    if missing:
        raise RuntimeError(f"runs without results: {', '.join(missing)} (their log.txt in {OUT})")
    faults = {f: checks_of(folder, baseline) for f, folder in faults.items()}
    runs = [checks_of(folder, baseline) for folder in runs]
    text, figures = report(faults, runs, faulty)
    (OUT.parent / "sensitivity.md").write_text(text)
    print(text)
    return figures


def report(faults: dict, runs: list, faulty: str) -> tuple:
    """(the Markdown tables, the false-alarm figures) from the checks of each fault's run
    ({fault: checks}, in FAULTS' order) and of the unchanged runs."""
    rows, figures = [], []
    for gate in GATES:
        false = sum(1 for r in runs if flagged(r, "FAIL")[gate])
        unstable = sum(1 for r in runs if flagged(r, "UNSTABLE")[gate])
        row = {
            "gate": gate,
            "false alarms": f"{false} of {len(runs)}",
            "UNSTABLE (unchanged)": f"{unstable} of {len(runs)}",
        }
        caught = [f for f in FAULTS[:3] if flagged(faults[f], "FAIL")[gate].get(faulty)]
        row["smallest co-runner caught"] = caught[0] if caught else "none"
        for fault in FAULTS:
            got = flagged(faults[fault], "FAIL")[gate]
            parts = ", ".join(sorted(got.get(faulty, []))) or "-"
            healthy = [n for n in got if n != faulty]
            row[fault] = parts + (f" (also {', '.join(healthy)})" if healthy else "")
        rows.append(row)
        figures.append(Figure(f"validate {gate} gate: false alarms in unchanged runs", false, f"of {len(runs)}", 0))
    losses = pd.DataFrame([{"fault": f, **loss(faults[f], faulty)} for f in FAULTS])
    table = pd.DataFrame(rows)
    text = (
        f"# Sensitivity of the validation gates ({SYSTEM}, SCALE=small, faults on {faulty})\n\n"
        "Per gate: FAILs over the unchanged runs (false alarms), and the parts of the faulty node it FAILed "
        "under each injected regression ('also': healthy nodes it FAILed too).\n\n"
        + files.render(table, "markdown")
        + "\n\nLoss each regression caused on the faulty node (% below the other nodes' median; the peers gate's "
        "change):\n\n" + files.render(losses.round(1), "markdown") + "\n"
    )
    return text, figures
