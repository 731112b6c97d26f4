"""A study's own description (ramble-workspaces/<study>/study.yaml) and what `make reproduce`
does with it: check that a system can run the study before anything runs, then write the
study's report from its results CSV.

    python -m analysis.study check STUDY SYSTEM     exit 0, or 2 with what the system lacks
    python -m analysis.study report STUDY CSV OUTDIR

study.yaml keys (only `question`, `paper` and `needs` are required):
    question: the question the study answers
    paper: the publication and table or figure it reproduces
    paper_system: the configs/ folder of the paper's system (a list when the paper ran it on several)
    scaled_from: the paper study a scaled-down study stands for
    reference: a reference/*.csv with the published numbers
    needs: {ranks, nodes, gpus, licensed: [mirror files], variables: [system variables swept]}
    analyses: hpcaas-analyze commands run on the results CSV, e.g.
              [table, --metric, MaxPingPongLatency_usec, --rows, mpi]
"""

import argparse
import contextlib
import io
import sys
from pathlib import Path

import yaml

from analysis import cli
from analysis.errors import InputError
from analysis.systems import CONFIGS, ROOT, check_system_dir, value

WORKSPACES = ROOT / "ramble-workspaces"
KEYS = {"question", "paper", "paper_system", "scaled_from", "reference", "needs", "analyses"}
NEEDS = {"ranks", "nodes", "gpus", "licensed", "variables"}


def load(study: str) -> dict:
    file = WORKSPACES / study / "study.yaml"
    if not file.is_file():
        raise InputError(file, "(file)", f"a study description (is '{study}' a folder of ramble-workspaces/?)")
    doc = yaml.safe_load(file.read_text()) or {}
    if not isinstance(doc, dict):
        raise InputError(file, "(top level)", "a mapping of study keys")
    for key in ("question", "paper", "needs"):
        if key not in doc:
            raise InputError(file, key, "present (see analysis/study.py for the keys)")
    unknown = set(doc) - KEYS
    if unknown:
        raise InputError(file, sorted(unknown)[0], f"one of {', '.join(sorted(KEYS))}")
    needs = doc["needs"]
    if not isinstance(needs, dict) or set(needs) - NEEDS:
        raise InputError(file, "needs", f"a mapping with keys among {', '.join(sorted(NEEDS))}")
    for key in ("ranks", "nodes", "gpus"):
        if not isinstance(needs.get(key, 0), int) or needs.get(key, 0) < 0:
            raise InputError(file, f"needs.{key}", "a whole number >= 0")
    for key in ("licensed", "variables"):
        if not isinstance(needs.get(key, []), list):
            raise InputError(file, f"needs.{key}", "a list")
    for i, cmd in enumerate(doc.get("analyses", [])):
        if not (isinstance(cmd, list) and cmd and all(isinstance(a, str) for a in cmd)):
            raise InputError(file, f"analyses.{i}", "a list of hpcaas-analyze arguments, e.g. [table, --metric, M]")
    if doc.get("reference") and not (ROOT / doc["reference"]).is_file():
        raise InputError(file, "reference", f"an existing file ({doc['reference']} is missing)")
    return doc


def missing(doc: dict, system: str) -> list:
    """What `system` lacks to run the study, one sentence each (empty: it can run)."""
    folder = CONFIGS / system
    sys_doc = check_system_dir(folder)
    needs, lacks = doc["needs"], []
    nodes = value(sys_doc, "nodes") if "nodes" in sys_doc else None  # None: a cluster of any size
    cores = value(sys_doc, "sockets") * value(sys_doc, "cores_per_socket")
    want_nodes = needs.get("nodes", 1)
    if nodes is not None and want_nodes > nodes:
        lacks.append(f"{want_nodes} nodes (configs/{system} has {nodes})")
    capacity = (nodes if nodes is not None else want_nodes) * cores
    if needs.get("ranks", 1) > capacity:
        lacks.append(f"{needs['ranks']} cores, one per rank ({capacity} on {system})")
    gpus = sum(value(g, "count") for g in sys_doc.get("gpus", []))
    if needs.get("gpus", 0) > gpus:
        lacks.append(f"{needs['gpus']} GPUs per node ({gpus} on {system})")
    for name in needs.get("licensed", []):
        if not list((ROOT / "mirror").rglob(name)):
            lacks.append(f"the licensed source {name}: download it from its vendor and put it in mirror/ "
                         "(Spack then finds it by checksum)")
    variables = yaml.safe_load((folder / "ramble/variables.yaml").read_text())["variables"]
    for name in needs.get("variables", []):
        if name not in variables:
            lacks.append(f"the Ramble variable '{name}' the study sweeps (configs/{system}/ramble/variables.yaml)")
    return lacks


def report(study: str, csv: str, outdir: str) -> int:
    """Each analysis of study.yaml, as Markdown, into OUTDIR/report.md; the published numbers
    beside ours (ratio per cell) when the study has a reference."""
    doc = load(study)
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    commands = [list(c) for c in doc.get("analyses", [])]
    if doc.get("reference"):
        commands.append(["published", "--reference", str(ROOT / doc["reference"])])
    sections = [f"# {study}\n\n{doc['question']}\n\nReproduces: {doc['paper']}"
                + (f" (scaled down from {doc['scaled_from']})" if doc.get("scaled_from") else "") + "\n"]
    status = 0
    for cmd in commands:
        argv = [cmd[0], csv, *cmd[1:], "--format", "markdown"]
        buf, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
            rc = cli.main(argv)
        text = buf.getvalue() if rc == 0 else f"failed (exit {rc}): {err.getvalue().strip()}"
        status = status or rc
        sections.append(f"## hpcaas-analyze {' '.join(cmd)}\n\n{text}")
    (out / "report.md").write_text("\n".join(sections))
    print(f"report: {out / 'report.md'}")
    return status


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m analysis.study", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("check", help="exit 2 with what SYSTEM lacks to run STUDY")
    p.add_argument("study")
    p.add_argument("system")
    p = sub.add_parser("report", help="the study's analyses of CSV, as OUTDIR/report.md")
    p.add_argument("study")
    p.add_argument("csv")
    p.add_argument("outdir")
    args = ap.parse_args(argv)
    try:
        if args.command == "check":
            lacks = missing(load(args.study), args.system)
            if lacks:
                print(f"{args.study} cannot run on {args.system}; it needs " + "; ".join(lacks), file=sys.stderr)
                return 2
            return 0
        return report(args.study, args.csv, args.outdir)
    except InputError as err:
        print(f"analysis.study: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
