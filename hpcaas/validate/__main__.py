import sys

from hpcaas.validate.cli import main

sys.exit(main())
