"""A paper study cannot load without its fidelity table, nor with a row scoped to a system the
dry-run check never runs on (tests/studies/test_dry_run.py checks rows on the paper systems)."""

import pytest
import yaml

from analysis.errors import InputError
from hpcaas import fidelity, studies

PAPER_STUDIES = sorted(
    p.parent.name for p in studies.WORKSPACES.glob("*/study.yaml") if "paper_system" in yaml.safe_load(p.read_text())
)


@pytest.mark.parametrize("study", PAPER_STUDIES)
def test_every_paper_study_has_its_fidelity_table(study):
    rows = studies.load(study)["fidelity"]
    assert rows and all(r["parameter"] in fidelity.PARAMETERS for r in rows)


def _broken(tmp_path, monkeypatch, study, change):
    doc = yaml.safe_load(studies.study_file(study).read_text())
    change(doc)
    (tmp_path / study).mkdir()
    (tmp_path / study / "study.yaml").write_text(yaml.safe_dump(doc))
    monkeypatch.setattr(studies, "WORKSPACES", tmp_path)
    with pytest.raises(InputError) as err:
        studies.load(study)
    return str(err.value)


def test_a_paper_study_without_its_table_is_refused(tmp_path, monkeypatch):
    study = PAPER_STUDIES[0]
    err = _broken(tmp_path, monkeypatch, study, lambda doc: doc.pop("fidelity"))
    assert f"{study}/study.yaml: fidelity:" in err, err


def test_a_row_on_another_system_is_named_by_its_place(tmp_path, monkeypatch):
    study = PAPER_STUDIES[0]
    systems = fidelity.paper_systems(studies.load(study))
    err = _broken(tmp_path, monkeypatch, study, lambda doc: doc["fidelity"][0].update(system="local"))
    assert "fidelity.0.system" in err and systems[0] in err, err
