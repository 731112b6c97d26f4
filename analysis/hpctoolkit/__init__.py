"""HPCToolkit databases (from the `hpctoolkit` Ramble modifier) as per-function tables.

`python -m analysis.hpctoolkit <database> [-o table.csv] [--top N]`. hatchet reads the
database; it runs in its own venv (.venv-hpctoolkit, requirements-hpctoolkit.txt), which the
command makes and re-executes itself under when hatchet is not importable here.
"""
