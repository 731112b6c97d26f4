"""hpcaas limits: each validation FOM's hardware limit recomputed from every system's facts, the
expected fractions of configs/ each with a source, and the gate's verdicts (PASS, FAIL, unknown)
on a real validation run (tests/validate/data: HPCC on local-slurm, 2 ranks, 5 repeats)."""

import shutil

import pytest
import yaml
from testkit import ROOT

from analysis import files
from hpcaas import limits, systems
from hpcaas.paths import CONFIGS

RUN = ROOT / "tests/validate/data/baseline-local-slurm.csv"
SYSTEMS = systems.load_all()
EXPECTED = sorted(CONFIGS.glob("expected/*.yaml")) + sorted(CONFIGS.glob("*/expected.yaml"))


@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_hpl_limit_of_full_nodes_is_rpeak(name):
    doc = SYSTEMS[name]
    cores = systems.cores_per_node(doc)
    for nodes in (1, 2):
        hpl, unit, how = limits.limits(doc, ranks=cores * nodes, nodes=nodes)["HPL_Tflops"]
        cpu_rpeak = systems.rpeak_per_node_gflops(doc, gpu="none")
        assert unit == "Tflops" and hpl == pytest.approx(cpu_rpeak * nodes / 1000)
        assert how.startswith(f"{cores * nodes} cores x base_clock_ghz = ")


@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_memory_and_network_limits_follow_the_facts_or_are_unknown(name):
    doc = SYSTEMS[name]
    cores = systems.cores_per_node(doc)
    got = limits.limits(doc, ranks=cores, nodes=1)
    bandwidth = doc.get("memory_bandwidth", {}).get("specified_gbs_per_node", {}).get("value")
    assert got["SingleSTREAM_Triad"][0] == bandwidth
    assert got["StarSTREAM_Triad"][0] == (bandwidth / cores if bandwidth else None)
    speed = doc["interconnect"].get("speed_gbps", {}).get("value")
    assert got["MinPingPongBandwidth_GBytes"][0] == (speed / 8 if speed else None)


@pytest.mark.parametrize("file", EXPECTED, ids=[str(f.relative_to(CONFIGS)) for f in EXPECTED])
def test_every_expected_fraction_has_a_source(file):
    doc = yaml.safe_load(file.read_text())
    assert doc["fractions"], f"{file}: no fractions"
    for metric, entry in doc["fractions"].items():
        assert 0 < entry["at_least"] <= 1, f"{file}: fractions.{metric}"
        assert doc["sources"][entry["source"]].strip(), f"{file}: fractions.{metric}.source"


def test_expected_files_cover_every_family_a_system_uses():
    families = {systems.value(doc, "processor.architecture") for doc in SYSTEMS.values()}
    have = {f.stem for f in CONFIGS.glob("expected/*.yaml")}
    assert families - have == set(), "configs/expected/<family>.yaml missing"


@pytest.fixture
def configs(tmp_path, monkeypatch):
    """A copy of local-slurm's facts and expected fractions, to vary them."""
    (tmp_path / "local-slurm").mkdir()
    shutil.copy(CONFIGS / "local-slurm/system.yaml", tmp_path / "local-slurm/system.yaml")
    shutil.copytree(CONFIGS / "schema", tmp_path / "schema")
    monkeypatch.setattr(limits, "CONFIGS", tmp_path)
    return tmp_path


def expect(configs, fractions):
    (configs / "local-slurm/expected.yaml").write_text(
        yaml.safe_dump(
            {
                "sources": {"t": "a test"},
                "fractions": {m: {"at_least": f, "source": "t"} for m, f in fractions.items()},
            }
        )
    )


def test_gate_judges_the_fraction_of_the_limit(configs):
    run = files.read_results(str(RUN))
    hpl = run[(run["metric"] == "HPL_Tflops") & (run["status"] == "SUCCESS")]["value"].astype(float).mean()
    doc = systems.load_system(configs / "local-slurm")
    rpeak = limits.limits(doc, ranks=2, nodes=2)["HPL_Tflops"][0]
    fraction = hpl / rpeak
    expect(configs, {"HPL_Tflops": float(fraction) * 0.9, "StarDGEMM_Gflops": 1.0})
    table = limits.gate("local-slurm", run, RUN).set_index("metric")
    assert table.loc["HPL_Tflops", "fraction"] == pytest.approx(fraction)
    assert table.loc["HPL_Tflops", "verdict"] == limits.PASS
    assert table.loc["StarDGEMM_Gflops", "verdict"] == limits.FAIL  # no core reaches 100 % of its peak
    # local-slurm's facts give no memory bandwidth: unknown, never a guess.
    assert table.loc["StarSTREAM_Triad", "verdict"] == limits.UNKNOWN
    assert table.loc["StarSTREAM_Triad", "limit_from"].startswith("unknown: memory_bandwidth")


def test_a_failed_run_measures_nothing_and_fails_every_limit(configs):
    run = files.read_results(str(RUN)).assign(status="FAILED")
    table = limits.gate("local-slurm", run, RUN)
    known = [
        m for m, (limit, _, _) in limits.limits(systems.load_system(configs / "local-slurm"), 2, 2).items() if limit
    ]
    assert sorted(table["metric"]) == sorted(known) and known
    assert set(table["verdict"]) == {limits.FAIL} and table["measured"].isna().all()


def test_an_expected_fraction_without_a_source_is_named(configs):
    (configs / "local-slurm/expected.yaml").write_text(
        yaml.safe_dump({"sources": {}, "fractions": {"HPL_Tflops": {"at_least": 0.5}}})
    )
    with pytest.raises(Exception, match="fractions.HPL_Tflops"):
        limits.gate("local-slurm", files.read_results(str(RUN)), RUN)
