"""Spack's solve, as the project runs it (a program for `spack python`, not a module of hpcaas):
- `spack -e <dir> python hpcaas/spack_python/concretize.py`: the environment solved again and its
  spack.lock written (make concretize, a run's lock, the slow tier's re-solve of every lock);
- `spack python hpcaas/spack_python/concretize.py SPEC OUT`: SPEC solved, as JSON in OUT
  (tests/testkit.solved).

A system's compilers that are for another operating system than this machine's are solved
without Spack's libc detection (spack-config/python/sitecustomize.py), as `spack concretize` is."""

import sys

import spack.environment as ev
import spack.spec

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
