"""Figures of merit and workload variables as tables, the Spack package, an input written in the
experiment: one call where an application would otherwise repeat a directive."""

from ramble.appkit import figure_of_merit, required_package, software_spec, workload_variable


def figures_of_merit(*foms, **shared):
    """A figure of merit for each row of `foms`, (name, fom_regex, group_name, units) less what
    the keywords give every row (e.g. fom_regex=TIMING: rows (name, group_name, units); also
    log_file, contexts)."""
    columns = [column for column in ("fom_regex", "group_name", "units") if column not in shared]
    for name, *values in foms:
        if len(values) != len(columns):
            raise ValueError(f"figure of merit {name!r}: {len(values)} values for {columns}")
        figure_of_merit(name, **dict(zip(columns, values)), **shared)


def workload_variables(*variables, **where):
    """A workload variable for each (name, default, description) of `variables`, in the
    workloads the keywords name (workload, workloads or workload_group)."""
    for name, default, description in variables:
        workload_variable(name, default=default, description=description, **where)


def spack_package(name, pkg_spec):
    """The Spack package the application runs, required, at its pinned spec (no compiler and no
    MPI: README item 2)."""
    software_spec(name, pkg_spec=pkg_spec, package_manager="spack*")
    required_package(name, package_manager="spack*")


def printf_command(lines, path):
    """The shell command that writes `lines` to `path` (an input written in the experiment)."""
    return "printf '%s\\n' " + " ".join(f"'{line}'" for line in lines) + f" > {path}"
