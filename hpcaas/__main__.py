import sys

from hpcaas.cli import main

sys.exit(main())
