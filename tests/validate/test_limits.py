"""hpcaas limits: each validation FOM's hardware limit recomputed from every system's facts (the
node's R_peak, the memory bandwidth or the configuration it follows from, the fabric's rate),
`unknown` where the facts say nothing, and the expected fractions of configs/ each with a source."""

import copy

import pytest
import yaml

from hpcaas import limits, systems
from hpcaas.paths import CONFIGS

SYSTEMS = systems.load_all()
EXPECTED = sorted(CONFIGS.glob("expected/*.yaml")) + sorted(CONFIGS.glob("*/expected.yaml"))


def fact(doc, *keys):
    for key in keys:
        doc = (doc or {}).get(key) or {}
    return doc.get("value") if isinstance(doc, dict) else None


@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_compute_limits_are_r_peak(name):
    doc = SYSTEMS[name]
    got = limits.limits(doc)
    rpeak = systems.rpeak_per_node_gflops(doc, gpu="none")
    assert got["HPL GFlops"][0] == pytest.approx(rpeak) and got["HPL GFlops"][1] == "GFLOP/s"
    assert got["HPL_Tflops"][0] == pytest.approx(rpeak / 1000)
    assert got["StarDGEMM_Gflops"][0] == pytest.approx(rpeak / systems.cores_per_node(doc))
    assert got["HPL GFlops"][2].startswith(f"{systems.cores_per_node(doc)} cores x base_clock_ghz ")


@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_memory_and_network_limits_follow_the_facts_or_are_unknown(name):
    doc = SYSTEMS[name]
    got = limits.limits(doc)
    specified = fact(doc, "memory_bandwidth", "specified_gbs_per_node")
    channels = fact(doc, "memory_bandwidth", "channels_per_socket")
    mts = fact(doc, "memory_bandwidth", "transfer_rate_mts")
    want = specified or (systems.value(doc, "sockets") * channels * mts * 8 / 1000 if channels and mts else None)
    assert got["Triad top rate"][0] == (pytest.approx(want * 1000) if want else None)
    assert got["StarSTREAM_Triad"][0] == (pytest.approx(want / systems.cores_per_node(doc)) if want else None)
    speed = fact(doc, "interconnect", "speed_gbps")
    assert got["osu_bw 4 MiB"][0] == (pytest.approx(speed * 1000 / 8) if speed else None)
    for metric, (limit, _, how, _) in got.items():
        assert bool(limit) != how.startswith("unknown: "), (metric, how)


def test_memory_bandwidth_from_the_memory_configuration():
    """Where no bandwidth is specified: sockets x channels x MT/s x 8 bytes (ARCHER2's nodes:
    2 x 8 channels of DDR4-3200, 409.6 GB/s)."""
    doc = copy.deepcopy(SYSTEMS["local-slurm"])
    doc["sockets"]["value"] = 2
    doc["memory_bandwidth"]["specified_gbs_per_node"]["value"] = None
    doc["memory_bandwidth"]["channels_per_socket"] = {"value": 8, "source": "lscpu"}
    doc["memory_bandwidth"]["transfer_rate_mts"] = {"value": 3200, "source": "lscpu"}
    limit, unit, how, sources = limits.limits(doc)["Triad top rate"]
    assert (limit, unit) == (pytest.approx(409600), "MB/s")
    assert how == "2 socket(s) x 8 channels x 3200 MT/s x 8 B" and sources == ["up-sh", "lscpu"]
    doc["memory_bandwidth"]["specified_gbs_per_node"]["value"] = 300
    assert limits.limits(doc)["Triad top rate"][0] == pytest.approx(300000)


def test_fraction_of_a_rate_and_of_a_latency():
    assert limits.fraction(50, 100, "HPL GFlops", "GFLOP/s") == 0.5
    assert limits.fraction(4.0, 2.0, "osu_latency 8 B", "us") == 0.5  # twice the nominal latency
    assert limits.fraction(50, None, "HPL GFlops", "GFLOP/s") is None


@pytest.mark.parametrize("file", EXPECTED, ids=[str(f.relative_to(CONFIGS)) for f in EXPECTED])
def test_every_expected_fraction_has_a_dated_source_and_a_limit(file):
    doc = yaml.safe_load(file.read_text())
    known = set(limits.limits(SYSTEMS["local-slurm"]))
    assert doc["fractions"], f"{file}: no fractions"
    for metric, entry in doc["fractions"].items():
        assert metric in known, f"{file}: fractions.{metric} has no limit in hpcaas/limits.py"
        assert 0 < entry["at_least"] <= 1, f"{file}: fractions.{metric}"
        text = doc["sources"][entry["source"]]
        assert any(str(year) in text for year in range(2010, 2031)), f"{file}: sources.{entry['source']}: no date"


def test_expected_files_cover_every_family_a_system_uses():
    families = {systems.value(doc, "processor.architecture") for doc in SYSTEMS.values()}
    have = {f.stem for f in CONFIGS.glob("expected/*.yaml")}
    assert families - have == set(), "configs/expected/<family>.yaml missing"


def test_a_bad_expected_fraction_is_named(tmp_path, monkeypatch):
    (tmp_path / "local-slurm").mkdir()
    (tmp_path / "local-slurm/expected.yaml").write_text(
        yaml.safe_dump({"sources": {}, "fractions": {"HPL GFlops": {"at_least": 0.5}}})
    )
    monkeypatch.setattr(limits, "CONFIGS", tmp_path)
    with pytest.raises(Exception, match=r"local-slurm/expected.yaml: fractions.HPL GFlops"):
        limits.expected("local-slurm", SYSTEMS["local-slurm"])
