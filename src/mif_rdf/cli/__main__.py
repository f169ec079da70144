"""``python -m mif_rdf.cli``: the ``mif-rdf`` command without its console script."""

import sys

from mif_rdf.cli.main import main

sys.exit(main())
