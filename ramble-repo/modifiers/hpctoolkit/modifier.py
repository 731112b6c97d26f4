import os

import yaml
from ramble.modkit import *

# The spec is written once, in the project's environments/hpctoolkit (Ramble loads this file
# without __file__, so the project is found as its commands find it: $HPCAAS_ROOT).
_ENV = os.path.join(os.environ.get("HPCAAS_ROOT", "."), "environments", "hpctoolkit", "spack.yaml")
if not os.path.isfile(_ENV):
    raise RuntimeError(f"hpctoolkit modifier: {_ENV}: not found; run Ramble from the project (. ./setup-env.sh)")
with open(_ENV) as _f:
    HPCTOOLKIT_SPEC = yaml.safe_load(_f)["spack"]["specs"][0]["matrix"][0][0]


class Hpctoolkit(BasicModifier):
    """Profile an experiment's MPI executables with HPCToolkit.

    Each MPI executable runs under `hpcrun` (after the launcher: `mpirun -n 2 hpcrun ... app`),
    then `hpcstruct` and `hpcprof` turn the measurements into a database. Ramble's results
    record its path (the context of the `hpctoolkit profiles` FOM, which counts the profiles it
    was made from) and `ramble workspace archive` keeps its files. Read it with
    `python -m analysis.hpctoolkit <database>`.

    One MPI executable per experiment writes to the default directories; with several, put
    `{executable_name}` in `hpctoolkit_measurements_dir` and `hpctoolkit_database_dir`.
    """

    name = "hpctoolkit"

    tags("profiler", "performance-analysis")

    maintainers("hpcaas-bench")

    mode("standard", description="Profile every MPI executable, then build one database")
    default_mode("standard")

    modifier_variable(
        "hpctoolkit_events",
        default="-e CPUTIME",
        description="hpcrun event list, e.g. '-e CPUTIME' or '-e CPUTIME -e PAPI_TOT_CYC' "
        "(analysis.hpctoolkit reads the CPUTIME metric)",
        mode="standard",
    )
    modifier_variable(
        "hpctoolkit_measurements_dir",
        default="{experiment_run_dir}/hpctoolkit-measurements",
        description="Directory hpcrun writes its measurements to (hpcrun -o)",
        mode="standard",
    )
    modifier_variable(
        "hpctoolkit_database_dir",
        default="{experiment_run_dir}/hpctoolkit-database",
        description="Directory hpcprof writes the database to (hpcprof -o)",
        mode="standard",
    )
    modifier_variable(
        "hpctoolkit_log",
        default="{experiment_run_dir}/hpctoolkit.log",
        description="Output of hpcstruct and hpcprof, kept out of the application's own log",
        mode="standard",
    )

    # The spec environments/hpctoolkit builds (written there once; 2024.01.1 is a full upstream
    # commit in spack-repo/packages/hpctoolkit). Ramble's concretize adds this package to every
    # environment of an experiment that uses the modifier; `hpcaas render --profile hpctoolkit`
    # does so for a study.
    software_spec("hpctoolkit", pkg_spec=HPCTOOLKIT_SPEC, package_manager="spack*")
    required_package("hpctoolkit", package_manager="spack*")

    executable_modifier("profile_mpi_executable")

    def profile_mpi_executable(self, executable_name, executable, app_inst=None):
        """Prefix each MPI command with hpcrun; clean before it, build the database after it."""
        from ramble.util.executable import CommandExecutable

        if not executable.mpi:  # serial helpers (input writers, copies) are not profiled
            return [], []

        # The template is what follows the launcher, so hpcrun lands after `mpirun -n N`.
        executable.template = [
            "hpcrun {hpctoolkit_events} -o {hpctoolkit_measurements_dir} " + part for part in executable.template
        ]
        # hpcrun and hpcprof add to directories that exist: a rerun must start empty, or it
        # would mix two runs' measurements in one database.
        clean = CommandExecutable(
            f"hpctoolkit-clean-{executable_name}",
            template=["rm -rf {hpctoolkit_measurements_dir} {hpctoolkit_database_dir}"],
            mpi=False,
            redirect="",
            output_capture="",
        )
        analyze = CommandExecutable(
            f"hpctoolkit-database-{executable_name}",
            template=[
                "hpcstruct {hpctoolkit_measurements_dir}",
                "hpcprof -o {hpctoolkit_database_dir} {hpctoolkit_measurements_dir}",
                # Printed only when hpcprof made the database: its path and how many profiles
                # (one per rank and thread) it was made from.
                'test -d {hpctoolkit_database_dir} && echo "HPCToolkit database: '
                '{hpctoolkit_database_dir} ($(ls {hpctoolkit_measurements_dir}/*.hpcrun | wc -l) profiles)"',
            ],
            mpi=False,
            redirect="{hpctoolkit_log}",
        )
        return [clean], [analyze]

    # The path is the FOM's context, not its value: hpcaas-analyze collect fails an experiment
    # whose FOM is not a number. The path is also in the results as hpctoolkit_database_dir.
    figure_of_merit_context(
        "hpctoolkit database",
        regex=r"^HPCToolkit database: (?P<path>\S+) \(\d+ profiles\)",
        output_format="{path}",
    )
    figure_of_merit(
        "hpctoolkit profiles",
        fom_regex=r"^HPCToolkit database: \S+ \((?P<profiles>\d+) profiles\)",
        group_name="profiles",
        units="",
        log_file="{hpctoolkit_log}",
        contexts=["hpctoolkit database"],
    )

    # The database, not the raw measurements: meta.db/profile.db/cct.db from hpcprof >= 2022.10,
    # experiment.xml and *.metric-db from older ones. Its src/ copy of the sources is left out.
    archive_pattern("{hpctoolkit_database_dir}/*.db")
    archive_pattern("{hpctoolkit_database_dir}/experiment.xml")
    archive_pattern("{hpctoolkit_database_dir}/*.metric-db")
