"""`best`: the best configuration per group (e.g. the best ranks x threads split per processor)
and by how much it wins: over the runner-up and over the worst (SC'23 Table 5: 1.22x)."""

import pandas as pd

from analysis import frame
from analysis.directions import LOWER, oriented_ratio

_ALL = "_all"  # the one group when there is no --by


def best(df, metric, direction, file, by=()) -> pd.DataFrame:
    rows = frame.select_metric(df, metric, file)
    by = list(by)
    frame.require(rows, by, file, "a --by column")
    configs = [d for d in frame.varying(rows, frame.dimensions(rows)) if d not in by]
    if by:  # what follows the groups (ranks, when grouped by nodes) is no choice within them
        configs = [d for d in configs if d not in frame.following(rows, by, configs)]
    keys = frame.keys(rows, by, configs)
    agg = frame.aggregate(rows, keys, file)
    agg["_config"] = frame.label(agg, configs, names=True)  # 'ranks=4, threads=24'
    groups = by or [_ALL]
    agg[_ALL] = 0

    counts = agg.groupby(groups, observed=True, dropna=False).agg(
        n_configs=("status", "size"), n_failed=("status", lambda s: int((s != frame.SUCCESS).sum()))
    )
    good = agg[agg["status"] == frame.SUCCESS].sort_values("value", ascending=direction == LOWER, kind="stable")
    ranked = good.groupby(groups, observed=True, dropna=False)
    top = ranked.nth(0).set_index(groups)
    runner = ranked.nth(1).set_index(groups)
    worst = ranked.nth(-1).set_index(groups)
    worst = worst[ranked.size().reindex(worst.index) > 1]  # a lone success is not its own worst

    out = counts.join(top[[c for c in keys if c not in by] + ["metric", "value", "unit"]], how="left")
    out["metric"] = out["metric"].astype(object).fillna(metric)
    out["runner_up"] = runner["_config"].reindex(out.index).fillna("")
    out["margin_vs_next"] = oriented_ratio(out["value"], runner["value"].reindex(out.index), direction)
    out["worst"] = worst["_config"].reindex(out.index).fillna("")
    out["margin_vs_worst"] = oriented_ratio(out["value"], worst["value"].reindex(out.index), direction)
    out = out.reset_index()
    if not by:
        out = out.drop(columns=_ALL)
    front = [c for c in keys if c in out.columns] + ["metric", "value", "unit"]
    out = out[front + [c for c in out.columns if c not in front]]
    return frame.sort_natural(out, by, rows).reset_index(drop=True)
