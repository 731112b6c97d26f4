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
