"""`gate`: PASS, FAIL or UNSTABLE per FOM of a run against a reference: a versioned baseline
(image validation), and, through `judge`, the hardware's expected fraction and a node's peers
(hpcaas/validate). The rule is written once, here:

1. The tolerance comes from the reference's spread only, never from the judged run's:
       tolerance = min(cap, max(floor, sigma x CV))
   with CV the run-to-run coefficient of variation of the baseline's repeats (of the other
   nodes' repeats for a node judged against its peers; none for a fixed threshold such as the
   expected fraction of a limit). A noisier run cannot widen it.
2. The repeats say how well the two means are known: the run's change against the reference,
   give or take two standard errors of the difference (each side's CV / sqrt(repeats); a single
   repeat is taken as noisy as the reference's repeats, a threshold has none).
3. FAIL when even the favourable end of that interval moved the bad way beyond the tolerance;
   PASS when even the unfavourable end stays within it; otherwise UNSTABLE: the run's repeats
   spread too much to tell (more repeats, or a quieter machine, are needed). So a noisy run
   never PASSes, and a clear regression FAILs however noisy it is.

A FOM the baseline has but the run lacks, or that failed, FAILs. FOMs only the run has are NEW;
FOMs without a baseline number are SKIP. A baseline of another system, application or suite
(experiments) is refused as bad input, naming both. The CLI exits 1 when any FOM FAILs or is
UNSTABLE."""

import math
import re

import numpy as np
import pandas as pd

from analysis import directions, frame, repeats, units
from analysis.errors import InputError

PASS, FAIL, UNSTABLE, NEW, SKIP = "PASS", "FAIL", "UNSTABLE", "NEW", "SKIP"
# The tolerance's defaults: 3 CVs of the reference's repeats, never below 2 % nor above 10 %.
SIGMA, FLOOR, CAP = 3.0, 0.02, 0.10
# How many standard errors of the run's mean the verdict must clear.
CONFIDENCE = 2.0


def rule(sigma=SIGMA, floor=FLOOR, cap=CAP) -> str:
    """The rule in words, for reports."""
    return (
        f"tolerance = min({cap * 100:g} %, max({floor * 100:g} %, {sigma:g} x the reference's run-to-run CV)), "
        "never the judged run's; the run's change, give or take "
        f"{CONFIDENCE:g} standard errors of the difference of the two means, FAILs when even its favourable "
        "end is worse than the tolerance, PASSes when even its unfavourable end is within it, and is UNSTABLE "
        "in between (too noisy to tell)"
    )


def tolerance(cv, n, sigma=SIGMA, floor=FLOOR, cap=CAP) -> float:
    """The tolerance (a fraction) from the reference's CV over n repeats (the floor without two)."""
    spread = abs(cv) if n >= 2 and cv is not None and not math.isnan(cv) else 0.0
    return min(cap, max(floor, sigma * spread))


def judge(values, reference, tol, direction, reference_cv=math.nan, reference_n=0) -> dict:
    """One verdict: `values` (the run's repeats) against `reference` (a number: the mean of
    `reference_n` repeats of CV `reference_cv`, or a fixed threshold) with tolerance `tol` (a
    fraction), `direction` HIGHER or LOWER. Returns verdict, change (signed fraction), worse (the
    bad way), margin (the confidence half-width, a fraction), spread ((max - min) / mean) and
    reason."""
    values = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    if not values or reference is None or math.isnan(reference) or reference == 0:
        raise ValueError("judge needs repeats and a non-zero reference")
    mean = float(np.mean(values))
    change = mean / reference - 1
    worse = -change if direction == directions.HIGHER else change
    known = reference_n >= 2 and not math.isnan(reference_cv)
    # The standard errors of the two means: the run's from its own repeats (a single repeat is
    # taken as noisy as one of the reference's), the reference's from its repeats (none for a
    # threshold). They decide how sure the verdict is, never the tolerance.
    if len(values) >= 2:
        cv = float(np.std(values, ddof=1) / mean) if mean else math.inf
        own = cv / math.sqrt(len(values))
    else:
        own = abs(reference_cv) if known else math.inf
    theirs = abs(reference_cv) / math.sqrt(reference_n) if known else 0.0
    margin = CONFIDENCE * math.hypot(own, theirs)
    spread = (max(values) - min(values)) / mean if mean else math.inf
    if worse - margin > tol:
        verdict, reason = FAIL, f"{worse * 100:.1f} % worse (at least {(worse - margin) * 100:.1f} %)"
    elif worse + margin <= tol:
        verdict, reason = PASS, ""
    else:
        verdict = UNSTABLE
        noisy = (f"repeats spread {spread * 100:.1f} %" if len(values) >= 2 else "one repeat, its spread unknown") + (
            f", the reference's CV {abs(reference_cv) * 100:.1f} %" if known else ""
        )
        reason = (
            f"{worse * 100:+.1f} % ± {margin * 100:.1f} % straddles the {tol * 100:.1f} % tolerance: "
            f"{noisy}; more repeats or a quieter machine needed"
        )
    return {"verdict": verdict, "change": change, "worse": worse, "margin": margin, "spread": spread, "reason": reason}


def suite(df: pd.DataFrame) -> set:
    """The experiments of a results frame as a suite: names with the system and the repeat
    index taken out (`hpcc.sized.validate-{system}-2ranks`)."""
    out = set()
    for name, system in df[["experiment", "system"]].drop_duplicates().itertuples(index=False):
        name = re.sub(r"\.[0-9]+$", "", str(name))
        out.add(re.sub(rf"(?<![\w]){re.escape(str(system))}(?![\w])", "{system}", name) if system else name)
    return out


def check_same_kind(measured, baseline, measured_file, baseline_file):
    """Refuse a baseline of another system, application or suite, naming both sides."""

    def values(df, col):
        return sorted(set(df[col].dropna().astype(str)) - {""}) if col in df.columns else []

    for col, what in (("system", "system"), ("application", "application")):
        mine, theirs = values(measured, col), values(baseline, col)
        if mine and theirs and mine != theirs:
            raise InputError(
                baseline_file,
                col,
                f"a baseline of {what} {', '.join(mine)} (as {measured_file}); it is of {what} {', '.join(theirs)}",
            )
    if {"experiment", "system"} <= set(measured.columns) & set(baseline.columns):
        mine, theirs = suite(measured), suite(baseline)
        if mine and theirs and not mine & theirs:
            raise InputError(
                baseline_file,
                "experiment",
                f"a baseline of the suite {', '.join(sorted(mine))} (as {measured_file}); "
                f"it is of {', '.join(sorted(theirs))}",
            )


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


def _values(df, keys, file) -> pd.DataFrame:
    """keys + metric + unit, the statistics of the repeats and their values (a list)."""
    df = units.harmonise(df, file)
    cols = keys + ["metric"]
    stats = frame.as_text(repeats.statistics(df, keys), cols + ["unit"])
    good = df[frame.ok(df)]
    lists = good["value"].groupby(frame.label(good, cols, sep="\x1f")).apply(list)
    stats["values"] = frame.label(stats, cols, sep="\x1f").map(lists)
    return stats


def gate(
    measured,
    baseline,
    measured_file,
    baseline_file,
    sigma=SIGMA,
    floor=FLOOR,
    cap=CAP,
    metrics=None,
    higher_is_better=None,
    lower_is_better=None,
) -> pd.DataFrame:
    if sigma < 0 or floor < 0 or cap < floor:
        raise InputError("command line", "--sigma/--floor/--cap", "numbers not below zero, the cap not below the floor")
    check_same_kind(measured, baseline, measured_file, baseline_file)
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
    base, run = _values(baseline, keys, baseline_file), _values(measured, keys, measured_file)
    both = base.merge(run, on=keys + ["metric"], how="outer", suffixes=("_b", "_m"), indicator=True)

    unknown, rows = [], []
    for r in both.to_dict("records"):
        unit = r["unit_b"] if isinstance(r["unit_b"], str) else r["unit_m"]
        d = directions.override(r["metric"], higher_is_better, lower_is_better) or directions.of(r["metric"], unit)
        if d is None and r["metric"] not in unknown:
            unknown.append(r["metric"])
        rows.append((r, unit, d))
    if unknown:
        raise InputError(
            baseline_file,
            "metric",
            f"a known direction for {', '.join(repr(m) for m in unknown[:5])}: "
            "pass --higher-is-better/--lower-is-better METRIC, or --metric to gate only some FOMs",
        )

    out = []
    for r, unit, d in rows:
        n_b = 0 if pd.isna(r["n_b"]) else int(r["n_b"])
        n_m = 0 if pd.isna(r["n_m"]) else int(r["n_m"])
        scale = _scale(r["metric"], r["unit_m"], r["unit_b"], measured_file) if n_m else 1.0
        values = [v * scale for v in (r["values_m"] if isinstance(r["values_m"], list) else [])]
        tol = tolerance(r["cv_b"], n_b, sigma, floor, cap)
        row = {k: r[k] for k in keys + ["metric"]}
        row.update(
            unit=unit,
            direction=d,
            baseline=r["mean_b"],
            measured=float(np.mean(values)) if values else math.nan,
            n_baseline=n_b,
            n_measured=n_m,
            baseline_cv_pct=(r["cv_b"] * 100 if n_b >= 2 else math.nan),
            tolerance_pct=tol * 100,
            change_pct=math.nan,
            margin_pct=math.nan,
            spread_pct=math.nan,
        )
        if r["_merge"] == "right_only":
            row.update(verdict=NEW, reason="not in the baseline")
        elif pd.isna(r["mean_b"]):
            row.update(verdict=SKIP, reason="the baseline has no number")
        elif r["_merge"] == "left_only":
            row.update(verdict=FAIL, reason="missing from the run")
        elif not values:
            row.update(verdict=FAIL, reason="failed in the run")
        else:
            j = judge(values, float(r["mean_b"]), tol, d, r["cv_b"] if n_b >= 2 else math.nan, n_b)
            row.update(
                change_pct=j["change"] * 100,
                margin_pct=j["margin"] * 100,
                spread_pct=j["spread"] * 100,
                verdict=j["verdict"],
                reason=j["reason"],
            )
        out.append(row)
    table = pd.DataFrame(out)
    order = {FAIL: 0, UNSTABLE: 1, PASS: 2, NEW: 3, SKIP: 4}
    return table.sort_values("verdict", key=lambda s: s.map(order), kind="stable").reset_index(drop=True)
