"""The relationship-graph figure of a notebook (``from mif_rdf.graph_figure import relationship_figure``).

This public path stays for users; the figure is drawn in :mod:`mif_rdf.notebook.graph_figure`.
"""

from mif_rdf.notebook.graph_figure import relationship_figure as relationship_figure

__all__ = ["relationship_figure"]
