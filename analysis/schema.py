"""The tidy result schema shared by our runs and the published reference tables."""

#: Dimension columns: what configuration a number belongs to. Absent ones are left empty.
DIMENSIONS = [
    "system", "application", "workload", "dataset", "compiler", "mpi", "target", "fabric",
    "filesystem", "binding", "distribution", "variant", "nodes", "ranks", "threads",
]

#: The measurement itself.
MEASURE = ["metric", "value", "unit"]

#: Provenance of our own runs (published rows carry source/table/printed/note instead).
PROVENANCE = [
    "experiment", "status", "repeat", "spack_lock_hash", "project_commit",
    "system_config_hash", "timestamp",
]

RESULT_COLUMNS = ["experiment"] + [c for c in DIMENSIONS] + MEASURE + [
    c for c in PROVENANCE if c != "experiment"
]
