"""A study that reproduces several of a paper's tables lists each under `published`, and its
report compares our numbers with each table, cell by cell: the IMB study's Tables 2-5 (one
message size per cell, our FOM's context) beside its Table 6. The measured cell is made from
the reference file itself, so the expected ratio is exact."""

import pandas as pd
import pytest
import yaml

from analysis.errors import InputError
from hpcaas import studies
from hpcaas.paths import ROOT

STUDY = "imb-sendrecv-collectives"


def entry(doc, reference):
    return next(pub for _, pub in studies._published(doc) if pub["reference"].endswith(reference))


def test_each_table_gets_its_section_and_a_cell_of_one_size_compares(tmp_path):
    doc = studies.load(STUDY)
    pub = entry(doc, "tables2-5_imb_collectives.csv")
    ref = pd.read_csv(ROOT / pub["reference"]).dropna(subset=["value"])
    cell = ref.iloc[len(ref) // 2]
    system = pub["systems"][cell["system"]]
    size = pub["values"]["context"][str(cell["message_bytes"])]
    common = dict(
        experiment="intel-mpi-benchmarks.collective.x",
        system=system,
        application="intel-mpi-benchmarks",
        mpi=pub["values"]["mpi"][cell["mpi"]],
        variant=cell["variant"],
        nodes=cell["nodes"],
        metric=pub["metrics"]["mean_test_time"],
        unit="usec",
        status="SUCCESS",
    )
    # IMB prints the 0-byte row too: it must not count toward the size's cell.
    rows = [
        dict(common, context=size, value=cell["value"] * 1000),
        dict(common, context="Bytes: 0 (Latency)", value=1.0),
    ]
    pd.DataFrame(rows).to_csv(tmp_path / "results.csv", index=False)
    studies.report(STUDY, str(tmp_path / "results.csv"), str(tmp_path))
    report = (tmp_path / "report.md").read_text()
    for _, each in studies._published(doc):
        assert f"## The paper's numbers beside ours: {each['reference']}\n" in report
    section = report.split(f"beside ours: {pub['reference']}\n")[1].split("\n## ")[0]
    rows = [line for line in section.splitlines() if line.startswith(f"| {system} |")]
    assert len(rows) == 1, section
    cells = [c.strip() for c in rows[0].strip("|").split("|")]
    assert cells[cells.index("mean_test_time") + 1 :][:6] == [
        "ms",
        f"{cell['value']:g}",
        f"{cell['value']:g}",
        "1",
        "True",
        "both",
    ]


def test_a_published_entry_without_its_file_is_named_by_its_place(tmp_path, monkeypatch):
    doc = yaml.safe_load(studies.study_file(STUDY).read_text())
    doc["published"].append({"reference": "reference/none.csv"})
    folder = tmp_path / STUDY
    folder.mkdir()
    (folder / "study.yaml").write_text(yaml.safe_dump(doc))
    monkeypatch.setattr(studies, "WORKSPACES", tmp_path)
    with pytest.raises(InputError) as err:
        studies.load(STUDY)
    assert f"published.{len(doc['published']) - 1}.reference" in str(err.value)


def test_a_derived_table_is_compared_with_the_analysis_that_derives_it(tmp_path):
    """SC'23 Table 3 (performance per dollar, best = 1) beside `hpcaas-analyze cost` of our
    times: given the paper's own Table 2 times, the best node scores 1 as printed, and the
    other the paper's prices' ratio of those times."""
    doc = studies.load("montecarlo-threads")
    table2, table3 = (pub for _, pub in studies._published(doc))
    assert table3["from"][0] == "cost"
    ref = pd.read_csv(ROOT / table2["reference"])
    times = ref[ref["metric"] == "execution_time"]
    names = table2["values"]
    rows = [
        dict(
            experiment=f"montecarlo.qmc.{r.processor}-{r.threads}",
            system=table2["systems"][r.processor],
            application=names["application"][r.application],
            target=names["target"][r.target],
            compiler=r.compiler,
            nodes=1,
            ranks=1,
            threads=r.threads,
            metric=table2["metrics"]["execution_time"],
            value=r.value,
            unit=r.unit,
            status="SUCCESS",
        )
        for r in times.itertuples()
    ]
    pd.DataFrame(rows).to_csv(tmp_path / "results.csv", index=False)
    studies.report("montecarlo-threads", str(tmp_path / "results.csv"), str(tmp_path))
    report = (tmp_path / "report.md").read_text()
    section = report.split(f"beside ours: {table3['reference']}\n")[1].split("\n## ")[0]
    prices = pd.read_csv(ROOT / table3["from"][table3["from"].index("--prices") + 1]).set_index("system")
    cells = {}
    for line in section.splitlines():
        c = [x.strip() for x in line.strip("|").split("|")]
        if c[0] in table2["systems"].values():
            cells[c[0]] = (float(c[5]), float(c[6]))
    published = ref.assign(system=ref["processor"].map(table2["systems"]))
    best = {}
    for system, group in published[published["metric"] == "execution_time"].groupby("system"):
        fastest = group.assign(ms=group["value"] * group["unit"].map({"s": 1000, "ms": 1})).sort_values("ms").iloc[0]
        best[system] = fastest["ms"] * prices.loc[system, "price_per_node_hour"]  # cost of a run
    assert set(cells) == set(best)
    for system, (measured, _) in cells.items():
        assert measured == pytest.approx(min(best.values()) / best[system], abs=5e-6)
    assert sorted(p for _, p in cells.values()) == sorted(
        pd.read_csv(ROOT / table3["reference"]).query("metric == 'performance_per_dollar'")["value"]
    )


def test_a_derived_entry_without_its_column_is_named_by_its_place(tmp_path, monkeypatch):
    doc = yaml.safe_load(studies.study_file("montecarlo-threads").read_text())
    i = next(i for i, pub in enumerate(doc["published"]) if "from" in pub)
    del doc["published"][i]["column"]
    (tmp_path / "montecarlo-threads").mkdir()
    (tmp_path / "montecarlo-threads" / "study.yaml").write_text(yaml.safe_dump(doc))
    monkeypatch.setattr(studies, "WORKSPACES", tmp_path)
    with pytest.raises(InputError) as err:
        studies.load("montecarlo-threads")
    assert f"published.{i}.from" in str(err.value)
