"""A study's README.md, rendered from its study.yaml (the one file a study's author writes): the
question and paper, the author's notes (`about:`), how to run it, the fidelity table (the paper's
words beside each value) and the paper's conclusions with their checks.

    hpcaas study readme [STUDY ...]            write ramble-workspaces/<study>/README.md
    hpcaas study readme --check [STUDY ...]    exit 1 naming each README that is not its rendering

No study given: every study of ramble-workspaces/.
"""

from hpcaas.fidelity import paper_systems
from hpcaas.paths import WORKSPACES

HEADER = "<!-- Rendered from study.yaml by `make readme` (hpcaas study readme): edit study.yaml, not this file. -->"


def all_studies() -> list:
    return sorted(p.parent.name for p in WORKSPACES.glob("*/study.yaml"))


def _scope(row: dict) -> str:
    parts = [row[k] for k in ("system", "application") if row.get(k)]
    if row.get("experiment"):
        parts.append(f"experiments matching `{row['experiment']}`")
    return ", ".join(parts) or "all"


def _words(row: dict) -> str:
    if row.get("silent"):
        words = f"paper silent: {row['silent']}"
    else:
        words = f"\u201c{row['paper']}\u201d: {row['where']}"
    if row.get("substitute"):
        words += f" **Substitute:** {row['substitute']}"
    return words


def fidelity_table(rows: list) -> str:
    import pandas as pd

    from analysis import formats

    df = pd.DataFrame(
        [
            {
                "parameter": r["parameter"],
                "holds on": _scope(r),
                "value": str(r["value"]),
                "the paper's words, or why the paper is silent": _words(r),
            }
            for r in rows
        ]
    )
    return formats.markdown(df)


def _check(row: dict) -> str:
    from hpcaas import conclusions

    kind, spec = next(iter(row["check"].items()))
    if kind == "needs":
        return f"not comparable here: needs {spec.strip()}"
    args = ", ".join(f"{k}: {v}" for k, v in spec.items())
    bound = conclusions.threshold(row)
    return f"{kind} ({args})" + (f"; threshold, {bound}" if bound else "")


def conclusions_table(rows: list) -> str:
    import pandas as pd

    from analysis import formats

    df = pd.DataFrame(
        [
            {
                "the paper's claim": f"\u201c{r['claim']}\u201d: {r['where']}",
                "metric": r["metric"],
                "rows": ", ".join(f"{k}={v}" for k, v in (r.get("where_rows") or {}).items()),
                "check": _check(r),
            }
            for r in rows
        ]
    )
    return formats.markdown(df)


def _commands(study: str, doc: dict) -> str:
    systems = paper_systems(doc)
    lines = []
    if systems:
        also = f"   # also: {', '.join(systems[1:])}" if len(systems) > 1 else ""
        lines.append(f"make dry-run STUDY={study} SYSTEM={systems[0]}{also}")
    if "small" in (doc.get("scales") or {}):
        lines.append(f"make dry-run STUDY={study} SYSTEM=local-slurm SCALE=small")
        lines.append(f"make reproduce STUDY={study} SYSTEM=local-slurm SCALE=small")
    elif not systems:
        lines.append(f"make run STUDY={study}")
    return "```sh\n" + "\n".join(lines) + "\n```\n"


def render(study: str, doc: dict) -> str:
    systems = paper_systems(doc)
    parts = [
        f"# {study}\n\n{HEADER}\n",
        f"**Question:** {doc['question'].strip()}\n\n**Paper:** {doc['paper'].strip()}\n",
    ]
    if systems:
        links = ", ".join(f"[{s}](../../configs/{s}/system.yaml)" for s in systems)
        parts.append(f"**Paper system{'s' if len(systems) > 1 else ''}:** {links}\n")
    pub = doc.get("published")
    tables = [p["reference"] for p in (pub if isinstance(pub, list) else [pub] if pub else [])]
    if tables:
        links = ", ".join(f"[{t}](../../{t})" for t in tables)
        parts.append(f"**The paper's numbers:** {links} (each run's report sets ours beside them)\n")
    if doc.get("about"):
        parts.append(doc["about"].strip() + "\n")
    parts.append(_commands(study, doc))
    if doc.get("fidelity"):
        substitutes = sum(1 for r in doc["fidelity"] if r.get("substitute"))
        subs = (
            f"{substitutes} of {len(doc['fidelity'])} rows name a substitute, where the paper's software "
            "cannot be built with the pinned Spack; the report of a run says which cells ran with one."
            if substitutes
            else "No row names a substitute."
        )
        parts.append(
            "## Fidelity: the paper's configuration, parameter by parameter\n\n"
            "Each value is what the study renders on its paper system; `make test` checks every row "
            f"against the dry-run (tests/studies/). {subs}\n\n" + fidelity_table(doc["fidelity"])
        )
    if doc.get("conclusions"):
        parts.append(
            "## The paper's conclusions\n\n"
            "`make reproduce` writes whether each holds on the results (holds, does not hold here, "
            "not comparable at this scale, or not comparable here: the claim needs systems or data no "
            "run here gives).\n\n" + conclusions_table(doc["conclusions"])
        )
    return "\n".join(parts)


def stale(studies: list, load) -> list:
    """The README files of `studies` that are not the rendering of their study.yaml."""
    out = []
    for study in studies:
        path = WORKSPACES / study / "README.md"
        if not path.is_file() or path.read_text() != render(study, load(study)):
            out.append(path)
    return out


def write(studies: list, load) -> None:
    for study in studies:
        path = WORKSPACES / study / "README.md"
        text = render(study, load(study))
        if not path.is_file() or path.read_text() != text:
            path.write_text(text)
            print(f"wrote {path}")
