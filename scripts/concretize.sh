#!/usr/bin/env bash
# make concretize: concretize environments/ENV for configs/SYSTEM on this machine, offline (no
# source is fetched), and write environments/ENV/spack.lock. The lock is cached under
# $HPCAAS_CACHE/concretize/<key>, key = hash of every input (the environment, the system's Spack
# config, the project's Spack config and recipes, the Spack pin, this script), so a second run
# with unchanged inputs only copies it.
# Usage: scripts/concretize.sh SYSTEM ENV     (the last line printed is the cached lock's path)
source "$(dirname "$0")/lib.sh"
[ $# -eq 2 ] || die "usage: make concretize SYSTEM=<system> ENV=<environment> (pairs: environments/pairs.yaml)"
system=$1 name=$2
cd "$HPCAAS_ROOT"
sys_spack=configs/$system/spack
manifest=environments/$name/spack.yaml
[ -f "$sys_spack/compilers.yaml" ] || die "no system '$system': $sys_spack/compilers.yaml does not exist (systems: ls configs/)"
[ -f "$manifest" ] || die "no environment '$name': $manifest does not exist (environments: $(cd environments && echo */spack.yaml | sed 's|/spack.yaml||g'))"
[ -f setup-env.sh ] || die "run 'make setup' first"

# The axes an environment takes from the system (environments/README.md) must be in the
# system's definitions.yaml. Checked here so that a gap is one line, not a failed solve.
"$VENV/bin/python" - "$sys_spack" "$manifest" <<'PY' || exit 1
import os, re, sys, yaml
sys_spack, manifest = sys.argv[1:]
def fail(file, key, msg):
    sys.exit(f"[hpcaas] error: {file}: {key}: {msg}")
compilers = os.path.join(sys_spack, "compilers.yaml")
if not (yaml.safe_load(open(compilers)) or {}).get("compilers"):
    fail(compilers, "compilers", f"none listed, and {manifest} builds with the site's compilers")
system_axes = {"default_compiler", "compilers", "default_mpi", "mpis", "default_target", "targets"}
used = set(re.findall(r"\$[%^]?(\w+)", str(yaml.safe_load(open(manifest))["spack"]["specs"])))
axes = sorted(used & system_axes)
definitions = os.path.join(sys_spack, "definitions.yaml")
if not os.path.exists(definitions):
    fail(definitions, "definitions", f"file missing; {manifest} takes {', '.join(axes)} from it")
have = {name for d in yaml.safe_load(open(definitions))["definitions"] for name in d}
for axis in axes:
    if axis not in have:
        fail(definitions, f"definitions.{axis}", f"missing; {manifest} takes it from the system")
PY

source pins.env
mkdir -p "$HPCAAS_CACHE/concretize"
key=$({ echo "$system $name $SPACK_COMMIT"
        find "$manifest" "$sys_spack" spack-config spack-repo scripts/concretize.sh -type f \
             ! -name '*.pyc' ! -path '*/__pycache__/*' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
      } | sha256sum | cut -c1-32)
cache=$HPCAAS_CACHE/concretize/$key
if [ -f "$cache/spack.lock" ]; then
    say "$name on $system: unchanged inputs, lock from the cache"
else
    work=$(mktemp -d "$HPCAAS_CACHE/concretize/.work.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    cp "$manifest" "$work/spack.yaml"
    . ./setup-env.sh
    hpcaas_system "$system"
    say "$name on $system: concretizing (unify: false, one solve per spec)"
    t0=$(date +%s)
    # Spack v0.23.1 on Linux drops every compiler it cannot run here (it runs each one to learn
    # its libc: CompilerParser in solver/asp.py), and a site's compilers do not exist here. So
    # this run turns that libc detection off, as Spack has it off on its other platforms; gcc
    # builds take their libc from the glibc external of the system's packages.yaml instead.
    cat > "$work/concretize.py" <<'PY'
import sys
import spack.environment as ev
import spack.solver.asp
spack.solver.asp.using_libc_compatibility = lambda: False
manifest, system = sys.argv[1:]
env = ev.active_environment()
if not list(env.user_specs):
    sys.exit(f"[hpcaas] error: {manifest}: specs: none for {system}")
with env.write_transaction():
    env.concretize(force=True)
    env.write()
for root in env.concrete_roots():
    mpi = [d.format("^{name}{@version}") for d in root.traverse() if d.package.provides("mpi")]
    print("  ", root.format("{name}{@version}{%compiler} {arch=architecture}"), *mpi[:1])
PY
    spack -e "$work" python "$work/concretize.py" "$manifest" "$system"
    say "$name on $system: $(($(date +%s) - t0)) s"
    rm -rf "$work/.spack-env" "$work/concretize.py"
    mv -T "$work" "$cache" 2>/dev/null || rm -rf "$work"   # a parallel run may have won: same lock
    trap - EXIT
fi
cp "$cache/spack.lock" "environments/$name/spack.lock"
say "environments/$name/spack.lock: $name concretized for $system"
echo "$cache/spack.lock"
