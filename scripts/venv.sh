#!/usr/bin/env bash
# A project venv, made again only when its inputs changed (a stamp holds their hash).
#   scripts/venv.sh                      .venv: clingo for Spack, Ramble's runtime deps, the
#                                        analysis layer (installed editable) and pytest
#   scripts/venv.sh DIR REQUIREMENTS     another venv from another pin list (e.g. .venv-hpctoolkit)
# The machine keeps one venv per pin list and Python ($HPCAAS_CACHE/venvs/<hash>): made once by
# uv (its downloads kept in $HPCAAS_CACHE/uv), relocatable, byte-compiled (a new process imports
# pandas without compiling it: PYTHONDONTWRITEBYTECODE would make every process compile it
# again). A clone's venv is a hard-linked copy of it, plus the project installed editable.
source "$(dirname "$0")/lib.sh"

venv=${1:-$VENV}
req=${2:-$HPCAAS_ROOT/requirements.txt}
uv_req=$HPCAAS_ROOT/requirements-uv.txt
python=$(python3 -c 'import sys; print(sys.executable)') || die "no python3 on PATH (Debian: apt-get install python3-venv)"
# What the machine's venv is made of: the pins, the Python, uv and this recipe.
base_key=$({ cat "$req" "$uv_req" "$0"; "$python" -VV; echo "$python"; } | sha256sum | cut -c1-16)
inputs=("$req"); [ $# -eq 0 ] && inputs+=("$HPCAAS_ROOT/pyproject.toml")
want=$({ cat "${inputs[@]}"; echo "$base_key"; } | sha256sum | cut -d' ' -f1)
stamp=$venv/.requirements.sha256
# One maker at a time (tests in parallel ask for the same venv): a second one waits, then finds
# the stamp; without the lock it could run pip before the first's venv had it.
mkdir -p "$(dirname "$venv")"
exec 9<"$(dirname "$venv")"
flock 9
[ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && exit 0

export UV_CACHE_DIR=$HPCAAS_CACHE/uv UV_PYTHON_DOWNLOADS=never UV_NO_PROGRESS=1
# A package index set for pip is uv's too.
[ -n "${PIP_INDEX_URL:-}" ] && export UV_DEFAULT_INDEX=${UV_DEFAULT_INDEX:-$PIP_INDEX_URL}

# uv itself, once per machine, by pip from its hash-pinned wheel.
uv_dir=$HPCAAS_CACHE/tools/uv-$(sha256sum "$uv_req" | cut -c1-16)
uv=$uv_dir/bin/uv
mkdir -p "$HPCAAS_CACHE/tools" "$HPCAAS_CACHE/venvs"
exec 8>"$uv_dir.lock"
flock 8
if [ ! -x "$uv" ]; then
    say "installing uv (once for this machine: $uv_dir)"
    rm -rf "$uv_dir"
    "$python" -m venv "$uv_dir" &&
        "$uv_dir/bin/pip" install -q --disable-pip-version-check --require-hashes -r "$uv_req" || {
        rm -rf "$uv_dir"
        die "pip could not install uv from $uv_req (is PyPI reachable, or a PIP_INDEX_URL mirror set?)"
    }
fi
flock -u 8

# The machine's venv for these pins.
base=$HPCAAS_CACHE/venvs/$(basename "$req" .txt)-$base_key
exec 8>"$base.lock"
flock 8
if [ ! -f "$base/.complete" ]; then
    say "creating the machine's venv of $(basename "$req") (once for this machine: $base)"
    rm -rf "$base.tmp" "$base"
    "$uv" venv -q --relocatable --python "$python" "$base.tmp" &&
        "$uv" pip install -q --python "$base.tmp/bin/python" --compile-bytecode -r "$req" || {
        rm -rf "$base.tmp"
        die "uv could not install $req (is PyPI reachable, or a PIP_INDEX_URL mirror set?)"
    }
    touch "$base.tmp/.complete"
    mv "$base.tmp" "$base"
fi
flock -u 8

say "creating $(basename "$venv") from $(basename "$req") (a copy of $base)"
rm -rf "$venv.tmp"
# Hard links: seconds for the ~10,000 files. Nothing rewrites a file of a venv in place (an
# install or a byte-compile writes a new file), so the copies stay independent.
cp -al "$base" "$venv.tmp" 2>/dev/null || { rm -rf "$venv.tmp" && cp -a "$base" "$venv.tmp"; } ||
    die "cannot copy $base to $venv.tmp"
rm -f "$venv.tmp/.complete"
if [ $# -eq 0 ]; then
    "$uv" pip install -q --python "$venv.tmp/bin/python" --no-deps --no-build-isolation -e "$HPCAAS_ROOT" || {
        rm -rf "$venv.tmp"
        die "uv could not install the project itself (pyproject.toml)"
    }
fi
rm -rf "$venv"
mv "$venv.tmp" "$venv"
echo "$want" > "$stamp"
