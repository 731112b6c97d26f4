"""Spack v0.23.1 as the project runs it: one rule added for solving another system's environment
on this machine (Python loads this file at start-up; spack-python puts it on the path).

Spack learns each compiler's C library by running the compiler here (CompilerParser in
spack/solver/asp.py), and on Linux drops a compiler it cannot run. A site's compiler is not on
this machine, or is this machine's under the site's name (/usr/bin/gcc), so a paper system's
environment was either unsolvable or solved against this machine's glibc. The rule: when a
configured compiler is for another operating system than this machine's, its libc cannot be
learned by running it, so the solve goes as on Spack's platforms without libc detection, taking
the libc from the system's glibc external (configs/<system>/spack/packages.yaml). With this
machine's compilers only (configs/local), Spack is unchanged. So `spack -e
environments/<study>/<system> concretize -f` reproduces the committed lock with plain Spack.
"""

import importlib.abc
import importlib.util
import sys

_MODULE = "spack.solver.asp"


def _foreign_compiler() -> bool:
    import spack.compilers
    import spack.config
    import spack.platforms

    host = spack.platforms.host().default_os
    return any(c.operating_system != host for c in spack.compilers.all_compilers_from(spack.config.CONFIG))


def _patch(asp):
    on_linux = asp.using_libc_compatibility

    def using_libc_compatibility() -> bool:
        return on_linux() and not _foreign_compiler()

    asp.using_libc_compatibility = using_libc_compatibility


class _PatchOnImport(importlib.abc.MetaPathFinder):
    """Finds spack.solver.asp as usual, then applies the rule once the module has run."""

    def find_spec(self, name, path, target=None):
        if name != _MODULE:
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(name)
        finally:
            sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            _patch(module)

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, _PatchOnImport())
