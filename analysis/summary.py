"""`summary`: what a study run produced, at a glance (run-study.sh prints it after collect):
how many experiments succeeded, why the others failed, and every FOM per experiment (or, for
large studies, each FOM's spread over the experiments)."""

import pandas as pd

from analysis import formats, frame

_WIDE_MAX = 12  # experiments shown side by side; beyond, one line of statistics per FOM


def short_names(df) -> pd.Series:
    """Experiment names without Ramble's '<application>.<workload>.' namespace prefix."""
    names = df["experiment"].astype(str)
    if {"application", "workload"} <= set(df.columns):
        prefix = df["application"].astype(str) + "." + df["workload"].astype(str) + "."
        has = [n.startswith(p) for n, p in zip(names, prefix)]
        names = names.where(~pd.Series(has, index=df.index), [n[len(p) :] for n, p in zip(names, prefix)])
    return names


def _metric_label(df) -> pd.Series:
    label = df["metric"].astype(str) + " (" + df["unit"].astype(str) + ")"
    if "context" in df.columns:
        ctx = df["context"].astype(str)
        label = label.where(ctx == "", ctx + ": " + label)
    return label


def summary(df) -> str:
    status = frame.row_status(df)
    parts = []
    if "experiment" in df.columns:
        per_exp = pd.DataFrame({"experiment": short_names(df), "status": status})
        worst = per_exp.groupby("experiment", sort=False)["status"].agg(
            lambda s: frame.SUCCESS if (s == frame.SUCCESS).all() else frame.FAILED
        )
        counts = worst.value_counts()
        parts.append(f"{len(worst)} experiments: " + ", ".join(f"{n} {s}" for s, n in counts.items()) + "\n")
        failed = worst[worst != frame.SUCCESS].index
        if len(failed):
            reasons = df.assign(experiment=short_names(df))
            reasons = reasons[reasons["experiment"].isin(failed)]
            why = (
                reasons.groupby("experiment", sort=False)["status_reason"].first()
                if "status_reason" in reasons.columns
                else pd.Series("", index=failed)
            )
            parts.append("\nFailed:\n\n" + formats.markdown(why.rename("reason").reset_index()))
    data = df[df["metric"].astype(str) != ""].assign(_metric=_metric_label(df), _status=status)
    if "experiment" in df.columns and data["experiment"].nunique() <= _WIDE_MAX:
        data = data.assign(
            _exp=short_names(data),
            _cell=data["value"].astype(object).where(data["_status"] == frame.SUCCESS, data["_status"]),
        )
        wide = data.pivot_table(index="_metric", columns="_exp", values="_cell", aggfunc="first", sort=False)
        wide = wide.reindex(columns=list(dict.fromkeys(data["_exp"]))).rename_axis(index="metric", columns=None)
        parts.append("\n" + formats.markdown(wide.reset_index()))
    else:
        good = data[data["_status"] == frame.SUCCESS]
        stats = good.groupby("_metric", sort=False)["value"].agg(["count", "min", "median", "max"])
        stats["failed"] = (data["_status"] != frame.SUCCESS).groupby(data["_metric"], sort=False).sum()
        parts.append("\n" + formats.markdown(stats.rename_axis("metric").reset_index()))
    return "".join(parts)
