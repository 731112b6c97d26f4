"""Units that convert into each other, so a metric printed partly in s and partly in ms (the
SC'23 Monte Carlo table) is one metric, and a price per hour meets a time in seconds."""

import numpy as np
import pandas as pd

from analysis.errors import InputError

# Each family maps a unit, as Ramble FOMs and the papers spell it (compared lower-case, without
# spaces), to its size in the family's base unit.
_FAMILIES = {
    "time": {
        "ns": 1e-9,
        "nsec": 1e-9,
        "us": 1e-6,
        "usec": 1e-6,
        "µs": 1e-6,
        "microseconds": 1e-6,
        "ms": 1e-3,
        "msec": 1e-3,
        "milliseconds": 1e-3,
        "s": 1.0,
        "sec": 1.0,
        "secs": 1.0,
        "second": 1.0,
        "seconds": 1.0,
        "min": 60.0,
        "mins": 60.0,
        "minutes": 60.0,
        "h": 3600.0,
        "hr": 3600.0,
        "hour": 3600.0,
        "hours": 3600.0,
        "day": 86400.0,
        "days": 86400.0,
    },
    "bandwidth": {
        "b/s": 1.0,
        "kb/s": 1e3,
        "mb/s": 1e6,
        "gb/s": 1e9,
        "tb/s": 1e12,
        "kib/s": 2.0**10,
        "mib/s": 2.0**20,
        "gib/s": 2.0**30,
        "gbytes/s": 1e9,
        "mbytes/s": 1e6,
    },
    "flops": {
        "flops": 1.0,
        "flop/s": 1.0,
        "mflops": 1e6,
        "mflop/s": 1e6,
        "gflops": 1e9,
        "gflop/s": 1e9,
        "tflops": 1e12,
        "tflop/s": 1e12,
        "pflops": 1e15,
        "pflop/s": 1e15,
    },
}
_LOOKUP = {unit: (family, size) for family, sizes in _FAMILIES.items() for unit, size in sizes.items()}


def _key(unit) -> str:
    return str(unit).strip().replace(" ", "").lower()


def family(unit):
    """'time', 'bandwidth', 'flops' or None for a unit that converts to nothing else."""
    return _LOOKUP.get(_key(unit), (None, None))[0]


def factor(unit_from, unit_to) -> float:
    """How many unit_to make one unit_from (ms -> s: 0.001); ValueError if they do not convert."""
    fam_a, size_a = _LOOKUP.get(_key(unit_from), (None, None))
    fam_b, size_b = _LOOKUP.get(_key(unit_to), (None, None))
    if _key(unit_from) == _key(unit_to):
        return 1.0
    if fam_a is None or fam_a != fam_b:
        raise ValueError(f"{unit_from} does not convert to {unit_to}")
    return size_a / size_b


def to_base(values: pd.Series, unit, base_unit) -> pd.Series:
    """values (in unit) expressed in base_unit, e.g. seconds to hours."""
    return values * factor(unit, base_unit)


def harmonise(df: pd.DataFrame, file, metric_col="metric") -> pd.DataFrame:
    """One unit per metric: values in a minority unit are converted to the metric's most common
    unit (ties: the first seen). Units that do not convert are bad input: the numbers would not
    be comparable."""
    if df["unit"].nunique(dropna=False) <= 1:  # the usual case, told without a string per row
        return df
    units = df["unit"].astype(str)
    if units.nunique() <= 1:
        return df
    out = df.copy()
    out["unit"] = units
    for metric, rows in out.groupby(metric_col, observed=True, sort=False)["unit"]:
        counts = rows.value_counts(sort=False)
        if len(counts) <= 1:
            continue
        target = counts.index[int(np.argmax(counts.to_numpy()))]
        for unit in counts.index:
            if unit == target:
                continue
            try:
                scale = factor(unit, target)
            except ValueError:
                raise InputError(
                    file,
                    "unit",
                    f"one unit per metric, or units that convert; " f"metric '{metric}' has '{target}' and '{unit}'",
                ) from None
            mask = (out[metric_col] == metric) & (out["unit"] == unit)
            out.loc[mask, "value"] = out.loc[mask, "value"] * scale
            out.loc[mask, "unit"] = target
    return out
