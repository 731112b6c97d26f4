"""Solve the active Spack environment again and write its spack.lock (make concretize, and the
slow tier's re-solve of every committed lock): `spack -e <dir> python scripts/concretize.py`.

Spack v0.23.1 on Linux drops every compiler it cannot run here (it runs each one to learn its
libc: CompilerParser in solver/asp.py), and a site's compilers do not exist here. So the solve
turns that libc detection off, as Spack has it off on its other platforms; gcc builds take their
libc from the glibc external of the system's packages.yaml instead."""

import spack.environment as ev
import spack.solver.asp

spack.solver.asp.using_libc_compatibility = lambda: False
env = ev.active_environment()
with env.write_transaction():
    env.concretize(force=True)
    env.write()
for root in env.concrete_roots():
    mpi = [d.format("^{name}{@version}") for d in root.traverse() if d.package.provides("mpi")]
    print("  ", root.format("{name}{@version}{%compiler} {arch=architecture}"), *mpi[:1])
