"""The ``mif-rdf`` command: :mod:`.main` parses the command line, :mod:`.commands` holds one module per subcommand.

``python -m mif_rdf.cli`` runs it too (:mod:`.__main__`).
"""
