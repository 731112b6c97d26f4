"""hpcaas-bench's own commands: systems, studies (render, check, report) and the Spack inputs
that locks and provenance record. The analysis of results is the `analysis` package."""
