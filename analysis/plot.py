"""PNG figures: scaling curves with the ideal line, and grouped bars for A/B comparisons.
Functions return PNG bytes; the caller writes them (atomically), so nothing here touches files.
matplotlib is imported on first use, its Figure drawn by Agg without pyplot (no display, no
global figure registry, and pyplot's own import is a tenth of a second)."""

import io as _bytes_io

import numpy as np
import pandas as pd

from analysis import frame

_LEGEND_MAX = 12  # more curves than this are drawn as their median and range
_BARS_MAX = 40  # categories on one bar chart


def axes(figsize):
    """A new figure of `figsize` inches and its one axes."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    return fig, fig.subplots()


def _png(fig) -> bytes:
    buf = _bytes_io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    return buf.getvalue()


def _title(df, metric, unit, extra=""):
    const = [
        str(df[c].iloc[0])
        for c in ("application", "workload", "dataset")
        if c in df.columns and len(df) and not frame.is_varying(df, c) and str(df[c].iloc[0])
    ]
    head = " / ".join(const)
    return (head + "\n" if head else "") + f"{metric} ({unit}){extra}"


def _labels(df, by) -> pd.Series:
    return frame.label(df, by) if by else pd.Series("all", index=df.index)


def scaling_figure(scaled, by, nodes_col="nodes", weak=False) -> bytes:
    """Speed-up (or weak-scaling efficiency) against the node count, one curve per group,
    log2 axes, with the ideal: y = N / N0 (strong) or 100 % (weak)."""
    y_col = "parallel_efficiency" if weak else "speedup"
    data = scaled[scaled[y_col].notna()].copy()
    data["_label"] = _labels(data, by)
    data = data.sort_values(["_label", nodes_col], kind="stable")
    fig, ax = axes((7, 4.5))
    x_all = data[nodes_col].astype(float)
    groups = data.groupby("_label", sort=False)
    if groups.ngroups <= _LEGEND_MAX:
        for label, g in groups:
            ax.plot(g[nodes_col].astype(float), g[y_col], marker="o", label=label)
    else:  # too many curves to tell apart: their median and range per node count
        stats = data.groupby(nodes_col)[y_col].agg(["median", "min", "max"])
        xs = stats.index.astype(float)
        ax.fill_between(xs, stats["min"], stats["max"], alpha=0.25, label=f"range of {groups.ngroups} curves")
        ax.plot(xs, stats["median"], marker="o", label="median")
    if len(data):
        lo, hi = x_all.min(), x_all.max()
        xs = np.array([lo, hi])
        base = data["base_nodes"].astype(float).min()
        ideal = np.array([100.0, 100.0]) if weak else xs / base
        ax.plot(xs, ideal, "k--", linewidth=1, label="ideal")
        ax.set_xscale("log", base=2)
        ax.set_xticks(sorted(x_all.unique()))
        ax.set_xticklabels([f"{v:g}" for v in sorted(x_all.unique())])
        if not weak:
            from matplotlib.ticker import FormatStrFormatter

            ax.set_yscale("log", base=2)
            ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
    ax.set_xlabel(nodes_col)
    ax.set_ylabel("parallel efficiency (%)" if weak else "speed-up")
    extra = f" - {groups.ngroups} curves" if groups.ngroups > _LEGEND_MAX else ""
    ax.set_title(
        _title(
            scaled,
            scaled["metric"].iloc[0] if len(scaled) else "",
            scaled["unit"].iloc[0] if len(scaled) else "",
            extra,
        ),
        fontsize=9,
    )
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))  # beside: curves stay visible
    ax.grid(True, which="both", alpha=0.3)
    return _png(fig)


def bars_figure(agg, axis, others) -> bytes:
    """Grouped bars: one group per combination of `others`, one bar per value of `axis`;
    a configuration that failed gets no bar and the word FAILED (MISSING) where it would be."""
    data = agg.copy()
    data["_group"] = _labels(data, others)
    groups = list(dict.fromkeys(data["_group"]))[:_BARS_MAX]
    sides = list(dict.fromkeys(data[axis].astype(str)))
    data = data[data["_group"].isin(groups)]
    fig, ax = axes((max(6, 0.6 * len(groups) * max(1, len(sides)) + 2), 4.5))
    width = 0.8 / max(1, len(sides))
    x = np.arange(len(groups))
    for i, side in enumerate(sides):
        part = data[data[axis].astype(str) == side].set_index("_group").reindex(groups)
        offsets = x - 0.4 + width * (i + 0.5)
        ax.bar(offsets, part["value"].fillna(0), width, label=f"{axis}={side}")
        for xpos, status in zip(offsets, part["status"]):
            if isinstance(status, str) and status != frame.SUCCESS:
                ax.text(xpos, 0, status, rotation=90, ha="center", va="bottom", fontsize=7, color="red")
    ax.set_xticks(x)
    ax.set_xticklabels(
        groups, rotation=30 if len(groups) > 4 else 0, ha="right" if len(groups) > 4 else "center", fontsize=7
    )
    unit = agg["unit"].iloc[0] if len(agg) else ""
    metric = agg["metric"].iloc[0] if len(agg) else ""
    ax.set_ylabel(f"{metric} ({unit})")
    ax.set_title(_title(agg, metric, unit), fontsize=9)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(True, axis="y", alpha=0.3)
    return _png(fig)


def bars_data(df, metric, axis, file, by=None):
    """(one row per configuration, the grouping columns) for bars_figure: groups are `by`, or
    every varying column except the axis and what follows it."""
    frame.require(df, [axis], file, "the column whose values are the bars")
    rows = frame.select_metric(df, metric, file)
    others = [d for d in frame.varying(rows, frame.dimensions(rows)) if d != axis]
    if by is None:
        follow = frame.following(rows, axis, others)
        by = [d for d in others if d not in follow]
    frame.require(rows, by, file, "a --by column")
    agg = frame.aggregate(rows, frame.keys(rows, by, [axis]), file)
    return frame.sort_natural(agg, by + [axis], rows), list(by)
