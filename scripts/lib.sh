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
