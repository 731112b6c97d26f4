"""The report of make validate (analysis/validate_report.py) from a real run's judged tables: the
verdict and the nodes that fell out in its first lines, one line per node and part, a nodes x
parts table and heat map, the injected fault and the machine's load, the inventory with the
rows that differ first, and the sources as footnotes (each once, never repeated per row)."""

import pytest
from test_judge import DATA, RUN, sections_of

from analysis import files, validate_report
from analysis import gate as rule
from hpcaas import limits, systems
from hpcaas.paths import CONFIGS
from hpcaas.validate import inventory, judge


@pytest.fixture
def built():
    run = files.read_results(str(RUN))
    mask = (run["context"] == "node n2") & (run["metric"] == "HPL GFlops")
    run.loc[mask, "value"] = run.loc[mask, "value"] * 0.4  # n2's HPL made slow: it must be named
    checks = judge.judge("local-slurm", run)
    nodes = ["n1", "n2"]
    summary, heat = judge.summary(checks, nodes), judge.heat(checks, nodes)
    found = inventory.collect(sections_of(DATA / "local-slurm-healthy"))
    doc = systems.load_system(CONFIGS / "local-slurm")
    sources = {f"configs/local-slurm/system.yaml: {k}": v for k, v in doc["sources"].items()}
    sources.update(limits.expected_sources("local-slurm", doc))
    info = {
        "system": "local-slurm",
        "verdict": judge.verdict(summary),
        "nodes": nodes,
        "repeats": int(run["repeat"].nunique()),
        "sizes": "HPL N=8448",
        "fault": "slowblas on n2 (OpenBLAS's generic kernels)",
        "load": inventory.load(found, {}),
        "baseline": "none",
        "rule": rule.rule(),
        "limits_rule": "",
    }
    text = validate_report.build(info, summary, heat, checks, inventory.table(found, {"n1": found["n1"]}), sources)
    return text, summary, heat


def test_the_first_lines_name_the_verdict_and_the_bad_node_and_part(built):
    text, summary, _ = built
    lines = text.splitlines()
    assert lines[0] == "# Validation of local-slurm: FAIL"
    assert lines[2].startswith("- **n2: compute FAIL**: HPL GFlops vs peers: ")
    assert not any(line.startswith("- **n1: compute FAIL") for line in lines)
    assert "Fault injected: slowblas on n2" in text and "Machine load: 1-minute load average" in text


def test_one_line_per_node_and_part_and_a_table_of_them(built):
    text, summary, _ = built
    for node in ("n1", "n2"):
        for part, title in validate_report.PART_TITLES.items():
            verdict = summary[(summary["node"] == node) & (summary["part"] == part)]["verdict"].iloc[0]
            assert any(line.startswith(f"- {node} {title}: {verdict}") for line in text.splitlines())
    table = text.split("## Nodes x parts")[1].split("![")[0]
    assert "| node | compute | memory | network | I/O |" in table
    assert "| n2 | **FAIL**" in table


def test_the_heat_map_is_a_figure(built):
    _, summary, heat = built
    png = validate_report.heat_figure(summary, heat, list(judge.PARTS))
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 2000


def test_sources_are_footnotes_given_once(built):
    text, _, _ = built
    notes = text.split("## Sources")[1]
    # The source of local-slurm's clock (R_peak's facts cite it), whichever make system wrote.
    src = systems.load_system(CONFIGS / "local-slurm")["base_clock_ghz"]["source"]
    lines = [line for line in notes.splitlines() if f": {src}: " in line]
    assert len(lines) == 1 and lines[0].startswith("["), notes
    mark = lines[0].split("]")[0] + "]"
    assert text.split("## Sources")[0].count(mark) > 1  # cited by several checks, written once
    assert "None (None)" not in text


def test_the_inventory_shows_differences_first(built):
    text, _, _ = built
    inv = text.split("## Inventory")[1].split("## Every check")[0]
    assert "| key | n1 | n2 | baseline | differs |" in inv
    assert "| kernel |" in inv and "| blas kernel |" in inv
