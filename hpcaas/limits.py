"""What the hardware can do, from a system's facts, and how much of it healthy hardware reaches:
the validation's judge of a node that needs no baseline.

Each validation FOM's limit follows from configs/<system>/system.yaml, for one node (one pair of
nodes for point-to-point network FOMs):

    HPL GFlops, HPL_Tflops          the node's R_peak: cores x base_clock_ghz x dp_flops_per_cycle
    StarDGEMM_Gflops, SingleDGEMM   one core's peak (every rank runs DGEMM at once)
    Triad top rate, SingleSTREAM    the node's memory bandwidth: memory_bandwidth.specified_gbs_per_node,
                                    else sockets x channels_per_socket x transfer_rate_mts x 8 bytes
    StarSTREAM_Triad                the same over the ranks of a node
    osu_bw 4 MiB, MinPingPongBandwidth   the fabric's nominal rate: interconnect.speed_gbps / 8
    osu_latency 8 B, MaxPingPongLatency  the fabric's nominal one-way latency: interconnect.latency_us

A fact that is null gives `unknown` (never a guess; the node is still compared with its peers).
The expected fraction of each limit comes from configs/<system>/expected.yaml where the system
has its own, else configs/expected/<processor family>.yaml, each with its source (a published
figure, dated; a measured known-good run only where nothing is published). A fraction is of the
limit reached: measured / limit for a rate, limit / measured for a latency.

    hpcaas limits SYSTEM        every FOM's limit, how it follows from the facts, its expected fraction
"""

import sys

import pandas as pd

from analysis import directions, files
from analysis.errors import InputError
from hpcaas import systems
from hpcaas.paths import CONFIGS

COLUMNS = ["metric", "unit", "limit", "how", "expected", "expected_source", "sources"]


def _fact(doc, key):
    """(value, source key) of a fact; value None when the system lacks it or it is null."""
    node = doc
    for part in key.split("."):
        node = node.get(part, {}) if isinstance(node, dict) else {}
    if not isinstance(node, dict):
        return None, None
    return node.get("value"), node.get("source")


def memory_bandwidth(doc) -> tuple:
    """(GB/s of a node or None, how, [source keys]): the specified bandwidth, else the one the
    memory configuration gives."""
    specified, src = _fact(doc, "memory_bandwidth.specified_gbs_per_node")
    if specified:
        return specified, f"memory_bandwidth.specified_gbs_per_node {specified:g} GB/s", [src]
    channels, csrc = _fact(doc, "memory_bandwidth.channels_per_socket")
    mts, msrc = _fact(doc, "memory_bandwidth.transfer_rate_mts")
    sockets, ssrc = _fact(doc, "sockets")
    if channels and mts:
        gbs = sockets * channels * mts * 8 / 1000
        how = f"{sockets} socket(s) x {channels} channels x {mts:g} MT/s x 8 B"
        return gbs, how, [ssrc, csrc, msrc]
    return None, "memory_bandwidth: neither specified_gbs_per_node nor channels_per_socket and transfer_rate_mts", [src]


def limits(doc: dict) -> dict:
    """{metric: (limit or None, unit, how it follows from the facts, [source keys])} for one
    node of the system, its ranks one per core (a pair of nodes for point-to-point FOMs)."""
    cores = systems.cores_per_node(doc)
    clock, clock_src = _fact(doc, "base_clock_ghz")
    flops, flops_src = _fact(doc, "dp_flops_per_cycle")
    core = clock * flops if clock and flops else None
    peak = f"base_clock_ghz {clock:g} x dp_flops_per_cycle {flops:g}" if core else "no base clock or FLOP/cycle"
    peak_src = [clock_src, flops_src]
    bandwidth, bw_how, bw_src = memory_bandwidth(doc)
    speed, speed_src = _fact(doc, "interconnect.speed_gbps")
    latency, lat_src = _fact(doc, "interconnect.latency_us")
    node = core * cores if core else None
    out = {
        "HPL GFlops": (node, "GFLOP/s", f"{cores} cores x {peak}", peak_src),
        "HPL_Tflops": (node / 1000 if node else None, "Tflops", f"{cores} cores x {peak} / 1000", peak_src),
        "StarDGEMM_Gflops": (core, "Gflops", f"one core: {peak}", peak_src),
        "SingleDGEMM_Gflops": (core, "Gflops", f"one core: {peak}", peak_src),
        "Triad top rate": (bandwidth * 1000 if bandwidth else None, "MB/s", bw_how, bw_src),
        "SingleSTREAM_Triad": (bandwidth, "GB/s", bw_how, bw_src),
        "StarSTREAM_Triad": (bandwidth / cores if bandwidth else None, "GB/s", f"{bw_how} / {cores} ranks", bw_src),
        "osu_bw 4 MiB": (
            speed * 1000 / 8 if speed else None,
            "MB/s",
            f"interconnect.speed_gbps {speed} / 8",
            [speed_src],
        ),
        "MinPingPongBandwidth_GBytes": (
            speed / 8 if speed else None,
            "GB/s",
            f"interconnect.speed_gbps {speed} / 8",
            [speed_src],
        ),
        "osu_latency 8 B": (latency, "us", f"interconnect.latency_us {latency}", [lat_src]),
        "MaxPingPongLatency_usec": (latency, "usec", f"interconnect.latency_us {latency}", [lat_src]),
    }
    return {
        m: (v, u, how if v else f"unknown: {how}", list(dict.fromkeys(s for s in src if s)))
        for m, (v, u, how, src) in out.items()
    }


def expected(system: str, doc: dict) -> dict:
    """{metric: (fraction, source text)} for the system: its own file, else its processor family's."""
    family = systems.value(doc, "processor.architecture")
    for file in (CONFIGS / system / "expected.yaml", CONFIGS / "expected" / f"{family}.yaml"):
        if file.is_file():
            data = systems.read_yaml(file)
            out = {}
            for metric, entry in (data.get("fractions") or {}).items():
                if (
                    not isinstance(entry, dict)
                    or not isinstance(entry.get("at_least"), (int, float))
                    or not 0 < entry["at_least"] <= 1
                    or entry.get("source") not in data.get("sources", {})
                ):
                    raise InputError(file, f"fractions.{metric}", "{at_least: <0..1>, source: <a key of sources>}")
                out[metric] = (float(entry["at_least"]), f"{file.relative_to(CONFIGS.parent)}: {entry['source']}")
            return out
    return {}


def expected_sources(system: str, doc: dict) -> dict:
    """{'<file>: <key>': its text} of the expected fractions' sources, for footnotes."""
    family = systems.value(doc, "processor.architecture")
    for file in (CONFIGS / system / "expected.yaml", CONFIGS / "expected" / f"{family}.yaml"):
        if file.is_file():
            data = systems.read_yaml(file)
            rel = file.relative_to(CONFIGS.parent)
            return {f"{rel}: {key}": " ".join(str(text).split()) for key, text in data.get("sources", {}).items()}
    return {}


def fraction(measured, limit, metric, unit):
    """The fraction of the limit a measurement reaches (a latency: limit / measured)."""
    if not limit or measured is None or pd.isna(measured) or measured == 0:
        return None
    return limit / measured if directions.of(metric, unit) == directions.LOWER else measured / limit


def table(system: str) -> pd.DataFrame:
    doc = systems.load_system(CONFIGS / system)
    want = expected(system, doc)
    rows = []
    for metric, (limit, unit, how, sources) in limits(doc).items():
        fraction_, source = want.get(metric, (None, ""))
        rows.append(
            {
                "metric": metric,
                "unit": unit,
                "limit": limit,
                "how": how,
                "expected": fraction_,
                "expected_source": source,
                "sources": ", ".join(sources),
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)


def register(sub):
    ap = sub.add_parser("limits", help="a system's hardware limits of the validation FOMs and their expected fractions")
    ap.add_argument("system")
    ap.add_argument("-o", "--output", help="CSV (default: Markdown on stdout)")

    def run(args):
        out = table(args.system)
        if args.output:
            files.atomic_write(args.output, files.render(out, "csv"))
        else:
            sys.stdout.write(files.render(out, "markdown"))
        return 0

    ap.set_defaults(func=run)
