"""The paper's conclusions (study.yaml `conclusions:`, hpcaas/conclusions.py) test the paper's own
claims: each one that the paper's published numbers can decide holds on those numbers (mapped to
our names as the study's `published` entry says), a bound the paper does not state is labelled as
ours, and a claim about systems or data no run here gives says what it needs."""

from pathlib import Path

import pytest
import yaml
from testkit import ROOT

from analysis.errors import InputError
from hpcaas import conclusions, studies

STUDIES = sorted(
    p.parent.name
    for p in (ROOT / "ramble-workspaces").glob("*/study.yaml")
    if "conclusions" in yaml.safe_load(p.read_text())
)


def in_our_names(pub):
    """The study's published table as results: our names, the paper's numbers."""
    reference = studies.reference_in_our_names(pub)
    reference["metric"] = reference["metric"].astype(str).replace(pub.get("metrics", {}))
    return reference.assign(status="SUCCESS")


@pytest.mark.parametrize("study", STUDIES)
def test_each_claim_the_papers_numbers_decide_holds_on_them(study):
    doc = studies.load(study)
    decided = []
    for _, pub in studies._published(doc):
        if "from" in pub:  # a table the report derives (cost): not a measurement
            continue
        numbers = in_our_names(pub)
        for i, row in enumerate(doc["conclusions"]):
            status, measured = conclusions.evaluate(numbers, row)
            if status in (conclusions.HOLDS, conclusions.FAILS):
                decided.append((i, pub["reference"], status, measured))
    wrong = [d for d in decided if d[2] != conclusions.HOLDS]
    assert not wrong, f"{study}: claims that fail on the paper's own numbers: {wrong}"


def test_the_papers_numbers_decide_claims_of_every_kind():
    """So the test above cannot pass by deciding nothing: ratios (with bounds of ours and of the
    paper), best, worst, order, speedup and scaling are each decided on some paper's numbers."""
    kinds = set()
    for study in STUDIES:
        doc = studies.load(study)
        for _, pub in studies._published(doc):
            if "from" not in pub:
                numbers = in_our_names(pub)
                for row in doc["conclusions"]:
                    if conclusions.evaluate(numbers, row)[0] == conclusions.HOLDS:
                        kinds.add(next(iter(row["check"])))
    assert kinds >= {"ratio", "best", "worst", "order", "speedup", "scaling"}, kinds


def test_a_claim_needing_other_systems_is_not_comparable_here():
    doc = studies.load("gromacs-md-benchmarks")
    row = next(r for r in doc["conclusions"] if "IRUS17" in r["claim"])
    status, measured = conclusions.evaluate(in_our_names(doc["published"]), row)
    assert status == conclusions.NOT_COMPARABLE_HERE == "not comparable here"
    assert measured.startswith("needs IRUS17's MEM and RIB results")


def study_with(tmp_path, monkeypatch, study, change):
    """STUDY's file with one conclusion changed, loaded from tmp_path: the InputError it raises."""
    doc = yaml.safe_load(studies.study_file(study).read_text())
    change(doc["conclusions"])
    (tmp_path / study).mkdir()
    (tmp_path / study / "study.yaml").write_text(yaml.safe_dump(doc))
    monkeypatch.setattr(studies, "WORKSPACES", Path(tmp_path))
    with pytest.raises(InputError) as err:
        studies.load(study)
    return str(err.value)


def test_a_bound_without_its_source_is_refused(tmp_path, monkeypatch):
    def unlabel(rows):
        del rows[0]["threshold"]

    # openradioss' first claim: Cray-mpich 1.7x faster at 14 nodes, checked at >= 1.5 (ours).
    err = study_with(tmp_path, monkeypatch, "openradioss-mpi-fabric-fs", unlabel)
    assert "conclusions.0.threshold" in err and "{ours:" in err


def test_a_label_on_a_plain_comparison_is_refused(tmp_path, monkeypatch):
    def label(rows):
        rows[3]["threshold"] = {"ours": "none needed"}  # 'OpenMPI is lower': at_least 1 alone

    err = study_with(tmp_path, monkeypatch, "openradioss-mpi-fabric-fs", label)
    assert "conclusions.3.threshold" in err and "only with a bound" in err


def test_scaling_names_the_group_that_speeds_up_most(tmp_path):
    """Table 6's own columns 1-4: cray-mpich and Open MPI speed up 4.1x and 2.6x from 1 to 14
    nodes on NFSv4, 6.7x and 4.0x on Lustre: Lustre scales better, by either MPI."""
    doc = studies.load("openradioss-mpi-fabric-fs")
    row = next(r for r in doc["conclusions"] if "scaling" in r["check"] and "lustre" in r["claim"])
    numbers = in_our_names(doc["published"])
    status, measured = conclusions.evaluate(numbers, row)
    assert status == conclusions.HOLDS and measured.startswith("lustre 5.02x, nfs4 3.2x")
    flipped = {**row, "check": {"scaling": {**row["check"]["scaling"], "best": "nfs4"}}}
    assert conclusions.evaluate(numbers, flipped)[0] == conclusions.FAILS
