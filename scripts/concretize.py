"""Spack's solve, as the project runs it (under `spack python`):
- `spack -e <dir> python scripts/concretize.py`: the active environment solved again and its
  spack.lock written (make concretize, and the slow tier's re-solve of every committed lock);
- `spack python scripts/concretize.py SPEC OUT`: SPEC solved, as JSON in OUT (tests/testkit.solved).

Spack v0.23.1 on Linux drops every compiler it cannot run here (it runs each one to learn its
libc: CompilerParser in solver/asp.py), and a site's compilers do not exist here. So a paper
system's solve (any HPCAAS_SYSTEM but local, whose compilers are this machine's) turns that libc
detection off, as Spack has it off on its other platforms; gcc builds take their libc from the
glibc external of the system's packages.yaml instead."""

import os
import sys

import spack.environment as ev
import spack.solver.asp
import spack.spec

if os.environ.get("HPCAAS_SYSTEM", "local") != "local":
    spack.solver.asp.using_libc_compatibility = lambda: False

if len(sys.argv) == 3:
    spec, out = sys.argv[1:]
    with open(out, "w") as f:
        f.write(spack.spec.Spec(spec).concretized().to_json())
    sys.exit(0)

env = ev.active_environment()
with env.write_transaction():
    env.concretize(force=True)
    env.write()
for root in env.concrete_roots():
    mpi = [d.format("^{name}{@version}") for d in root.traverse() if d.package.provides("mpi")]
    print("  ", root.format("{name}{@version}{%compiler} {arch=architecture}"), *mpi[:1])
