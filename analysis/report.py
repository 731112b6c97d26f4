"""`report`: one page (report.md and report.html, plus PNGs) with the tables and plots of a
study: the summary, then per metric the paper-style table, the scaling (when the node count
varies) or A/B bars (when another column does), and the run-to-run variation.

The page is built as a list of blocks and written as Markdown; the HTML page is that Markdown
rendered by markdown-it-py, so both say the same thing. Functions return {file name: content};
the CLI writes them."""

import html
import re

import pandas as pd
from markdown_it import MarkdownIt

from analysis import directions, formats, frame, plot, repeats, scaling, summary, table
from analysis.errors import InputError

_PLOTS_MAX = 12  # figures per report; `hpcaas-analyze plot` draws any other


def _slug(text) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", str(text)).strip("-").lower() or "metric"


def _blocks_for_metric(df, metric, file, plots):
    rows = frame.select_metric(df, metric, file)
    unit = str(rows["unit"].iloc[0])
    blocks = [("h2", f"{metric} ({unit})")]
    if not frame.ok(rows).any():
        return blocks + [("p", "No successful run has this metric.")]
    for section in (_table, _scaling_or_bars, _variation):
        try:
            blocks += section(df, rows, metric, unit, file, plots)
        except InputError as err:  # e.g. a column that splits cells: say so, keep the report going
            blocks.append(("p", f"({section.__name__.strip('_')}: {err.key}: {err.expected})"))
    return blocks


def _table(df, rows, metric, unit, file, plots):
    return [("table", table.table(df, metric, file))]


def _scaling_or_bars(df, rows, metric, unit, file, plots):
    varying = frame.varying(rows, frame.dimensions(rows))
    direction = directions.of(metric, unit)
    if "nodes" in varying and direction:
        scaled = scaling.scaling(df, metric, direction, file)
        by = scaling.default_by(rows, "nodes")
        blocks = [
            ("h3", "Scaling (relative to the smallest node count)"),
            ("table", scaled[by + ["nodes", "value", "status", "speedup", "parallel_efficiency"]]),
        ]
        if len(plots) < _PLOTS_MAX:
            name = f"scaling-{_slug(metric)}.png"
            plots[name] = plot.scaling_figure(scaled, by)
            blocks.append(("img", name))
        return blocks
    if varying and len(plots) < _PLOTS_MAX:
        agg, others = plot.bars_data(df, metric, varying[0], file)
        name = f"bars-{_slug(metric)}.png"
        plots[name] = plot.bars_figure(agg, varying[0], others)
        return [("img", name)]
    return []


def _variation(df, rows, metric, unit, file, plots):
    if "repeat" not in rows.columns or rows["repeat"].nunique() < 2:
        return []
    stats = repeats.repeats(rows, file)
    varying = [d for d in frame.varying(rows, frame.dimensions(rows)) if d in stats.columns]
    return [("h3", "Run-to-run variation"), ("table", stats[varying + ["n", "n_failed", "mean", "stdev", "cv"]])]


def build(df, file, title) -> dict:
    """{'report.md': text, 'report.html': text, '<figure>.png': bytes, ...}"""
    blocks = [("h1", f"Report: {title}")]
    provenance = [c for c in ("project_commit", "spack_lock_hash", "timestamp") if c in df.columns]
    facts = [f"{len(df)} rows from {file}"] + [
        f"{c}: {', '.join(sorted(set(df[c].astype(str)) - {''})[:3]) or '-'}" for c in provenance
    ]
    blocks.append(("p", "; ".join(facts)))
    blocks.append(("h2", "Summary"))
    blocks.append(("md", summary.summary(df)))
    plots = {}
    metrics = [m for m in pd.unique(df["metric"].astype(str)) if m]
    for metric in metrics:
        blocks += _blocks_for_metric(df, metric, file, plots)
    if len(plots) >= _PLOTS_MAX:
        blocks.append(
            ("p", f"Figures for the first {_PLOTS_MAX} metrics only; `hpcaas-analyze plot` draws the others.")
        )
    text = to_markdown(blocks)
    return {"report.md": text, "report.html": to_html(text, title), **plots}


def to_markdown(blocks) -> str:
    out = []
    for kind, content in blocks:
        if kind in ("h1", "h2", "h3"):
            out.append("#" * int(kind[1]) + " " + content)
        elif kind == "table":
            out.append(formats.markdown(content).rstrip())
        elif kind == "img":
            out.append(f"![{content}]({content})")
        else:
            out.append(str(content).rstrip())
    return "\n\n".join(out) + "\n"


def to_html(markdown: str, title: str) -> str:
    body = MarkdownIt("commonmark").enable("table").render(markdown)
    style = (
        "body{font-family:sans-serif;max-width:70em;margin:2em auto}table{border-collapse:collapse;"
        "margin:1em 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
        "th{background:#eee}img{max-width:100%}"
    )
    return (
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{style}</style></head>\n<body>\n{body}</body></html>\n"
    )
