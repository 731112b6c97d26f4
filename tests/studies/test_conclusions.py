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
    spec = {k: v for k, v in row["check"]["scaling"].items() if k != "best"}
    assert (
        conclusions.evaluate(numbers, {**row, "check": {"scaling": {**spec, "worst": "nfs4"}}})[0] == conclusions.HOLDS
    )
    assert (
        conclusions.evaluate(numbers, {**row, "check": {"scaling": {**spec, "worst": "lustre"}}})[0]
        == conclusions.FAILS
    )


def table11_on_the_papers_numbers(tmp_path, change=None):
    """hpcg-scaling's Table 11 entry (PASC'19: Pearson r of HPCG with R_peak, STREAM, Sendrecv
    latency and bandwidth) derived from the paper's own Tables 9 and 10 as results, beside Table
    11 as printed: {(nodes, metric): agrees_as_printed}."""
    import pandas as pd

    from analysis import files, published

    doc = studies.load("hpcg-scaling")
    entries = [pub for _, pub in studies._published(doc)]
    table11 = next(pub for pub in entries if "table11" in pub["reference"])
    if change:
        table11 = change(table11)
    numbers = pd.concat([in_our_names(pub) for pub in entries if "from" not in pub], ignore_index=True)
    numbers.to_csv(tmp_path / "results.csv", index=False)
    path, why = studies._derived(table11, str(tmp_path / "results.csv"), tmp_path)
    assert why is None, why
    reference = studies.reference_in_our_names(table11, value_decimals=True)
    mapping = {ours: theirs for theirs, ours in table11["metrics"].items()}
    cells = published.published(files.read_results(path), reference, path, table11["reference"], rename=mapping)
    cells = cells[cells["status"] == published.BOTH]
    return {(int(n), m): bool(a) for n, m, a in zip(cells["nodes"], cells["metric"], cells["agrees_as_printed"])}


def test_table11_follows_from_the_papers_own_tables(tmp_path):
    """Each of Table 11's eight correlations, as printed (two decimals), from Tables 1, 6, 9, 10:
    R_peak and STREAM from the systems' facts, Table 6's between-node HPE MPT row of the Apollo 70,
    and at one node the Dell EMC's AVX-512 build (its best)."""
    agrees = table11_on_the_papers_numbers(tmp_path)
    assert len(agrees) == 8 and {n for n, _ in agrees} == {1, 8}
    assert all(agrees.values()), agrees


def test_table11_does_not_follow_from_the_other_choices(tmp_path):
    """So the test above is not vacuous: both Dell EMC builds as two points at one node, or the
    Apollo 70's OpenMPI Sendrecv row, each miss printed cells."""

    def both_builds(pub):
        return {**pub, "from": [a for a in pub["from"] if a != "--best"]}

    def openmpi(pub):
        return {**pub, "from": [a.replace("mpi!=OpenMPI 4.0.0", "mpi!=HPE MPT 2.20") for a in pub["from"]]}

    assert not table11_on_the_papers_numbers(tmp_path, both_builds)[(1, "pearson_r_node_dp_gflops")]
    missed = table11_on_the_papers_numbers(tmp_path, openmpi)
    assert not missed[(1, "pearson_r_mpi_bandwidth")] and not missed[(8, "pearson_r_mpi_bandwidth")]


def test_every_holds_only_where_each_value_of_the_column_holds():
    """ICACC'16 Section 6.1 "Yalla consistently performed better than tcp" (Fig. 1a): checked at
    each message size on its own, so tcp ahead at small messages fails the claim even when Yalla's
    mean bandwidth over the sizes (the large messages) is ahead."""
    import pandas as pd

    doc = studies.load("osu-latency-bandwidth")
    row = next(r for r in doc["conclusions"] if "consistently" in r["claim"])
    assert row["check"]["best"]["every"] == "context"

    def results(tcp_at_8_bytes):
        cells = (("Message Size: 8", 10.0, tcp_at_8_bytes), ("Message Size: 2097152", 6000.0, 2000.0))
        return pd.DataFrame(
            {"system": "nci-openstack-sandybridge-56gbe", "fabric": fabric, "context": size}
            | {"metric": "Bandwidth", "unit": "MB/s", "value": value, "status": "SUCCESS"}
            for size, yalla, tcp in cells
            for fabric, value in (("yalla", yalla), ("tcp", tcp))
        )

    assert conclusions.evaluate(results(5.0), row) == (conclusions.HOLDS, "holds at each of 2 context values")
    status, measured = conclusions.evaluate(results(50.0), row)
    assert status == conclusions.FAILS and "Message Size: 8: best fabric: tcp" in measured
    mean_only = {**row, "check": {"best": {"axis": "fabric", "value": "yalla"}}}
    assert conclusions.evaluate(results(50.0), mean_only)[0] == conclusions.HOLDS


def test_every_is_refused_on_a_two_cell_ratio(tmp_path, monkeypatch):
    def change(rows):
        cells = next(r for r in rows if isinstance(r["check"].get("ratio", {}).get("a"), dict))
        cells["check"]["ratio"]["every"] = "context"

    assert "every" in study_with(tmp_path, monkeypatch, "osu-latency-bandwidth", change)
