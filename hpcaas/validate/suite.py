"""The validation suite's run (ramble-workspaces/validate, application node-validation): which
nodes it takes, the one function that runs it, and what its results files say besides FOMs
(each node's inventory, the reasons a tool failed, the BLAS kernel it picked).

`run_suite` is the only place that starts the run: the project's orchestrator (hpcaas/run:
render, Spack, Ramble setup/on/analyze, the results CSV in the run's folder), with the run's
variables set in Ramble's command-line scope.
"""

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from analysis.errors import InputError
from hpcaas import systems
from hpcaas.paths import CONFIGS

STUDY = "validate"
APPLICATION = "node-validation"
RESULTS_FILE = "suite.txt"
# A section of the results file and the lines of one tool in it.
SECTION = re.compile(r"^== (node|pair|all) (\S+) ==$")
TOOL_LINE = re.compile(r"^([a-z_]+)\| ?(.*)$")


@dataclass
class SuiteRun:
    results: Path  # the tidy results CSV
    workspace: Path  # the Ramble workspace the experiments ran in
    folder: Path  # the run's own folder (runs/<system>/<scale>/validate/<stamp>/): the report goes there


def scheduler(system: str) -> str:
    return systems.value(systems.load_system(CONFIGS / system), "scheduler") or "local"


def available_nodes(env=None) -> list:
    """The Slurm nodes that can take a job (not down, drained or failing), by name."""
    proc = subprocess.run(["sinfo", "-h", "-N", "-o", "%N %t"], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise InputError("sinfo", "(scheduler)", f"an answering Slurm ({proc.stderr.strip() or 'no output'})")
    bad = ("down", "drain", "fail", "maint", "unk", "boot", "futr", "inval", "plnd", "npc", "pow")
    names = []
    for line in proc.stdout.splitlines():
        name, state = line.split()[:2]
        if not any(state.startswith(b) for b in bad) and name not in names:
            names.append(name)
    return names


def node_count(system: str, nodes: str, env=None) -> int:
    """How many nodes NODES asks for: `all` (every node Slurm can give; the one node of a system
    without a scheduler) or a count."""
    if scheduler(system) != "slurm":
        if nodes not in ("all", "1"):
            raise InputError("command line", "NODES", f"all or 1: {system} has no scheduler to give more nodes")
        return 1
    have = len(available_nodes(env))
    if nodes == "all":
        if not have:
            raise InputError("sinfo", "NODES", "at least one node up in Slurm (sinfo lists none)")
        return have
    if not nodes.isdigit() or not 1 <= int(nodes) <= have:
        raise InputError("command line", "NODES", f"all or a count from 1 to {have} (the nodes Slurm can give)")
    return int(nodes)


def run_suite(system: str, set_vars: dict, nodes: int, scale: str = "paper") -> SuiteRun:
    """Run the suite on `nodes` nodes of `system` at a scale with these Ramble variables (the
    project's orchestrator, hpcaas run: they shape the job scripts, never the experiments' names);
    the run's results CSV (written even when experiments failed), workspace and folder. Raises
    RuntimeError when the run produced no results."""
    from hpcaas.run import tools
    from hpcaas.run.study import Run

    variables = {**set_vars, "n_nodes": str(nodes)}
    try:
        outcome = Run(STUDY, system, scale, variables)()
    except tools.ToolError as err:
        raise RuntimeError(f"the suite on {system} did not run: {err}") from None
    if outcome.results is None or not Path(outcome.results).is_file():
        raise RuntimeError(f"the suite on {system} produced no results ({outcome.run}/run.log says why)")
    return SuiteRun(Path(outcome.results), outcome.place.workspace, Path(outcome.run))


def results_files(workspace: Path, results) -> dict:
    """{repeat: results file} of the experiments in `results` (the run's CSV): the workspace
    keeps the folders of earlier runs' repeats too."""
    out = {}
    for name in sorted(set(results["experiment"].astype(str))):
        app, workload, experiment = name.split(".", 2)
        path = workspace / "experiments" / app / workload / experiment / RESULTS_FILE
        if path.is_file() and re.search(r"\.[0-9]+$", experiment):
            out[int(experiment.rsplit(".", 1)[1])] = path
    return out


def read_results_file(path: Path) -> dict:
    """{section ('node n1'): {'inventory': {key: value}, 'failed': {tool: reason}, 'blas kernel': name}}
    of one repeat's results file."""
    sections, current = {}, None
    for line in path.read_text(errors="replace").splitlines():
        match = SECTION.match(line)
        if match:
            current = sections.setdefault(f"{match[1]} {match[2]}", {"inventory": {}, "failed": {}})
            continue
        tool = TOOL_LINE.match(line)
        if current is None or not tool:
            continue
        name, text = tool[1], tool[2]
        if name == "inventory" and ": " in text:
            key, value = text.split(": ", 1)
            current["inventory"][key] = value.strip()
        elif name == "status" and " FAILED: " in text:
            which, reason = text.split(" FAILED: ", 1)
            current["failed"][which] = reason
        elif name in ("hpl", "hpcc") and text.startswith("Core: "):
            current["inventory"].setdefault("blas kernel", text.removeprefix("Core: ").strip())
    return sections
