"""`make bench`: the speed targets of issues 17 and 32, each measured on this machine, never asserted.

One module per figure (rows: the first analysis of 1,000,000 rows in a new process; dryrun:
`make dry-run` per experiment; overhead: Ramble's share of a smoke run; clone: a new clone ->
setup + smoke on a new machine and on a warm one; tests: make test and its slowest tests; ci:
.ci/run fresh and warm); record: the machine's facts and runs/bench/bench.csv; shell: commands
run and timed as a user runs them; __main__: the command."""
