"""`gate`: PASS/FAIL per FOM of a run against a versioned baseline (image validation).

A FOM regresses when it moved in its bad direction by more than the tolerance:
    tolerance = max(floor, sigma x CV)
with CV the run-to-run coefficient of variation of a repeat: the baseline's and the run's in
quadrature, the spread of the difference of two repeats (one side's where the other has a single
repeat; none: the floor alone). A run whose repeats happen to agree closely is still judged with
the baseline's spread: a baseline of 7.9 us latency with repeats from 6.3 to 8.4 us does not
make 8.3 us a regression. A FOM the baseline has but the run lacks,
or that failed, is a FAIL too. FOMs only the run has are NEW; FOMs without a baseline number
are SKIP. The CLI exits 1 when any FOM FAILs."""

import numpy as np
import pandas as pd

from analysis import directions, frame, repeats, units
from analysis.errors import InputError

PASS, FAIL, NEW, SKIP = "PASS", "FAIL", "NEW", "SKIP"
# The tolerance's defaults: 3 CVs, and never below 2 %.
SIGMA, FLOOR = 3.0, 0.02


def rule(sigma=SIGMA, floor=FLOOR) -> str:
    """The tolerance in words, for reports."""
    return f"max({floor * 100:g} %, {sigma:g} x its run-to-run CV, the baseline's and the run's in quadrature)"


def _scale(metric, unit_measured, unit_baseline, file) -> float:
    if not (isinstance(unit_measured, str) and isinstance(unit_baseline, str)):
        return 1.0
    try:
        return units.factor(unit_measured, unit_baseline)
    except ValueError:
        raise InputError(
            file,
            "unit",
            f"the baseline's unit '{unit_baseline}' (or one that converts) " f"for '{metric}'; got '{unit_measured}'",
        ) from None


def gate(
    measured,
    baseline,
    measured_file,
    baseline_file,
    sigma=SIGMA,
    floor=FLOOR,
    metrics=None,
    higher_is_better=None,
    lower_is_better=None,
) -> pd.DataFrame:
    if sigma < 0 or floor < 0:
        raise InputError("command line", "--sigma/--floor", "numbers not below zero")
    # A failed experiment with no FOM to go by has an empty metric: nothing to gate on its own
    # (its FOMs in the baseline come out as missing from the run).
    measured = measured[measured["metric"] != ""]
    baseline = baseline[baseline["metric"] != ""]
    if metrics:
        missing = [m for m in metrics if m not in set(baseline["metric"].astype(str))]
        if missing:
            raise InputError(baseline_file, "metric", f"the gated metrics; '{missing[0]}' is not in the baseline")
        measured = measured[measured["metric"].isin(metrics)]
        baseline = baseline[baseline["metric"].isin(metrics)]
    keys = [d for d in frame.dimensions(baseline) if d in measured.columns]
    frame.check_duplicates(baseline, keys, baseline_file)
    frame.check_duplicates(measured, keys, measured_file)
    columns = keys + ["metric", "unit"]
    base = frame.as_text(repeats.statistics(units.harmonise(baseline, baseline_file), keys), columns)
    run = frame.as_text(repeats.statistics(units.harmonise(measured, measured_file), keys), columns)
    both = base.merge(run, on=keys + ["metric"], how="outer", suffixes=("_b", "_m"), indicator=True)

    unknown = []
    direction = []
    for metric, unit in zip(both["metric"], both["unit_b"].fillna(both["unit_m"])):
        d = directions.override(metric, higher_is_better, lower_is_better) or directions.of(metric, unit)
        if d is None and metric not in unknown:
            unknown.append(metric)
        direction.append(d)
    if unknown:
        raise InputError(
            baseline_file,
            "metric",
            f"a known direction for {', '.join(repr(m) for m in unknown[:5])}: "
            "pass --higher-is-better/--lower-is-better METRIC, or --metric to gate only some FOMs",
        )
    both["direction"] = direction

    both["measured"] = both["mean_m"] * [
        _scale(m, um, ub, measured_file) for m, um, ub in zip(both["metric"], both["unit_m"], both["unit_b"])
    ]
    cv_m, cv_b = both["cv_m"].where(both["n_m"] >= 2), both["cv_b"].where(both["n_b"] >= 2)
    cv = np.sqrt(cv_m.fillna(0) ** 2 + cv_b.fillna(0) ** 2).where(cv_m.notna() | cv_b.notna())
    both["cv_source"] = np.select(
        [cv_m.notna() & cv_b.notna(), cv_m.notna(), cv_b.notna()], ["both", "measured", "baseline"], "floor"
    )
    both["tolerance_pct"] = np.maximum(floor, sigma * cv.abs().fillna(0)) * 100
    change = both["measured"] / both["mean_b"] - 1
    both["change_pct"] = change * 100
    worse = np.where(both["direction"] == directions.LOWER, change, -change) * 100

    only_run = both["_merge"] == "right_only"
    no_base = both["mean_b"].isna()
    no_run = both["measured"].isna()
    both["verdict"] = np.select(
        [only_run, no_base, no_run, worse > both["tolerance_pct"]], [NEW, SKIP, FAIL, FAIL], PASS
    )
    both["reason"] = np.select(
        [only_run, no_base, (both["_merge"] == "left_only"), no_run, worse > both["tolerance_pct"]],
        [
            "not in the baseline",
            "the baseline has no number",
            "missing from the run",
            "failed in the run",
            "regressed beyond the tolerance",
        ],
        "",
    )
    out = both[keys + ["metric"]].copy()
    out["unit"] = both["unit_b"].fillna(both["unit_m"])
    out["direction"] = both["direction"]
    out["baseline"], out["measured"] = both["mean_b"], both["measured"]
    out["n_baseline"] = both["n_b"].fillna(0).astype(int)
    out["n_measured"] = both["n_m"].fillna(0).astype(int)
    for col in ("change_pct", "tolerance_pct", "cv_source", "verdict", "reason"):
        out[col] = both[col]
    order = {FAIL: 0, PASS: 1, NEW: 2, SKIP: 3}
    return out.sort_values("verdict", key=lambda s: s.map(order), kind="stable").reset_index(drop=True)
