"""A study's definition (ramble-workspaces/<study>/study.yaml) and what `make reproduce` does
with it: check that a system can run the study at a scale before anything runs, then write the
study's report from its results CSV.

    hpcaas study check STUDY SYSTEM [--scale S]   exit 0, or 2 with what the system lacks
    hpcaas study report STUDY CSV OUTDIR
    hpcaas study readme [--check] [STUDY ...]     README.md of each study, rendered from study.yaml
    hpcaas study expectations [--write] [STUDY ...]   tests/studies/<study>.yaml from the dry-runs

study.yaml keys (`question`, `paper` and `ramble` are required):
    question: the question the study answers
    about: the author's notes for the README (Markdown): the scales in words, inputs to fetch, gaps
    paper: the publication and table or figure it reproduces
    paper_system: the configs/ folder of the paper's system (a list when the paper ran it on several)
    published: {reference: reference/<table>.csv, metrics: {<reference metric>: <our FOM>},
            systems: {<reference system label>: <configs/ folder>}, columns: {<reference column>:
            <ours>}, values: {<column>: {<reference value>: <ours>}}, from: [<hpcaas-analyze
            command>], column: <its output column>}: the paper's numbers (a list of these when
            the study reproduces several tables); with `from`, a derived table of the paper (e.g.
            performance per dollar) is compared with that analysis of our results, its `column`
            being the measured value (and `metric_column`, if given, the output column naming
            each row's metric: correlate's trait); an argument '{systems}' of `from` stands for
            the entry's `systems` as LABEL=SYSTEM arguments (correlate --traits-systems)
    conclusions: the paper's conclusions and how to check them (hpcaas/conclusions.py)
    needs: {ranks, nodes, gpus, licensed: [mirror files], variables: [system variables swept]}
    scales: {paper: <preset>, small: <preset>}, a preset being {variables: {...}, systems:
            {<system>: {variables: {...}}}, needs: {...}} (hpcaas/render.py applies it)
    software: {sweep: [roles the study compares], paper: {<paper system>: {compiler: <spec>,
            mpi: <spec or list>, target: ..., fabric: ..., applications: {<app>: {<role>: ...}}}}}:
            the paper's software; other systems give their own in the same roles
    analyses: hpcaas-analyze commands run on the results CSV, e.g.
              [table, --metric, MaxPingPongLatency_usec, --rows, mpi]; {systems: [<configs/
              folder>...], run: [...]} for one that needs results of those systems (a figure
              normalised to one system's cell)
    ramble: the experiment, in Ramble's workspace syntax (applications, matrix, software); the
            system's variables come first (hpcaas/render.py)
"""

import contextlib
import io
import sys
from pathlib import Path

from analysis.errors import InputError
from hpcaas import conclusions, fidelity, readme, substitutes, systemdiff
from hpcaas.paths import CONFIGS, ROOT, WORKSPACES
from hpcaas.systems import check_system_dir, ramble_config, read_yaml, value

KEYS = {
    "question",
    "about",
    "paper",
    "paper_system",
    "published",
    "needs",
    "analyses",
    "scales",
    "software",
    "fidelity",
    "conclusions",
    "ramble",
}
# What a study needs that its experiment matrix cannot say; the nodes and cores each experiment
# asks for come from the matrix as Ramble expands it (hpcaas/needs.py).
NEEDS = {"gpus", "licensed", "variables"}
DERIVED = {"nodes", "ranks"}


def study_file(study: str) -> Path:
    return WORKSPACES / study / "study.yaml"


def load(study: str) -> dict:
    file = study_file(study)
    if not file.is_file():
        raise InputError(file, "(file)", f"a study description (is '{study}' a folder of ramble-workspaces/?)")
    doc = read_yaml(file) or {}
    if not isinstance(doc, dict):
        raise InputError(file, "(top level)", "a mapping of study keys")
    for key in ("question", "paper", "ramble"):
        if key not in doc:
            raise InputError(file, key, "present (see hpcaas/studies.py for the keys)")
    if not isinstance(doc["ramble"], dict) or "applications" not in doc["ramble"]:
        raise InputError(file, "ramble.applications", "the experiment's applications, in Ramble's workspace syntax")
    if not isinstance(doc.get("about", ""), str):
        raise InputError(file, "about", "Markdown text (the README's notes: scales in words, inputs, gaps)")
    doc.setdefault("needs", {})
    unknown = set(doc) - KEYS
    if unknown:
        raise InputError(file, sorted(unknown)[0], f"one of {', '.join(sorted(KEYS))}")
    _check_needs(file, "needs", doc["needs"])
    for name, preset in (doc.get("scales") or {}).items():
        if isinstance(preset, dict) and "needs" in preset:
            _check_needs(file, f"scales.{name}.needs", preset["needs"])
    for i, entry in enumerate(doc.get("analyses", [])):
        cmd, systems = _analysis_entry(entry)
        if not (isinstance(cmd, list) and cmd and all(isinstance(a, str) for a in cmd)):
            raise InputError(
                file,
                f"analyses.{i}",
                "a list of hpcaas-analyze arguments, e.g. [table, --metric, M], or {systems: [...], run: [...]}",
            )
        unknown = [s for s in systems if not (CONFIGS / s / "system.yaml").is_file()]
        if unknown:
            raise InputError(file, f"analyses.{i}.systems", f"configs/ folders (no system {unknown[0]!r})")
    if doc.get("paper_system") and not doc.get("fidelity"):
        raise InputError(file, "fidelity", "a fidelity table: a study of a paper system states each value's source")
    if "fidelity" in doc:
        fidelity.validate(doc["fidelity"], file, fidelity.paper_systems(doc))
    if "conclusions" in doc:
        conclusions.validate(doc["conclusions"], file)
    for key, pub in _published(doc):
        reference = pub.get("reference") if isinstance(pub, dict) else None
        if not (isinstance(reference, str) and (ROOT / reference).is_file()):
            raise InputError(file, f"{key}.reference", f"an existing file of reference/ (got {reference!r})")
        derive = pub.get("from")
        if derive is not None and not (
            isinstance(derive, list) and derive and all(isinstance(a, str) for a in derive) and pub.get("column")
        ):
            raise InputError(
                file, f"{key}.from", "hpcaas-analyze arguments, e.g. [cost, --metric, M, ...], with column:"
            )
        if "metric_column" in pub and not (derive and isinstance(pub["metric_column"], str)):
            raise InputError(file, f"{key}.metric_column", "the `from` output column naming each row's metric")
    return doc


def _check_needs(file, key: str, needs):
    if not isinstance(needs, dict):
        raise InputError(file, key, f"a mapping with keys among {', '.join(sorted(NEEDS))}")
    derived = sorted(set(needs) & DERIVED)
    if derived:
        raise InputError(
            file,
            f"{key}.{derived[0]}",
            "not written: the nodes and ranks a study needs come from its experiment matrix as Ramble "
            "expands it on the system (hpcaas/needs.py); remove it",
        )
    if set(needs) - NEEDS:
        raise InputError(file, key, f"a mapping with keys among {', '.join(sorted(NEEDS))}")
    if not isinstance(needs.get("gpus", 0), int) or needs.get("gpus", 0) < 0:
        raise InputError(file, f"{key}.gpus", "a whole number >= 0")
    for name in ("licensed", "variables"):
        if not isinstance(needs.get(name, []), list):
            raise InputError(file, f"{key}.{name}", "a list")


def _analysis_entry(entry) -> tuple:
    """(hpcaas-analyze arguments, systems it needs: all of them in the results, or [])."""
    if isinstance(entry, dict):
        return entry.get("run"), list(entry.get("systems") or [])
    return entry, []


def _published(doc: dict) -> list:
    """(key in study.yaml, entry) of each table of the paper's numbers the study compares with."""
    pub = doc.get("published")
    if pub is None:
        return []
    return [(f"published.{i}", p) for i, p in enumerate(pub)] if isinstance(pub, list) else [("published", pub)]


def needs_at(doc: dict, scale: str) -> dict:
    """The study's needs at a scale: the preset's `needs` over the study's own."""
    return {**doc.get("needs", {}), **((doc.get("scales", {}).get(scale) or {}).get("needs", {}))}


def missing(study: str, system: str, scale: str = "paper", doc: dict = None) -> list:
    """What `system` lacks to run the study at `scale`, one sentence each (empty: it can run):
    the Ramble variables the study sweeps, then the nodes and cores of its widest experiments as
    Ramble expands them there, the GPUs and the licensed sources."""
    from hpcaas import needs as matrix

    doc = doc or load(study)
    folder = CONFIGS / system
    sys_doc = check_system_dir(folder)
    needs, lacks = needs_at(doc, scale), []
    variables = ramble_config(folder, sys_doc)["variables"]
    for name in needs.get("variables", []):
        if name not in variables:
            lacks.append(f"the Ramble variable '{name}' the study sweeps (configs/{system}/ramble/variables.yaml)")
    if not lacks:  # the matrix expands only once the variables it sweeps are there
        nodes = value(sys_doc, "nodes") if "nodes" in sys_doc else None  # None: a cluster of any size
        lacks += matrix.lacks(
            study, system, scale, nodes, value(sys_doc, "sockets") * value(sys_doc, "cores_per_socket")
        )
    gpus = sum(value(g, "count") for g in sys_doc.get("gpus", []))
    if needs.get("gpus", 0) > gpus:
        lacks.append(f"{needs['gpus']} GPUs per node ({gpus} on {system})")
    for name in needs.get("licensed", []):
        if not list((ROOT / "mirror").rglob(name)):
            lacks.append(
                f"the licensed source {name}: download it from its vendor and put it in mirror/ "
                "(Spack then finds it by checksum)"
            )
    return lacks


def _analysis(cmd: list, csv: str, fmt: str) -> tuple:
    """hpcaas-analyze CMD (a study's analysis) on CSV, in format FMT: (exit status, output, errors)."""
    from analysis import cli

    buf, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
        rc = cli.main([cmd[0], csv, *cmd[1:], "--format", fmt])
    return rc, buf.getvalue(), err.getvalue().strip()


def _derived(pub: dict, csv: str, out: Path):
    """The analysis `from` of a published entry on CSV as tidy rows (its `column` the value),
    kept as OUTDIR/<reference>.measured.csv: (path, None), or (None, why not)."""
    import pandas as pd

    cmd = derived_command(pub)
    rc, text, err = _analysis(cmd, csv, "csv")
    if rc != 0:
        return None, f"hpcaas-analyze {' '.join(pub['from'])} failed (exit {rc}): {err}"
    table = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    for key in ("column", "metric_column"):
        if key in pub and pub.get(key) not in table:
            return None, f"published.{key}: a column of its output ({', '.join(table.columns)}), got {pub.get(key)!r}"
    table = table.drop(columns=[c for c in ("metric", "value", "unit") if c in table])
    path = out / f"{Path(pub['reference']).stem}.measured.csv"
    metric = table.pop(pub["metric_column"]) if pub.get("metric_column") else pub["column"]
    table.assign(metric=metric, value=table.pop(pub["column"]), unit="").to_csv(path, index=False)
    return path, None


def derived_command(pub: dict) -> list:
    """A derived entry's `from` arguments, '{systems}' expanded to its systems as LABEL=SYSTEM."""
    labels = [f"{label}={system}" for label, system in (pub.get("systems") or {}).items()]
    return [a for arg in pub["from"] for a in (labels if arg == "{systems}" else [arg])]


def reference_in_our_names(pub: dict, **read):
    """A `published` entry's reference table with our column names and values (its `columns`,
    `systems` and `values`); its metrics keep the paper's names (`metrics` maps them)."""
    from analysis import files

    reference = files.read_results(ROOT / pub["reference"], **read).rename(columns=pub.get("columns", {}))
    values = {"system": pub.get("systems", {}), **pub.get("values", {})}
    for column, mapping in values.items():
        if mapping and column in reference:
            reference[column] = reference[column].astype(str).replace({str(k): str(v) for k, v in mapping.items()})
    return reference


def _published_section(pub: dict, df, csv: str, out: Path) -> str:
    """Our numbers beside the paper's (one `published` entry), cell by cell, where the cells
    (system, nodes, ...) match; else why they cannot be compared."""
    from analysis import files, published

    if "from" in pub:
        csv, why = _derived(pub, csv, out)
        if why:
            return f"Not comparable at this scale: {why}.\n"
        df = files.read_results(csv)
    reference_file = ROOT / pub["reference"]
    reference = reference_in_our_names(pub, value_decimals=True)
    mapping = {ours: theirs for theirs, ours in pub.get("metrics", {}).items()}
    ran_on = sorted(set(df["system"].astype(str))) if "system" in df else []
    why = published.not_comparable(df, reference, rename=mapping)
    if why:
        return f"Not comparable at this scale: {why}.\n"
    try:
        cells = published.published(df, reference, csv, reference_file, rename=mapping)
    except InputError as err:
        return f"Not comparable at this scale: {err.expected}.\n"
    both = cells[cells["status"] == published.BOTH]
    if both.empty:
        return (
            f"Not comparable at this scale: no cell of {pub['reference']} was measured here "
            f"(ours ran on {', '.join(ran_on)}); the conclusions below compare the paper's shape.\n"
        )
    return files.render(both, "markdown")


def _profile_section(df, profiles_csv: Path, out: Path) -> str:
    """Where the time goes (hpctoolkit runs): per experiment its top functions, inclusive and
    exclusive, and its share of time in MPI; then that share along each swept axis, with a plot."""
    import pandas as pd

    from analysis import files, plot

    prof = pd.read_csv(profiles_csv)
    parts = []
    for name, table in prof.groupby("experiment", sort=True):
        top = table.sort_values("exclusive_s", ascending=False).head(8)
        parts.append(
            f"### {name}: {table['mpi_share_pct'].iloc[0]:.1f}% of the time in MPI\n\n"
            + files.render(top[["function", "module", "inclusive_s", "exclusive_s", "share_pct"]], "markdown")
        )
    shares = prof.groupby("experiment")["mpi_share_pct"].first().rename("value").reset_index()
    dims = df.drop_duplicates("experiment").set_index("experiment")
    axes = [
        c
        for c in ("nodes", "ranks", "threads", "mpi", "compiler", "binding", "distribution", "fabric", "target")
        if c in dims and dims.loc[dims.index.isin(shares["experiment"]), c].astype(str).nunique() > 1
    ]
    if axes:
        # The application and workload tell experiments of one axis value apart (NPB's kernels).
        shares = shares.join(dims[["application", "workload", *axes]], on="experiment")
        parts.append("### MPI share along the swept axes\n\n" + files.render(shares, "markdown"))
        tidy = shares.assign(metric="MPI share", unit="%", status="SUCCESS")
        agg, others = plot.bars_data(tidy, "MPI share", axes[0], str(profiles_csv))
        (out / "mpi-share.png").write_bytes(plot.bars_figure(agg, axes[0], others))
        parts.append("![MPI share](mpi-share.png)\n")
    return "\n".join(parts)


def report(study: str, csv: str, outdir: str) -> int:
    """The study's report, OUTDIR/report.md: which cells ran with a substitute for the paper's
    software (hpcaas/substitutes.py), each analysis of study.yaml, the published numbers beside
    ours (ratio per cell) where they compare, and each of the paper's conclusions with whether it
    holds here. Exit 1 when an analysis fails."""
    from analysis import files

    doc = load(study)
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    df = files.read_results(csv)
    ran_on = ", ".join(sorted(set(df["system"].astype(str)))) if "system" in df else "?"
    sections = [f"# {study}\n\n{doc['question']}\n\nReproduces: {doc['paper']}. Ran on: {ran_on}.\n"]
    sections.append(
        systemdiff.section(set(df["system"].astype(str)) if "system" in df else set(), fidelity.paper_systems(doc))
    )
    sections += _provenance(Path(csv).parent / "provenance.json")
    if doc.get("fidelity"):
        text = substitutes.section(doc, df, lambda t: files.render(t, "markdown"))
        sections.append(f"## Cells that ran with a substitute\n\n{text}")
    status = 0
    ran = set(df["system"].astype(str)) if "system" in df else set()
    for cmd, systems in map(_analysis_entry, doc.get("analyses", [])):
        if ran.issuperset(systems):
            rc, text, err = _analysis(cmd, csv, "markdown")
            text = text if rc == 0 else f"failed (exit {rc}): {err}"
            status = status or rc
        else:  # a paper figure across systems, e.g. normalised to one system's cell
            text = f"Needs results of {', '.join(systems)}; these ran on {ran_on}.\n"
        sections.append(f"## hpcaas-analyze {' '.join(cmd)}\n\n{text}")
    for _, pub in _published(doc):
        sections.append(
            f"## The paper's numbers beside ours: {pub['reference']}\n\n{_published_section(pub, df, csv, out)}"
        )
    profiles = Path(csv).parent / "profiles.csv"
    if profiles.exists():
        sections.append("## Where the time goes (HPCToolkit)\n\n" + _profile_section(df, profiles, out))
    if doc.get("conclusions"):
        verdicts = conclusions.table(df, doc["conclusions"])
        sections.append(
            f"## The paper's conclusions\n\n{conclusions.counts(verdicts)}\n\n" + files.render(verdicts, "markdown")
        )
    (out / "report.md").write_text("\n".join(sections))
    return status


def _provenance(file: Path) -> list:
    """What the run built and how it was asked for (hpcaas/run/study.py's provenance.json)."""
    import json

    if not file.is_file():
        return []
    doc = json.loads(file.read_text())
    where = doc["environment"]
    built = f"It ran the committed environment {where}" if doc["committed_environment"] else f"It built {where}"
    lines = [f"{built} (spack.lock sha256 {doc['spack_lock_sha256'][:12]})."]
    if doc.get("set"):
        lines.append("Set for this run: " + ", ".join(f"{k}={v}" for k, v in doc["set"].items()) + ".")
    if doc.get("environments_not_built"):
        lines.append("Not built (their experiments FAILED): " + ", ".join(doc["environments_not_built"]) + ".")
    return [" ".join(lines) + "\n"]


def register(sub):
    """`hpcaas study check|report`."""
    ap = sub.add_parser(
        "study", help="check that a system can run a study, or write its report", description=__doc__.split("\n")[0]
    )
    cmds = ap.add_subparsers(dest="study_command", required=True)
    p = cmds.add_parser("check", help="exit 2 with what SYSTEM lacks to run STUDY at a scale")
    p.add_argument("study")
    p.add_argument("system")
    p.add_argument("--scale", default="paper", choices=("paper", "small"))
    p = cmds.add_parser("report", help="the study's analyses of CSV, as OUTDIR/report.md")
    p.add_argument("study")
    p.add_argument("csv")
    p.add_argument("outdir")
    p = cmds.add_parser("readme", help="write each study's README.md from its study.yaml (--check: exit 1 if stale)")
    p.add_argument("studies", nargs="*", metavar="STUDY")
    p.add_argument("--check", action="store_true")
    p = cmds.add_parser(
        "expectations", help="regenerate tests/studies/<study>.yaml from the dry-runs, printing the difference"
    )
    p.add_argument("studies", nargs="*", metavar="STUDY")
    p.add_argument("--write", action="store_true", help="write the files (else: print the difference, exit 1)")
    ap.set_defaults(func=_main)


def _main(args) -> int:
    if args.study_command == "check":
        lacks = missing(args.study, args.system, args.scale)
        if lacks:
            print(f"{args.study} cannot run on {args.system}; it needs " + "; ".join(lacks), file=sys.stderr)
            return 2
        return 0
    if args.study_command == "expectations":
        from hpcaas import expectations

        return expectations.main(args.studies, args.write)
    if args.study_command == "readme":
        names = args.studies or readme.all_studies()
        if args.check:
            stale = readme.stale(names, load)
            for path in stale:
                print(f"{path}: not the rendering of its study.yaml: run make readme", file=sys.stderr)
            return 1 if stale else 0
        readme.write(names, load)
        return 0
    rc = report(args.study, args.csv, args.outdir)
    print(f"report: {Path(args.outdir) / 'report.md'}")
    return rc
