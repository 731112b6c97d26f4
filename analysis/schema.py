"""The tidy result schema shared by our runs and the published reference tables."""

#: Dimension columns: what configuration a number belongs to. Absent ones are left empty.
DIMENSIONS = [
    "system",
    "application",
    "workload",
    "dataset",
    "compiler",
    "mpi",
    "target",
    "fabric",
    "filesystem",
    "binding",
    "distribution",
    "variant",
    "nodes",
    "ranks",
    "threads",
    # GROMACS' PME-only ranks (mdrun -npme; -1: mdrun's own choice), an axis of Kutzner et al.'s
    # protocol that IJHPCA'19 follows (Section 6).
    "pme_ranks",
]

#: The measurement itself.
MEASURE = ["metric", "value", "unit"]

#: Provenance of our own runs (published rows carry source/table/printed/note instead).
PROVENANCE = [
    "experiment",
    "status",
    "repeat",
    "spack_lock_hash",
    "project_commit",
    "spack_inputs_hash",
    "timestamp",
]

RESULT_COLUMNS = ["experiment"] + [c for c in DIMENSIONS] + MEASURE + [c for c in PROVENANCE if c != "experiment"]

#: Columns `collect` appends after RESULT_COLUMNS: a FOM's Ramble context (e.g. a message size;
#: empty for Ramble's null context) and why an experiment counts as failed.
EXTRA_COLUMNS = ["context", "status_reason"]

#: Columns that describe a row without being part of its configuration: the published tables'
#: source, caption, printed text and notes, their column labels, the reason of a failure, and
#: the decimals a value was written with (added when reading a reference).
ANNOTATIONS = ["source", "table", "printed", "note", "column", "column_label", "status_reason", "value_decimals"]

#: Dimensions whose values are whole numbers (sorted and scaled as numbers, not text).
NUMERIC_DIMENSIONS = ["nodes", "ranks", "threads"]


def dimension_columns(columns) -> list:
    """The configuration columns of any tidy file, ours or published: every column that is not
    the measurement, provenance or an annotation (so `processor` or `compiler_flags` count too)."""
    not_dimensions = set(MEASURE) | set(PROVENANCE) | set(ANNOTATIONS)
    return [c for c in columns if c not in not_dimensions]
