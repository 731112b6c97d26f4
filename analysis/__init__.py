"""hpcaas-bench analysis layer: Ramble results and published tables as one tidy CSV, and what
the studies derive from it (scaling, ratios, cost, correlation, gates, plots, reports)."""
