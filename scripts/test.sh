#!/usr/bin/env bash
# make test's suite (after setup and lint): every test but the slow tier, spread over this
# machine's cores by pytest-xdist (tests/conftest.py: which tests share state and run in one
# group), then the `exclusive` tests, which judge performance, alone. Exit 1 if either failed.
# Extra arguments go to both pytest runs (e.g. scripts/test.sh tests/slurm).
source "$(dirname "$0")/lib.sh"
cd "$HPCAAS_ROOT"
# At most 4 workers: the groups that share state bound what more workers could do at once.
workers=$(nproc); [ "$workers" -gt 4 ] && workers=4
# pytest's status 5 (no test selected) is no failure here: a folder may hold no exclusive test.
rc=0 r=0
"$VENV/bin/python" -m pytest -m "not slow and not exclusive" -n "$workers" --dist loadgroup "$@" || r=$?
[ "$r" -eq 0 ] || [ "$r" -eq 5 ] || rc=$r
r=0
"$VENV/bin/python" -m pytest -m "not slow and exclusive" "$@" || r=$?
[ "$r" -eq 0 ] || [ "$r" -eq 5 ] || rc=$r
exit "$rc"
