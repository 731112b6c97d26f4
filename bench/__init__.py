"""`make bench`: the speed targets of issue 17, each measured on this machine, never asserted.

One module per figure (rows: the analysis of 1,000,000 rows; dryrun: `make dry-run` per
experiment; overhead: Ramble's share of a smoke run; clone: fresh clone -> setup + smoke);
record: the machine's facts and runs/bench/bench.csv; __main__: the command."""
