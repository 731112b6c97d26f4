"""This repository's application kit: what its applications declare alike, written once
(ramble-repo/README.md item 10). Every application imports it after Ramble's appkit:

    from ramble.appkit import *
    from hpcaas_kit import *

Ramble's place for shared application code is a base application, but at the pinned commit Ramble
imports one only from a repository listed in base_application_repos, a list its own
known-applications test replaces with the builtin repository alone. This package is on the Python
path of every Ramble this project runs instead (the project's venv installs it: pyproject.toml), so
Ramble's commands, `make foms` and Ramble's own tests load it alike."""

from hpcaas_kit.criteria import CRASHES, absent, log_criteria
from hpcaas_kit.patterns import LOG, NUM, RESULTS, UNSIGNED
from hpcaas_kit.results import ResultIdentity
from hpcaas_kit.tables import figures_of_merit, printf_command, spack_package, workload_variables

__all__ = [
    "CRASHES",
    "LOG",
    "NUM",
    "RESULTS",
    "ResultIdentity",
    "UNSIGNED",
    "absent",
    "figures_of_merit",
    "log_criteria",
    "printf_command",
    "spack_package",
    "workload_variables",
]
