"""configs/<name>/ from the compute nodes of a cluster, probed one task per node through its
scheduler (scripts/make-system.sh --scheduler slurm: each node wrote DIR/<node>/ with facts.json
of hpcaas/probe.py, target of `spack arch` and spack/ of `spack compiler find` and `spack
external find`).

    python -m hpcaas.probed DIR --name NAME --scheduler slurm [--partition P] [--plugins "..."]

The nodes are compared on everything the description holds; nodes that differ are reported
(node, fact, both values), never averaged: the description is of the largest group of equal
nodes, and says which nodes it leaves out. Every fact cites the node it was probed on
(`probed-<node>: probed on <node>, <date>`).
"""

import argparse
import json
import shutil
import sys
from datetime import date
from pathlib import Path

import yaml

from analysis.errors import InputError
from hpcaas import local, probe
from hpcaas.paths import CONFIGS
from hpcaas.systems import check_system_dir

#: What may differ between two nodes of one system: who they are, not what they are.
IDENTITY = ("node", "hostname", "cpus")


def read_node(folder: Path) -> dict:
    """One probed node: {facts, target, compilers, externals}."""
    facts = json.loads((folder / "facts.json").read_text())
    compilers = yaml.safe_load((folder / "spack/compilers.yaml").read_text()).get("compilers", [])
    packages = yaml.safe_load((folder / "spack/packages.yaml").read_text()).get("packages", {})
    return {
        "node": facts["node"],
        "folder": folder,
        "facts": facts,
        "target": (folder / "target").read_text().strip(),
        "compilers": sorted(c["compiler"]["spec"].replace("@=", "@") for c in compilers),
        "externals": sorted(
            e["spec"].split()[0]
            for conf in packages.values()
            if isinstance(conf, dict)
            for e in conf.get("externals", [])
        ),
    }


def signature(node: dict) -> dict:
    """Everything a system description takes from a node, flat: two nodes with equal
    signatures are the same system."""
    flat = {k: v for k, v in node["facts"].items() if k not in IDENTITY and k != "fabric"}
    flat.update({f"fabric.{k}": v for k, v in node["facts"]["fabric"].items()})
    flat.update(target=node["target"], compilers=node["compilers"], externals=node["externals"])
    return flat


def groups(nodes: list) -> list:
    """The nodes in groups of equal signatures, largest first (ties: by the first node's name)."""
    out = {}
    for node in sorted(nodes, key=lambda n: n["node"]):
        out.setdefault(json.dumps(signature(node), sort_keys=True), []).append(node)
    return sorted(out.values(), key=lambda g: (-len(g), g[0]["node"]))


def differences(described: list, other: list) -> str:
    """One line: how a group of nodes differs from the described ones, fact by fact."""
    mine, theirs = signature(described[0]), signature(other[0])
    names = ", ".join(n["node"] for n in other)
    facts = [
        f"{k} {theirs.get(k)!r} (described: {mine.get(k)!r})" for k in sorted(mine) if mine.get(k) != theirs.get(k)
    ]
    return f"{names} differ from {', '.join(n['node'] for n in described)}: " + "; ".join(facts)


def system_doc(name: str, nodes: list, left_out: list, cluster: str, partition, scheduler: str) -> dict:
    """system.yaml of the described nodes (each fact citing the first of them)."""
    first = nodes[0]
    today = date.today().isoformat()
    src = f"probed-{first['node']}"
    where = f"partition {partition}" if partition else "the default partition"
    sources = {
        f"probed-{n['node']}": f"probed on {n['node']}, {today} (make system SCHEDULER={scheduler}: "
        "hpcaas/probe.py, spack compiler find, spack external find, spack arch)"
        for n in nodes
    }
    sources["scheduler"] = f"the cluster's {scheduler} (sinfo, scontrol show node/config, srun --mpi=list), {today}"
    facts = first["facts"]
    link = probe.interconnect(facts["fabric"])
    same = ", ".join(n["node"] for n in nodes)
    note = f"{same} of {where}, equal in every probed fact"
    if left_out:
        note += "; left out, as they differ: " + ", ".join(n["node"] for g in left_out for n in g)
    return {
        "name": name,
        "description": f"{cluster or name}, {where}: {len(nodes)} node(s) of {facts['model']}, probed through "
        f"{scheduler} on {today}",
        "kind": "on-premises",
        "studies": [],
        "sources": sources,
        "site": local.fact(cluster or name, "scheduler", "the scheduler's ClusterName"),
        "integrator": local.fact("not probed", "scheduler"),
        "nodes": local.fact(len(nodes), "scheduler", note),
        **local.hardware_facts(facts, first["target"], src),
        "memory_bandwidth": {
            "specified_gbs_per_node": local.fact(None, src, "not probed"),
            "measured_gbs_per_node": local.fact(None, src, "make validate measures it"),
        },
        "interconnect": {
            "kind": local.fact(link["kind"], src, f"the interface to the other nodes: {facts['fabric']['iface']}"),
            "name": local.fact(link["name"], src),
            "speed_gbps": local.fact(link["speed_gbps"], src),
            "topology": local.fact(None, src, "not probed"),
        },
        "filesystems": local.fact(facts["filesystems"], src, "the root file system and the project's"),
        "scheduler": local.fact(scheduler, "scheduler"),
        "launcher": {
            "command": local.fact(
                "srun", "scheduler", "srun with the PMI plugin each MPI needs (ramble/variables.yaml)"
            ),
            "binding": local.fact("--cpu-bind=cores", "scheduler"),
        },
    }


def write(folder: Path, name: str, scheduler: str, partition=None, plugins=(), cluster="", configs=CONFIGS) -> list:
    """Write configs/<name>/ from the probed nodes in `folder`; return the report's lines."""
    nodes = [read_node(d) for d in sorted(p for p in folder.iterdir() if (p / "facts.json").is_file())]
    if not nodes:
        sys.exit(f"hpcaas probed: {folder}: no probed node (facts.json) - the probe job wrote nothing")
    described, *left_out = groups(nodes)
    report = [differences(described, g) for g in left_out]
    out = Path(configs) / name
    staging = Path(configs) / f".{name}.new"  # checked under its own name before it replaces out
    shutil.rmtree(staging, ignore_errors=True)
    tmp = staging / name
    tmp.mkdir(parents=True)
    shutil.copytree(described[0]["folder"] / "spack", tmp / "spack")
    header = f"# Generated by `make system SYSTEM={name} SCHEDULER={scheduler}` from its probed nodes.\n"
    local._dump(tmp / "system.yaml", header, system_doc(name, described, left_out, cluster, partition, scheduler))
    packages = yaml.safe_load((tmp / "spack/packages.yaml").read_text())["packages"]
    mpis = [m for m in local.MPI_PACKAGES if packages.get(m, {}).get("externals")]
    fab = described[0]["facts"]["fabric"]
    local.write_slurm_ramble(tmp, header, mpis, plugins, probe.interconnect(fab), fab["iface"])
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    staging.rmdir()
    # What make system writes passes what every system must; a refusal (say, the nodes' only
    # compiler cannot build for their CPU) is raised with the folder in place, to be edited.
    check_system_dir(out)
    return report + [f"configs/{name}: {len(described)} node(s) ({', '.join(n['node'] for n in described)})"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", type=Path, help="the probe's folder: one <node>/ per node")
    ap.add_argument("--name", required=True)
    ap.add_argument("--scheduler", default="slurm")
    ap.add_argument("--partition")
    ap.add_argument("--plugins", default="", help="srun --mpi=list's output")
    ap.add_argument("--cluster", default="")
    ap.add_argument("--configs", type=Path, default=CONFIGS, help="where to write it (default: %(default)s)")
    args = ap.parse_args(argv)
    plugins = [w.strip(",") for w in args.plugins.split() if w.strip(",").isidentifier()]
    try:
        lines = write(args.folder, args.name, args.scheduler, args.partition, plugins, args.cluster, args.configs)
    except InputError as err:
        print(f"hpcaas probed: {args.configs / args.name} written, but refused: {err}", file=sys.stderr)
        return 2
    for line in lines:
        print(f"[hpcaas] {line}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
