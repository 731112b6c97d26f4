"""A study's analysis that needs some systems' results ({systems: [...], run: [...]}: ICACC'16
Fig. 2, NPB times normalised to the 10GbE cloud's at 32 ranks) runs when the results hold them,
and otherwise the report says what it needs, without failing the study's report."""

import pandas as pd
import pytest
import yaml

from analysis.errors import InputError
from hpcaas import studies

STUDY = "npb-classC"


def scoped(doc):
    return next(entry for entry in doc["analyses"] if isinstance(entry, dict))


def results(doc, systems, path):
    """Times of two kernels at 32 and 64 ranks on each system, over the system's paper fabric."""
    rows = [
        dict(
            experiment=f"npb.{kernel}.{system}-{ranks}",
            system=system,
            application="npb",
            workload=kernel,
            fabric=doc["software"]["paper"][system]["fabric"][0],
            ranks=ranks,
            metric="Time",
            value=base * (i + 1) * (1 if ranks == 32 else 0.6),
            unit="s",
            status="SUCCESS",
        )
        for i, system in enumerate(systems)
        for kernel, base in (("cg", 100.0), ("ep", 10.0))
        for ranks in (32, 64)
    ]
    pd.DataFrame(rows).to_csv(path, index=False)


def section(report, cmd):
    return report.split(f"## hpcaas-analyze {' '.join(cmd)}\n\n")[1].split("\n## ")[0]


def test_the_figure_runs_with_the_systems_it_needs(tmp_path):
    doc = studies.load(STUDY)
    entry = scoped(doc)
    results(doc, doc["paper_system"], tmp_path / "results.csv")
    assert studies.report(STUDY, str(tmp_path / "results.csv"), str(tmp_path)) == 0
    text = section((tmp_path / "report.md").read_text(), entry["run"])
    reference = [line for line in text.splitlines() if line.startswith(f"| {entry['systems'][0]} |")]
    assert reference and all(line.split("|")[-2].strip() in ("1", "0.6") for line in reference), text


def test_without_them_the_report_says_what_it_needs(tmp_path):
    doc = studies.load(STUDY)
    entry = scoped(doc)
    others = [s for s in doc["paper_system"] if s not in entry["systems"]]
    results(doc, others, tmp_path / "results.csv")
    assert studies.report(STUDY, str(tmp_path / "results.csv"), str(tmp_path)) == 0
    text = section((tmp_path / "report.md").read_text(), entry["run"])
    assert text.startswith(f"Needs results of {', '.join(entry['systems'])}; these ran on {', '.join(sorted(others))}.")


def test_an_unknown_system_is_named_by_its_place(tmp_path, monkeypatch):
    doc = yaml.safe_load(studies.study_file(STUDY).read_text())
    i = next(i for i, entry in enumerate(doc["analyses"]) if isinstance(entry, dict))
    doc["analyses"][i]["systems"] = ["no-such-system"]
    (tmp_path / STUDY).mkdir()
    (tmp_path / STUDY / "study.yaml").write_text(yaml.safe_dump(doc))
    monkeypatch.setattr(studies, "WORKSPACES", tmp_path)
    with pytest.raises(InputError) as err:
        studies.load(STUDY)
    assert f"analyses.{i}.systems" in str(err.value) and "no-such-system" in str(err.value)
