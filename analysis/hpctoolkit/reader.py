"""An HPCToolkit database as a per-function table: inclusive and exclusive CPU time, share of
the total, and whether the time was spent in MPI.

Two database formats, both read with hatchet: the sparse one of hpcprof >= 2022.10 (meta.db,
profile.db, cct.db; hatchet's `from_hpctoolkit_latest`) and the older experiment.xml +
*.metric-db of hpcprof-mpi <= 2022.05 (`from_hpctoolkit`).

Times are CPU seconds summed over all ranks and threads (the database's CPUTIME metric). A
function is keyed by (name, module, in_mpi): `memcpy` called by the application and `memcpy`
called inside MPI_Allgather are two rows, so the in-MPI rows add up to the MPI share.
"""

import os
import re
from collections import Counter, defaultdict

import pandas as pd

COLUMNS = ["function", "module", "file", "in_mpi", "inclusive_s", "exclusive_s", "share_pct"]

# hatchet names a procedure frame reached through a call site "<call line>:<name>".
_CALL_LINE = re.compile(r"^\d+:")
# hpcprof's metric names carry the unit; hatchet renames both CPUTIME variants to "time".
_UNITS = {"CPUTIME (usec)": 1e-6, "CPUTIME (sec)": 1.0}
SPARSE_FILES = ("meta.db", "profile.db", "cct.db")


class ReaderError(Exception):
    """The directory is not a database this reader can turn into a table (message says why)."""


def check_database(path) -> float:
    """Seconds per unit of the database's CPUTIME metric; ReaderError when it cannot be read."""
    xml = os.path.join(path, "experiment.xml")
    if not os.path.isdir(path):
        raise ReaderError(f"{path}: no such directory")
    if os.path.isfile(os.path.join(path, "meta.db")):
        return _check_sparse(path)
    if not os.path.isfile(xml):
        raise ReaderError(
            f"{path}: neither meta.db (hpcprof >= 2022.10) nor experiment.xml "
            "(hpcprof <= 2022.05): not an HPCToolkit database"
        )
    if not any(f.endswith(".metric-db") for f in os.listdir(path)):
        raise ReaderError(f"{path}: no *.metric-db files (per-rank metrics come from hpcprof-mpi)")
    with open(xml, errors="replace") as f:
        names = re.findall(r'<MetricDB [^>]*\bn="([^"]*)"', f.read())
    for prefix, scale in _UNITS.items():
        if any(n.startswith(prefix) for n in names):
            return scale
    raise ReaderError(f"{path}: no CPUTIME metric (profile with hpcrun -e CPUTIME); has {names}")


def _check_sparse(path) -> float:
    missing = [f for f in SPARSE_FILES if not os.path.isfile(os.path.join(path, f))]
    if missing:
        raise ReaderError(f"{path}: has meta.db but no {', '.join(missing)} (hpcprof did not finish?)")
    # meta.db keeps metric names as NUL-terminated strings; the unit is only there.
    with open(os.path.join(path, "meta.db"), "rb") as f:
        names = {m.decode() for m in re.findall(rb"CPUTIME \((?:usec|sec)\)", f.read())}
    for name, scale in _UNITS.items():
        if name in names:
            return scale
    raise ReaderError(f"{path}: no CPUTIME metric in meta.db (profile with hpcrun -e CPUTIME)")


def is_sparse(path) -> bool:
    return os.path.isfile(os.path.join(path, "meta.db"))


def read(path):
    """(hatchet GraphFrame, seconds per metric unit) of a database directory."""
    scale = check_database(path)
    import hatchet  # here, not at the top: the CLI re-executes under .venv-hpctoolkit first

    if is_sparse(path):
        from analysis.hpctoolkit.sparse import read_sparse

        return read_sparse(str(path)), scale
    return hatchet.GraphFrame.from_hpctoolkit(str(path)), scale


def is_mpi(name, module) -> bool:
    """An MPI entry point by name, or any code in the MPI library (libmpi, libmpich, ...)."""
    return name.startswith(("MPI_", "PMPI_")) or module.startswith("libmpi")


def function_table(gf, scale) -> pd.DataFrame:
    """One row per (function, module, in_mpi), largest exclusive time first."""
    if getattr(gf, "sparse_profiles", None) is not None:
        from analysis.hpctoolkit.sparse import sparse_times

        return _table(*sparse_times(gf, is_mpi), scale)
    return _table(*_xml_times(gf), scale)


def _xml_times(gf):
    """inclusive, exclusive and file per function key of an experiment.xml database.

    Samples sit on statement nodes (S): a function's exclusive time is that of the statements
    in its frames, loops included. The frames' own `time` is not used: hatchet subtracts a
    statement's time from its direct parent only, so a frame keeps its loops' statements and
    they would count twice (0.90 s of the allgather database's 26.16 s). Inclusive time counts
    each call path once: a function called under itself adds only its outermost instance.
    """
    df = gf.dataframe
    per_node = df.groupby(level="node", sort=False).agg(
        inc=("time (inc)", "sum"),
        exc=("time", "sum"),
        **{column: (column, "first") for column in ("name", "module", "file", "type")},
    )
    nodes = per_node.to_dict("index")
    inclusive, exclusive, files = defaultdict(float), defaultdict(float), defaultdict(str)

    on_path = Counter()  # function keys on the current call path, for recursion
    outside = ("<no procedure>", "", False)  # owner of statements above any frame (none seen)
    stack = [("enter", root, outside, False) for root in reversed(gf.graph.roots)]
    while stack:
        action, node, owner, in_mpi = stack.pop()
        if action == "exit":
            on_path[node] -= 1
            continue
        row = nodes[node]
        if row["type"] in ("PF", "Pr"):  # a procedure frame (Pr: inlined) starts a function
            name = _CALL_LINE.sub("", row["name"])
            module = os.path.basename(row["module"])
            in_mpi = in_mpi or is_mpi(name, module)
            owner = (name, module, in_mpi)
            files[owner] = files[owner] or row["file"]
            if not on_path[owner]:
                inclusive[owner] += row["inc"]
            on_path[owner] += 1
            stack.append(("exit", owner, None, None))
            exclusive[owner] += 0.0  # every function gets a row, sampled or not
        elif row["type"] == "S":
            exclusive[owner] += row["exc"]
        stack.extend(("enter", child, owner, in_mpi) for child in reversed(node.children))
    return inclusive, exclusive, files


def _table(inclusive, exclusive, files, scale) -> pd.DataFrame:
    keys = list(exclusive)
    table = pd.DataFrame(
        {
            "function": [k[0] for k in keys],
            "module": [k[1] for k in keys],
            "file": [files[k] for k in keys],
            "in_mpi": [k[2] for k in keys],
            "inclusive_s": [inclusive[k] * scale for k in keys],
            "exclusive_s": [exclusive[k] * scale for k in keys],
        }
    )
    total = table["exclusive_s"].sum()
    table["share_pct"] = 100 * table["exclusive_s"] / total if total else 0.0
    table = table.sort_values(
        ["exclusive_s", "inclusive_s", "function", "module"], ascending=[False, False, True, True], kind="stable"
    )
    return table.reset_index(drop=True)[COLUMNS]


def mpi_share_pct(table) -> float:
    """Percent of all CPU time spent in MPI calls and below them."""
    total = table["exclusive_s"].sum()
    return 100 * table.loc[table["in_mpi"], "exclusive_s"].sum() / total if total else 0.0


def shape(gf) -> dict:
    """Rows hatchet read, ranks and threads per rank (1 when the database has no thread level)."""
    profiles = getattr(gf, "sparse_profiles", None)
    if profiles is not None:  # the sparse format's summary has one row per node; profiles say who ran
        threads = int(profiles.groupby("rank").size().max()) if len(profiles) else 0
        return {"rows": len(gf.dataframe), "ranks": profiles["rank"].nunique(), "threads": threads}
    index = gf.dataframe.index
    threads = index.get_level_values("thread").nunique() if "thread" in index.names else 1
    return {"rows": len(gf.dataframe), "ranks": index.get_level_values("rank").nunique(), "threads": threads}
