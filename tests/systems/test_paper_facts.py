"""A paper system's facts against the paper's own system table (reference/*_table1_*.csv, one row
per printed number): each printed number the table gives for a system is its fact's value, or
the fact's note cites the printed number and says why ours differs (ICE XA's Table 1 prints a
turbo clock, say). The table's systems are named as the studies' `published.systems` name them.
Every other fact a paper system takes from its paper quotes the paper and says where."""

import csv
import functools
import math
import re

import pytest
import yaml
from testkit import ROOT

from hpcaas import systems

# The paper tables' metrics, each as our fact and the factor from the table's unit to the fact's:
# "per processor" columns are per socket, the fact is per node.
PER_SOCKET = "sockets"
FACT_OF = {
    "nodes": ("nodes", 1),
    "sockets": ("sockets", 1),
    "cores_per_socket": ("cores_per_socket", 1),
    "cores_per_processor": ("cores_per_socket", 1),
    "cpu_cores": ("cores_per_socket", 1),  # IJHPCA'19: single-socket nodes
    "processor_clock_speed": ("base_clock_ghz", 1),
    "cpu_frequency": ("base_clock_ghz", 1),
    "dp_flops_per_cycle": ("dp_flops_per_cycle", 1),
    "vector_width": ("vector_width_bits", 1),
    "threads_per_core": ("threads_per_core", 1),
    "memory_per_node": ("memory_per_node_gib", 1),
    "l3_cache_shared": ("last_level_cache_mib", PER_SOCKET),
    "cpu_cache": ("last_level_cache_mib", PER_SOCKET),
    "measured_memory_bandwidth_per_node": ("memory_bandwidth.measured_gbs_per_node", 1),
    "specified_memory_bandwidth_per_processor": ("memory_bandwidth.specified_gbs_per_node", PER_SOCKET),
}
TABLES = sorted((ROOT / "reference").glob("*_table1_*.csv"))


@functools.cache
def labels() -> dict:
    """{reference system label: configs/ folder}, from every study's published.systems."""
    out = {}
    for path in (ROOT / "ramble-workspaces").glob("*/study.yaml"):
        pub = yaml.safe_load(path.read_text()).get("published") or []
        for entry in pub if isinstance(pub, list) else [pub]:
            out.update(entry.get("systems") or {})
    return out


@functools.cache
def load(folder):
    return systems.load_system(ROOT / "configs" / folder)


def fact(doc, dotted):
    for key in dotted.split("."):
        doc = (doc or {}).get(key)
    return doc


@functools.cache
def printed_numbers(table):
    """{(system label, metric): [(value or None, printed cell)]}: a cell printed with options
    ('1, 2 or 4', '64GB /128GB') gives one row per option."""
    out = {}
    for row in csv.DictReader(table.open()):
        if row["metric"] in FACT_OF:
            value = float(row["value"]) if row["value"] else None
            out.setdefault((row["system"], row["metric"]), []).append((value, row["printed"]))
    return out


CASES = [(t, key) for t in TABLES for key in printed_numbers(t)]


def test_the_tables_are_there():
    assert TABLES and CASES


@pytest.mark.parametrize("table,key", CASES, ids=[f"{t.stem.split('_')[0]}:{k[0]}:{k[1]}" for t, k in CASES])
def test_fact_is_the_papers_printed_number(table, key):
    label, metric = key
    folder = labels().get(label)
    assert folder, f"{table.name}: system {label!r} is named by no study's published.systems"
    doc = load(folder)
    name, factor = FACT_OF[metric]
    got = fact(doc, name)
    assert got is not None, f"configs/{folder}/system.yaml: no {name}; {table.name} prints {metric}"
    scale = doc["sockets"]["value"] if factor == PER_SOCKET else factor
    options = printed_numbers(table)[key]
    if all(v is None for v, _ in options):  # withheld ('xxx')
        assert got["value"] is None, f"configs/{folder}/system.yaml: {name} {got['value']}, the paper prints none"
        return
    paper = [v * scale for v, _ in options if v is not None]
    if any(got["value"] is not None and math.isclose(got["value"], p, rel_tol=1e-9) for p in paper):
        return
    note = str(got.get("note", ""))
    cited = [v for v, _ in options if v is not None and f"{v:g}" in note]
    assert cited, (
        f"configs/{folder}/system.yaml: {name} is {got['value']}, {table.name} prints "
        f"{[p for _, p in options]} for {label} (x {scale}): fix the value, or say in its note why it differs"
    )


# A quote of the paper ('a few words') and where it stands.
QUOTE = re.compile(r"'[^']{3,}'")
WHERE = re.compile(r"\b(Table|Section|Fig\.|Figure|slide|Abstract|caption)", re.I)
PAPER_SYSTEMS = sorted(
    p.parent.name for p in (ROOT / "configs").glob("*/system.yaml") if yaml.safe_load(p.read_text()).get("studies")
)


def facts(node, path=""):
    """(dotted path, fact) of every {value, source} mapping below node."""
    if isinstance(node, dict):
        if "value" in node and "source" in node:
            yield path, node
            return
        for key, child in node.items():
            yield from facts(child, f"{path}.{key}" if path else key)


@functools.cache
def checked_by_table() -> set:
    """(folder, fact) pairs whose value test_fact_is_the_papers_printed_number compares."""
    return {
        (labels()[label], FACT_OF[metric][0])
        for t in TABLES
        for label, metric in printed_numbers(t)
        if label in labels()
    }


@pytest.mark.parametrize("folder", PAPER_SYSTEMS)
def test_a_fact_from_the_paper_carries_its_words(folder):
    """A fact whose source cites the system's paper (a `sources` entry naming the paper's key, as
    `studies:` does) quotes the paper and says where, unless the printed-number test checks it; a
    value the paper does not give cites what it came from, or `unpublished` (paper silent)."""
    doc = load(folder)
    cites = {key for key, text in doc["sources"].items() if any(paper in text for paper in doc["studies"])}
    assert cites, f"configs/{folder}/system.yaml: no sources entry names its paper ({', '.join(doc['studies'])})"
    missing = [
        path
        for path, f in facts(doc)
        if f["source"] in cites
        and (folder, path) not in checked_by_table()
        and not (QUOTE.search(str(f.get("note", ""))) and WHERE.search(str(f.get("note", ""))))
    ]
    assert not missing, (
        f"configs/{folder}/system.yaml: {', '.join(missing)} cite the paper without its words: add a note "
        "\"Table 1: 'the printed words'\", or cite the fact's real source (or unpublished: paper silent)"
    )
