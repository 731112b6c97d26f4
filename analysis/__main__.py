"""python -m analysis: the hpcaas-analyze command line."""

import sys

from analysis.cli import main

sys.exit(main())
