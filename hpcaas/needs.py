"""What a study's experiments ask of a system at a scale, as Ramble expands them there: the nodes
and the cores (ranks x threads) of each experiment. The experiment matrix is the one place these
are written; study.yaml `needs` holds only what the matrix cannot say (GPUs, licensed sources,
system variables the study sweeps)."""

import json
import tempfile
from pathlib import Path

from hpcaas import render

PROGRAM = Path(__file__).parent / "ramble_python" / "resources.py"  # the package's own, wherever the tree is


def _whole(text: str, what: str, experiment: str) -> int:
    try:
        return int(float(text))
    except ValueError:
        from analysis.errors import InputError

        raise InputError(experiment, what, f"a number once Ramble expands it (got {text!r})") from None


def experiments(study: str, system: str, scale: str = "paper") -> dict:
    """{experiment: (nodes, ranks, threads)} of the study rendered for the system at the scale."""
    from hpcaas.run import tools

    with tempfile.TemporaryDirectory() as tmp:
        ws = render.render(study, system, scale, out=Path(tmp) / "ws")
        out = Path(tmp) / "resources.json"
        env = tools.environment(HPCAAS_SYSTEM=system)
        tools.output(["ramble", "-D", ws, "python", PROGRAM, out], env=env)
        found = json.loads(out.read_text())
    return {
        name: tuple(_whole(v[k], k, name) for k in ("n_nodes", "n_ranks", "n_threads")) for name, v in found.items()
    }


def lacks(study: str, system: str, scale: str, nodes, cores_per_node: int) -> list:
    """What the system lacks for the largest of the study's experiments, one sentence each.
    `nodes` None: a cluster of any size."""
    out = []
    found = experiments(study, system, scale)
    if not found:
        return out
    widest = max(found.items(), key=lambda item: item[1][0])
    if nodes is not None and widest[1][0] > nodes:
        out.append(f"{widest[1][0]} nodes for {widest[0]} (configs/{system} has {nodes})")
    for name, (n, ranks, threads) in sorted(found.items(), key=lambda item: -item[1][1] * item[1][2]):
        have = n * cores_per_node  # the nodes it asks for, each with the system's cores
        if ranks * threads > have:
            out.append(
                f"{ranks * threads} cores for {name} ({ranks} ranks x {threads} threads on {n} nodes; "
                f"{n} nodes of {system} have {have})"
            )
            break
    return out
