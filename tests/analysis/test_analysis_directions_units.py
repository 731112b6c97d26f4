"""Which way is better, and which units convert: the small tables every command relies on."""

import pandas as pd
import pytest

from analysis import directions, units
from analysis.directions import HIGHER, LOWER
from analysis.errors import InputError


@pytest.mark.parametrize(
    "metric, unit, expected",
    [
        ("walltime", "s", LOWER),
        ("Benchmark wall time per step", "s", LOWER),
        ("MaxPingPongLatency_usec", "usec", LOWER),
        ("mean_test_time", "ms", LOWER),
        ("Time per step", "ms", LOWER),
        ("Elapsed", "days", LOWER),
        ("Benchmark days per nanosecond", "days/ns", LOWER),
        ("Seconds per nanosecond", "s/ns", LOWER),
        ("performance", "ns/day", HIGHER),
        ("Nanoseconds per day", "ns/day", HIGHER),
        ("StarSTREAM_Triad", "GB/s", HIGHER),
        ("bandwidth", "MB/s", HIGHER),
        ("HPL_Tflops", "Tflops", HIGHER),
        ("hpcg_performance", "GFlop/s", HIGHER),
        ("MPIRandomAccess_GUPs", "GUP/s", HIGHER),
        ("EP", "Mop/s", HIGHER),
        ("OpenSBLI", "iterations/s", HIGHER),
        ("MD", "timesteps/s", HIGHER),
        ("x", "steps/s", HIGHER),
        ("parallel_efficiency", "%", HIGHER),
        ("speedup_factor", "x", HIGHER),
        ("perf_per_dollar", "", HIGHER),
        ("worker_threads", "count", None),
        ("Number of CPUs", "", None),
        ("Benchmark memory used", "MB", None),
    ],
)
def test_direction_of_metric_and_unit(metric, unit, expected):
    assert directions.of(metric, unit) == expected


def test_flags_override_and_unknown_is_bad_input():
    assert directions.resolve("widgets", "count", "f.csv", higher=[]) == HIGHER
    assert directions.resolve("widgets", "count", "f.csv", lower=["widgets"]) == LOWER
    assert directions.resolve("walltime", "s", "f.csv", higher=["other"]) == LOWER
    with pytest.raises(InputError) as err:
        directions.resolve("widgets", "count", "f.csv")
    assert (err.value.file, err.value.key) == ("f.csv", "metric")
    assert "--higher-is-better" in err.value.expected


def test_unit_factors():
    assert units.factor("ms", "s") == pytest.approx(1e-3)
    assert units.factor("usec", "us") == 1.0
    assert units.factor("s", "h") == pytest.approx(1 / 3600)
    assert units.factor("GFlop/s", "Tflops") == pytest.approx(1e-3)
    assert units.factor("MB/s", "GB/s") == pytest.approx(1e-3)
    with pytest.raises(ValueError):
        units.factor("s", "GB/s")


def test_harmonise_converts_minority_units_and_refuses_mixtures():
    df = pd.DataFrame({"metric": ["t", "t", "t"], "value": [30.1, 172.0, 182.0], "unit": ["s", "ms", "ms"]})
    out = units.harmonise(df, "f.csv")
    assert list(out["unit"]) == ["ms"] * 3 and list(out["value"]) == pytest.approx([30100.0, 172.0, 182.0])
    bad = df.assign(unit=["s", "GB/s", "GB/s"])
    with pytest.raises(InputError) as err:
        units.harmonise(bad, "f.csv")
    assert err.value.key == "unit" and "'GB/s' and 's'" in err.value.expected
