#!/usr/bin/env bash
# make lint (part of make test): formatting and lint of the whole tree. ruff formats and checks
# the Python (pyproject.toml [tool.ruff]), shellcheck the shell scripts, codespell the docs.
source "$(dirname "$0")/lib.sh"
cd "$HPCAAS_ROOT"
rc=0
"$VENV/bin/ruff" format --check --quiet . || { say "ruff format: run '.venv/bin/ruff format .'"; rc=1; }
"$VENV/bin/ruff" check --quiet . || rc=1
mapfile -t shells < <(git ls-files -- '*.sh' .ci/run)
shellcheck -x "${shells[@]}" || rc=1
mapfile -t texts < <(git ls-files -- '*.md' '*.py' '*.sh' '*.yaml')
"$VENV/bin/codespell" --quiet-level 2 "${texts[@]}" || rc=1
[ "$rc" -eq 0 ] || die "lint: see the messages above"
say "lint: clean"
