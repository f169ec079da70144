"""The ``mif-rdf`` command: :mod:`.main` parses the command line, :mod:`.commands` holds one module per subcommand."""

from mif_rdf.cli.main import main

__all__ = ["main"]
