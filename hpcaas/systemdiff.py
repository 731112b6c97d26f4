"""What differs between two systems, fact by fact: the hardware (target, cores, SMT, NUMA,
memory, clock, caches, GPUs, network and fabric) and the software (compilers, MPIs, fabric
libraries, OS, kernel, scheduler), each from the systems' own files.

    hpcaas systems diff A B [--markdown]

rows(a, b) gives the rows (the report of `make reproduce` opens with markdown(rows(...))): each
{fact, part, a, b, status}, status `same`, `differs` or `unknown` (a fact one side does not give:
neither the same nor a difference).
"""

from pathlib import Path

import yaml

from hpcaas import systems, toolchain
from hpcaas.paths import CONFIGS

HARDWARE, SOFTWARE = "hardware", "software"
#: Spack packages that make up a node's fabric stack, beside the MPIs.
FABRIC_PACKAGES = ("libfabric", "ucx", "rdma-core", "hcoll", "libpsm2", "cray-libsci", "libcxi", "mlnx-ofed")


def _fact(doc: dict, key: str):
    try:
        return systems.value(doc, key)
    except (KeyError, IndexError, TypeError):
        return None


def _number(v, unit=""):
    if v is None:
        return None
    return f"{v:g}{unit}" if isinstance(v, (int, float)) else str(v)


def _gpus(doc):
    if not doc.get("gpus"):
        return "none"
    return ", ".join(f"{g['count']['value']} x {g['model']['value']}" for g in doc["gpus"])


def _network(doc):
    kind, name, speed = (_fact(doc, f"interconnect.{k}") for k in ("kind", "name", "speed_gbps"))
    return f"{kind}: {name}" + (f", {speed:g} Gb/s" if speed else "")


def _externals(folder: Path, names) -> str:
    packages = (yaml.safe_load((folder / "spack/packages.yaml").read_text()) or {}).get("packages", {})
    found = sorted(
        e["spec"].split()[0].replace("@=", "@")
        for name in names
        for e in (packages.get(name) or {}).get("externals", [])
    )
    return ", ".join(found) or "none"


def _os(folder: Path, doc: dict):
    if doc.get("os"):
        return doc["os"]["value"]
    oses = {
        c["compiler"].get("operating_system")
        for c in (yaml.safe_load((folder / "spack/compilers.yaml").read_text()) or {}).get("compilers", [])
    }
    return ", ".join(sorted(o for o in oses if o)) or None


def facts(folder) -> list:
    """[(fact, part, value or None)] of one system, in the order the diff shows them."""
    folder = Path(folder)
    doc = systems.load_system(folder)
    sockets, cores = _fact(doc, "sockets"), _fact(doc, "cores_per_socket")
    _, compilers, default = toolchain.compilers(folder)
    return [
        ("target", HARDWARE, _fact(doc, "processor.target")),
        ("processor", HARDWARE, _fact(doc, "processor.model")),
        ("cores per node", HARDWARE, f"{sockets * cores} ({sockets} x {cores})"),
        ("SMT (threads per core)", HARDWARE, _number(_fact(doc, "threads_per_core"))),
        ("NUMA nodes per node", HARDWARE, _number(_fact(doc, "numa_nodes"))),
        ("memory per node", HARDWARE, _number(_fact(doc, "memory_per_node_gib"), " GiB")),
        ("clock", HARDWARE, _number(_fact(doc, "base_clock_ghz"), " GHz")),
        ("DP FLOP per cycle", HARDWARE, _number(_fact(doc, "dp_flops_per_cycle"))),
        ("L1d cache per core", HARDWARE, _number(_fact(doc, "l1d_cache_kib"), " KiB")),
        ("L2 cache per core", HARDWARE, _number(_fact(doc, "l2_cache_kib"), " KiB")),
        ("last-level cache per node", HARDWARE, _number(_fact(doc, "last_level_cache_mib"), " MiB")),
        ("GPUs", HARDWARE, _gpus(doc)),
        ("network", HARDWARE, _network(doc)),
        ("compilers", SOFTWARE, ", ".join(c if c != default else f"{c} (default)" for c in compilers) or None),
        ("MPIs", SOFTWARE, ", ".join(toolchain.mpis(folder)) or None),
        ("fabric libraries", SOFTWARE, _externals(folder, FABRIC_PACKAGES)),
        ("OS", SOFTWARE, _os(folder, doc)),
        ("kernel", SOFTWARE, _fact(doc, "kernel")),
        ("scheduler", SOFTWARE, _fact(doc, "scheduler") or "none"),
    ]


def rows(a: str, b: str, configs_dir=CONFIGS) -> list:
    """One row per fact: {fact, part, a, b, status} for systems a and b (configs/ folder names)."""
    out = []
    for (fact, part, va), (_, _, vb) in zip(facts(Path(configs_dir) / a), facts(Path(configs_dir) / b)):
        status = "unknown" if va is None or vb is None else "same" if va == vb else "differs"
        out.append({"fact": fact, "part": part, "a": va, "b": vb, "status": status})
    return out


def summary(table: list) -> str:
    """One line: which hardware and software facts differ, or that none does."""
    parts = []
    for part in (HARDWARE, SOFTWARE):
        differ = [r["fact"] for r in table if r["part"] == part and r["status"] == "differs"]
        parts.append(f"{part}: " + (", ".join(differ) if differ else f"no {part} difference"))
    unknown = [r["fact"] for r in table if r["status"] == "unknown"]
    return "; ".join(parts) + (f" (not known on one side: {', '.join(unknown)})" if unknown else "")


def markdown(table: list, a: str, b: str) -> str:
    """The diff as a Markdown table, its summary line first."""
    lines = [f"**{a}** vs **{b}**: {summary(table)}.", "", f"| fact | {a} | {b} | |", "|---|---|---|---|"]
    for r in table:
        mark = {"same": "", "differs": "**differs**", "unknown": "not known"}[r["status"]]
        a, b = ("-" if v is None else v for v in (r["a"], r["b"]))
        lines.append(f"| {r['fact']} | {a} | {b} | {mark} |")
    return "\n".join(lines)


def text(table: list, a: str, b: str) -> str:
    """The diff as an aligned plain-text table (what the command prints)."""
    cells = [("fact", a, b, "")] + [
        (
            r["fact"],
            "-" if r["a"] is None else str(r["a"]),
            "-" if r["b"] is None else str(r["b"]),
            {"same": "", "differs": "differs", "unknown": "not known"}[r["status"]],
        )
        for r in table
    ]
    widths = [max(len(c[i]) for c in cells) for i in range(3)]
    lines = ["  ".join(c[i].ljust(widths[i]) for i in range(3)) + ("  " + c[3] if c[3] else "") for c in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(line.rstrip() for line in lines) + "\n" + summary(table)


def section(ran_on, paper_systems, configs_dir=CONFIGS) -> str:
    """The opening section of a study's report: how each system it ran on differs from each of
    the paper's systems ('' when it ran on the paper's own), so that a 'not comparable'
    conclusion reads against what differs."""
    parts = []
    for mine in sorted(ran_on):
        for paper in paper_systems:
            if mine != paper and (Path(configs_dir) / mine / "system.yaml").is_file():
                parts.append(markdown(rows(paper, mine, configs_dir), paper, mine))
    if not parts:
        return ""
    return "## How this system differs from the paper's\n\n" + "\n\n".join(parts) + "\n"
