"""make validate / make baseline: the validation suite on every node at once, each node judged part
by part against the hardware's limits, its peers and the baseline (cli.py says how)."""
