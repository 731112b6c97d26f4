"""The study report names the cells that ran with a substitute (issue 13): every fidelity row
with `substitute:` that holds on a system the results ran on, with its value, the reason, and
the experiments it covers; a system that is not one of the study's paper systems gets none.

The results are made from the studies' own dry-run expectations (tests/studies/<study>.yaml:
the experiments each paper system generates), and every expectation is read from the study
file's fidelity table, so a row added, removed or moved to another system changes both."""

from pathlib import Path

import pandas as pd
import pytest
import yaml

from analysis import files
from hpcaas import studies, substitutes

ROOT = Path(__file__).resolve().parents[2]
STUDIES = sorted(
    p.parent.name
    for p in (ROOT / "ramble-workspaces").glob("*/study.yaml")
    if any(r.get("substitute") for r in (yaml.safe_load(p.read_text()) or {}).get("fidelity") or [])
)


def results(study, extra_system=None) -> pd.DataFrame:
    """A results frame with one row per experiment that the study generates on each paper system
    (from its dry-run expectations), plus one experiment on `extra_system` if given."""
    expected = yaml.safe_load((ROOT / "tests/studies" / f"{study}.yaml").read_text())
    rows = []
    for system, want in expected.items():
        for key in sorted({*want.get("scripts", {}), *want.get("experiments", [])}):
            app, workload, name = key.split("/")
            rows.append({"experiment": f"{app}.{workload}.{name}", "system": system, "application": app})
    if extra_system:
        rows.append({"experiment": "x.y.z-local", "system": extra_system, "application": rows[0]["application"]})
    df = pd.DataFrame(rows)
    return df.assign(metric="Time", value=1.0, unit="s", status="SUCCESS")


def expected_rows(doc, df):
    """(system, parameter, value, substitute, application) per substitute row holding on a system
    of the results, straight from the study file."""
    papers = doc["paper_system"] if isinstance(doc["paper_system"], list) else [doc["paper_system"]]
    return [
        (system, row["parameter"], str(row["value"]), row["substitute"].strip(), row.get("application", ""))
        for system in sorted(set(df["system"]))
        if system in papers
        for row in doc["fidelity"]
        if row.get("substitute") and row.get("system") in (None, system)
    ]


def test_some_studies_declare_substitutes():
    assert STUDIES, "no study.yaml has a fidelity row with substitute:"


@pytest.mark.parametrize("study", STUDIES)
def test_every_substitute_row_of_the_systems_run_is_listed_with_its_cells(study):
    doc = studies.load(study)
    df = results(study)
    table = substitutes.table(doc, df)
    got = list(table[["system", "parameter", "value", "substitute", "application"]].itertuples(index=False, name=None))
    want = expected_rows(doc, df)
    assert got == want and want
    rows = {
        (r["parameter"], str(r["value"]), r.get("application", "")): r for r in doc["fidelity"] if r.get("substitute")
    }
    for line in table.itertuples():
        covered = df[df["system"] == line.system]
        if line.application:
            covered = covered[covered["application"] == line.application]
        # A row may hold for some experiments only (its `experiment` regex on the name, e.g. '-intelmpi-').
        pattern = rows[(line.parameter, line.value, line.application)].get("experiment")
        if pattern:
            covered = covered[covered["experiment"].str.split(".", n=2).str[-1].str.contains(pattern, regex=True)]
        assert line.cells == len(covered) > 0
        assert line.experiments == ", ".join(sorted(covered["experiment"]))


@pytest.mark.parametrize("study", STUDIES)
def test_one_paper_system_gets_only_its_rows(study):
    doc = studies.load(study)
    df = results(study)
    system = sorted(set(df["system"]))[-1]
    one = df[df["system"] == system]
    table = substitutes.table(doc, one)
    assert set(table["system"]) <= {system}
    assert len(table) == len(expected_rows(doc, one))


def test_a_system_that_is_not_a_paper_system_gets_no_substitutes():
    study = "osu-latency-bandwidth"
    doc = studies.load(study)
    df = results(study, extra_system="local-slurm")
    assert "local-slurm" not in set(substitutes.table(doc, df)["system"])
    text = substitutes.section(doc, df[df["system"] == "local-slurm"], lambda t: files.render(t, "markdown"))
    assert text.startswith("local-slurm: not a paper system of this study")
    assert "|" not in text


def test_the_study_report_has_the_section(tmp_path):
    """`hpcaas study report` (what make reproduce runs) writes the section into report.md."""
    study = "osu-latency-bandwidth"
    doc = studies.load(study)
    df = results(study, extra_system="local-slurm")
    csv = tmp_path / "results.csv"
    df.to_csv(csv, index=False)
    studies.report(study, str(csv), str(tmp_path))  # the study's analyses may fail on these numbers
    report = (tmp_path / "report.md").read_text()
    section = report.split("## Cells that ran with a substitute\n\n")[1].split("\n## ")[0]
    want = expected_rows(doc, df)
    assert f"{len(want)} fidelity rows ran with a substitute" in section
    assert "local-slurm: not a paper system of this study" in section
    rendered = files.render(substitutes.table(doc, df), "markdown")
    assert rendered in section
    for system, parameter, value, reason, _ in want:
        assert f"| {system} | {parameter} |" in section
        assert value.replace("|", "\\|") in section and reason.replace("|", "\\|").replace("\n", " ") in section
