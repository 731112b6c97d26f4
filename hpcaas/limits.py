"""What the hardware can do, from a system's facts, and how much of it a healthy system reaches:
the validation gate that needs no baseline of its own.

For each validation FOM (HPCC's), the limit follows from configs/<system>/system.yaml:

    HPL_Tflops                  cores used x base_clock_ghz x dp_flops_per_cycle / 1000
    StarDGEMM_Gflops            one core's peak (every rank runs DGEMM at once; the mean per rank)
    SingleDGEMM_Gflops          one core's peak
    StarSTREAM_Triad            memory_bandwidth.specified_gbs_per_node / ranks per node
    SingleSTREAM_Triad          memory_bandwidth.specified_gbs_per_node
    MinPingPongBandwidth_GBytes interconnect.speed_gbps / 8
    MaxPingPongLatency_usec     interconnect.latency_us (the fabric's nominal one-way latency)

A fact that is null gives `unknown`, never a guess. The expected fraction of each limit comes
from configs/expected/<processor family>.yaml, or configs/<system>/expected.yaml where a system
has its own, each with its source (a published figure, or a first run on known-good hardware,
dated). A FOM PASSes when its mean reaches the expected fraction (for a latency: stays within
limit / fraction).

    hpcaas limits SYSTEM RESULTS_CSV [-o gate.csv] [--figure bars.png]
"""

import math
import sys
from pathlib import Path

import pandas as pd

from analysis import directions, files, frame
from analysis.errors import InputError
from hpcaas import systems
from hpcaas.paths import CONFIGS

PASS, FAIL, UNKNOWN = "PASS", "FAIL", "unknown"
COLUMNS = ["metric", "unit", "measured", "limit", "fraction", "expected", "verdict", "limit_from", "expected_from"]


def _fact(doc, key):
    """(value, 'key = value (source)') of a fact, value None when the system lacks it."""
    node = doc
    for part in key.split("."):
        node = node.get(part, {}) if isinstance(node, dict) else {}
    value = node.get("value") if isinstance(node, dict) else None
    source = doc["sources"].get(node.get("source"), node.get("source")) if isinstance(node, dict) else None
    return value, f"{key} = {value} ({source})"


def limits(doc: dict, ranks: int, nodes: int, threads: int = 1) -> dict:
    """{metric: (limit or None, unit, how it follows from the facts)} for a run of `ranks` ranks
    of `threads` threads on `nodes` nodes."""
    clock, clock_src = _fact(doc, "base_clock_ghz")
    flops, flops_src = _fact(doc, "dp_flops_per_cycle")
    core = clock * flops if clock and flops else None
    cores_used = ranks * threads
    bandwidth, bw_src = _fact(doc, "memory_bandwidth.specified_gbs_per_node")
    speed, speed_src = _fact(doc, "interconnect.speed_gbps")
    latency, lat_src = _fact(doc, "interconnect.latency_us")
    per_node = max(1, math.ceil(ranks / max(nodes, 1)))
    peak = f"{clock_src} x {flops_src}"
    return {
        "HPL_Tflops": (core * cores_used / 1000 if core else None, "Tflops", f"{cores_used} cores x {peak}"),
        "StarDGEMM_Gflops": (core, "Gflops", f"one core: {peak}"),
        "SingleDGEMM_Gflops": (core, "Gflops", f"one core: {peak}"),
        "StarSTREAM_Triad": (
            bandwidth / per_node if bandwidth else None,
            "GB/s",
            f"{bw_src} / {per_node} ranks per node",
        ),
        "SingleSTREAM_Triad": (bandwidth, "GB/s", bw_src),
        "MinPingPongBandwidth_GBytes": (speed / 8 if speed else None, "GB/s", f"{speed_src} / 8 bit"),
        "MaxPingPongLatency_usec": (latency, "usec", lat_src),
    }


def expected(system: str, doc: dict) -> dict:
    """{metric: (fraction, its source)} for the system: its own file, else its processor family's."""
    family = systems.value(doc, "processor.architecture")
    for file in (CONFIGS / system / "expected.yaml", CONFIGS / "expected" / f"{family}.yaml"):
        if file.is_file():
            data = systems.read_yaml(file)
            out = {}
            for metric, entry in (data.get("fractions") or {}).items():
                if (
                    not isinstance(entry, dict)
                    or "at_least" not in entry
                    or entry.get("source") not in data.get("sources", {})
                ):
                    raise InputError(file, f"fractions.{metric}", "{at_least: <0..1>, source: <a key of sources>}")
                out[metric] = (
                    float(entry["at_least"]),
                    f"{file.relative_to(CONFIGS.parent)}: {data['sources'][entry['source']]}",
                )
            return out
    return {}


def gate(system: str, results: pd.DataFrame, results_file) -> pd.DataFrame:
    """Per validation FOM: measured mean, limit, fraction of it, expected fraction, verdict."""
    doc = systems.load_system(CONFIGS / system)
    ok = results[frame.ok(results)]
    # A run whose every experiment failed measured nothing: each FOM with a limit FAILs (a killed
    # run is a failed validation, not bad input); its size is the one the experiments asked for.
    sized = results if ok.empty else ok
    if sized.empty or sized["ranks"].isna().all():
        raise InputError(results_file, "ranks", "experiments with their ranks and nodes (a Ramble results CSV)")
    ranks, nodes = int(sized["ranks"].max()), int(sized["nodes"].max())
    threads = int(sized["threads"].max()) if "threads" in sized and sized["threads"].notna().any() else 1
    want = expected(system, doc)
    rows = []
    for metric, (limit, unit, how) in limits(doc, ranks, nodes, threads).items():
        got = ok[ok["metric"].astype(str) == metric]
        if ok.empty and limit:
            rows.append(
                {
                    "metric": metric,
                    "unit": unit,
                    "measured": None,
                    "limit": limit,
                    "fraction": None,
                    "expected": want.get(metric, (None,))[0],
                    "verdict": FAIL,
                    "limit_from": how,
                    "expected_from": "not measured: no experiment of the run succeeded",
                }
            )
        if got.empty:
            continue
        measured = float(got["value"].mean())
        fraction = expected_fraction = None
        verdict = UNKNOWN
        if limit and metric in want:
            expected_fraction = want[metric][0]
            lower = directions.of(metric, unit) == directions.LOWER
            fraction = limit / measured if lower else measured / limit  # how much of the limit is reached
            verdict = PASS if fraction >= expected_fraction else FAIL
        elif limit:
            lower = directions.of(metric, unit) == directions.LOWER
            fraction = limit / measured if lower else measured / limit
        rows.append(
            {
                "metric": metric,
                "unit": str(got["unit"].iloc[0]),
                "measured": measured,
                "limit": limit,
                "fraction": fraction,
                "expected": expected_fraction,
                "verdict": verdict,
                "limit_from": how if limit else f"unknown: {how}",
                "expected_from": want.get(metric, (None, "no expected fraction for this system or family"))[1],
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)


def figure(table: pd.DataFrame) -> bytes:
    """A bar per FOM: the fraction of its limit reached, beside the expected band."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    known = table[table["fraction"].notna()]
    fig, ax = plt.subplots(figsize=(7, 0.5 + 0.45 * max(len(known), 1)))
    for i, row in enumerate(known.itertuples()):
        color = "tab:green" if row.verdict == PASS else "tab:red" if row.verdict == FAIL else "tab:gray"
        ax.barh(i, row.fraction, color=color)
        if row.expected is not None and not pd.isna(row.expected):
            ax.axvspan(
                row.expected,
                1.0,
                ymin=(i + 0.1) / len(known),
                ymax=(i + 0.9) / len(known),
                alpha=0.15,
                color="tab:blue",
            )
            ax.plot([row.expected, row.expected], [i - 0.4, i + 0.4], color="tab:blue")
        ax.text(min(row.fraction, 1.0) + 0.01, i, f"{row.fraction:.0%}", va="center")
    ax.set_yticks(range(len(known)), known["metric"])
    ax.set_xlim(0, 1.15)
    ax.set_xlabel("fraction of the hardware limit reached (band: expected on healthy hardware)")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    return buf.getvalue()


def register(sub):
    ap = sub.add_parser("limits", help="a run's FOMs against the hardware's limits and the expected fractions")
    ap.add_argument("system")
    ap.add_argument("results_csv")
    ap.add_argument("-o", "--output", help="the gate table as CSV (default: printed as Markdown)")
    ap.add_argument("--figure", help="write the bar chart (PNG) here")

    def run(args):
        table = gate(args.system, files.read_results(args.results_csv), args.results_csv)
        if args.output:
            files.atomic_write(args.output, files.render(table, "csv"))
        else:
            sys.stdout.write(files.render(table, "markdown"))
        if args.figure:
            Path(args.figure).parent.mkdir(parents=True, exist_ok=True)
            files.atomic_write(args.figure, figure(table))
        for row in table.itertuples():
            known = pd.notna(row.limit) and row.limit
            shown = (
                f"{row.fraction:.1%} of {row.limit:.4g} {row.unit}"
                if known and pd.notna(row.fraction)
                else f"limit {row.limit:.4g} {row.unit}"
                if known
                else "limit unknown"
            )
            want = f", expected >= {row.expected:.0%}" if pd.notna(row.expected) and row.expected else ""
            got = f"{row.measured:.4g} {row.unit}" if pd.notna(row.measured) else "not measured"
            print(f"{row.metric}: {got} = {shown}{want}: {row.verdict}", file=sys.stderr)
        return 1 if (table["verdict"] == FAIL).any() else 0

    ap.set_defaults(func=run)
