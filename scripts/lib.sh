# shellcheck shell=bash disable=SC2034  # TOOLS, VENV: used by the scripts that source this
# Shared by the project's shell scripts: where things are, and how to fail.
# Sourced, not run.
set -euo pipefail
HPCAAS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HPCAAS_CACHE=${HPCAAS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hpcaas-bench}
TOOLS=$HPCAAS_ROOT/.tools
VENV=$HPCAAS_ROOT/.venv
export HPCAAS_ROOT HPCAAS_CACHE

say() { printf '[hpcaas] %s\n' "$*"; }
die() { printf '[hpcaas] error: %s\n' "$*" >&2; exit 1; }
# write_file FILE <<EOF ...: FILE gets stdin only when it differs, in one rename, so a Spack or
# Ramble running meanwhile (the tests run in parallel) never reads half a configuration.
write_file() {
    local tmp
    tmp=$(mktemp "$1.XXXXXX")
    cat >"$tmp"
    if cmp -s "$tmp" "$1"; then rm -f "$tmp"; else chmod 644 "$tmp" && mv -f "$tmp" "$1"; fi
}
