#!/usr/bin/env bash
# .venv-hpctoolkit: the interpreter of `python -m analysis.hpctoolkit`, with hatchet and the
# pins of requirements-hpctoolkit.txt (numpy < 2), apart from the project venv.
root=$(cd "$(dirname "$0")/../.." && pwd)
exec "$root/scripts/venv.sh" "$root/.venv-hpctoolkit" "$root/requirements-hpctoolkit.txt"
