# hpcaas-bench: reproducible HPC benchmarking with Spack and Ramble.  `make help` lists targets.
SHELL := /bin/bash
SYSTEM ?= local
STUDY ?= smoke
SCALE ?= paper
export HPCAAS_SYSTEM := $(SYSTEM)
PYTHON := .venv/bin/python
# The project's commands, from the venv `make setup` makes.
HPCAAS = $(if $(wildcard .venv/bin/hpcaas),.venv/bin/hpcaas,$(error run 'make setup' first))

.DEFAULT_GOAL := help
.PHONY: help setup system systems mirror smoke catalog run reproduce dry-run concretize validate baseline test test-long test-locks test-slow lint readme expectations bench clean foms profile slurm-up slurm-down

help: ## List the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

setup: ## Clone pinned Spack + Ramble, make the venv, configure both, fill the source mirror (idempotent)
	@scripts/setup.sh

system: ## Describe this machine as configs/local/, or a cluster by probing its nodes: make system SYSTEM=<name> SCHEDULER=slurm [PARTITION=<p>]
	@scripts/make-system.sh $(if $(SCHEDULER),--scheduler $(SCHEDULER) $(if $(PARTITION),--partition $(PARTITION)) $(SYSTEM))

systems: ## Table of every system in configs/: cores/node, target, network, R_peak per node, price per node-hour
	@.venv/bin/hpcaas systems table

mirror: ## Fill mirror/: Debian's pristine upstream tarballs of the sources Spack builds, and Ramble inputs from pinned git commits
	@scripts/mirror.sh

smoke: ## The main job: HPCC built by Spack, {openmpi, mpich} x {1, 2} ranks -> runs/<system>/paper/smoke/latest/results.csv
	@$(HPCAAS) run smoke $(SYSTEM)

catalog: ## Build every application from its pinned source and run its smallest workload: make catalog [TIER=fast]
	@$(HPCAAS) catalog run $(SYSTEM) --tier $(or $(TIER),all)

run: ## Run any study: make run STUDY=<ramble-workspaces/ folder> [SYSTEM=<configs/ folder>] [SCALE=paper|small] [SET='var=value;...']
	@$(HPCAAS) run $(STUDY) $(SYSTEM) --scale $(SCALE) --set "$(SET)"

reproduce: ## A study end to end with its report: make reproduce STUDY=<study> SYSTEM=<system> [SCALE=paper|small] [PROFILE=hpctoolkit]
	@$(HPCAAS) reproduce $(STUDY) $(SYSTEM) --scale $(SCALE) $(if $(PROFILE),--profile $(PROFILE))

dry-run: ## A study's experiments on a system, generated not run: make dry-run STUDY=<study> SYSTEM=<system> [SCALE=...]
	@$(HPCAAS) dry-run $(STUDY) $(SYSTEM) --scale $(SCALE)

concretize: ## Solve a study's Spack environment for a system into environments/: make concretize SYSTEM=<s> ENV=<study> (STALE=1: every stale pair)
	@$(if $(STALE),$(HPCAAS) concretize --stale -j $$(nproc),$(HPCAAS) concretize $(SYSTEM) $(ENV))

validate: ## Each node of an allocation at once, judged part by part (compute, memory, network, I/O): make validate SYSTEM=<s> [NODES=all|<count>] [FAULT=<node>:<fault>] [BASELINE=<csv>] [SCALE=paper|small]
	@$(PYTHON) -m hpcaas.validate $(SYSTEM) --scale $(SCALE) $(VALIDATE_ARGS)

baseline: ## Run the validation suite and keep it as the system's baseline: make baseline SYSTEM=<s> [BASELINE=<csv>] [NODES=...]
	@$(PYTHON) -m hpcaas.validate --write-baseline $(SYSTEM) --scale $(SCALE) $(VALIDATE_ARGS)

VALIDATE_ARGS = $(if $(NODES),--nodes '$(NODES)') $(if $(FAULT),--fault '$(FAULT)') $(if $(BASELINE),--baseline '$(BASELINE)') $(if $(SET),--set '$(SET)')

test: ## Lint, then the test suite (unit tests, FOMs on real logs, dry-runs, the smoke study and real runs on this machine)
	@scripts/setup.sh
	@scripts/lint.sh
	@scripts/test.sh

test-long: ## The long tier: studies, validation gates and the probed system through the Slurm cluster
	@scripts/setup.sh
	@scripts/test.sh --tier long

test-locks: ## Solve every committed Spack lock again (CI runs it when a Spack input changed since the last lock)
	@scripts/setup.sh
	@$(PYTHON) -m pytest -m slow tests/environments

test-slow: ## The slow tier: every committed Spack lock solved again; HPCToolkit's hpcrun on a real MPI program; the catalog built and run
	@scripts/setup.sh
	@$(PYTHON) -m pytest -m slow

expectations: ## Regenerate tests/studies/<study>.yaml from the paper dry-runs and print the difference [STUDY=] [CHECK=1: print only]
	@$(HPCAAS) study expectations $(if $(CHECK),,--write) $(STUDY)

readme: ## Render each study's README.md from its study.yaml (question, notes, fidelity table, conclusions)
	@$(PYTHON) -m hpcaas study readme

lint: ## Formatting and lint: ruff (format + check), shellcheck, codespell
	@scripts/lint.sh

bench: ## Measure the speed targets -> runs/bench/bench.csv: first analysis of 1M rows, dry-run per experiment, Ramble overhead [FULL=1: + new clone setup+smoke, make test] [CI=1: + .ci/run fresh and warm] [SENSITIVITY=1: + the validation gates' sensitivity, hours]; prints the sensitivity table
	@$(PYTHON) -m bench $(if $(FULL),--full) $(if $(CI),--ci) $(if $(SENSITIVITY),--sensitivity)

clean: ## Remove the runs (runs/: workspaces, results, reports) and any generated state (keeps tools, venv, Spack installs and every tracked file)
	@git clean -q -d -f -X -- runs results dry-runs ramble-workspaces

foms: ## FOMs a Ramble app extracts from a log: make foms APP=<app> LOG=<file> [WORKLOAD=<w>] [VARS='n_ranks=2']
	@test -n "$(APP)" -a -n "$(LOG)" || { echo "usage: make foms APP=<ramble application> LOG=<file> [WORKLOAD=<w>]" >&2; exit 2; }
	@. ./setup-env.sh && ramble python scripts/foms.py "$(APP)" "$(abspath $(LOG))" $(WORKLOAD) $(VARS)

profile: ## Per-function time of an HPCToolkit database: make profile DB=<database dir> [OUT=<csv>] [TOP=20]
	@test -n "$(DB)" || { echo "usage: make profile DB=<hpctoolkit database> [OUT=<csv>] [TOP=<n>]" >&2; exit 2; }
	@$(PYTHON) -m analysis.hpctoolkit "$(DB)" $(if $(OUT),-o "$(OUT)") --top $(or $(TOP),20)

slurm-up: ## Start this machine's own Slurm cluster (munged, slurmctld, slurmd x2) in .slurm/
	@slurm/up.sh

slurm-down: ## Stop the Slurm cluster started by slurm-up (by its own PIDs)
	@slurm/down.sh
