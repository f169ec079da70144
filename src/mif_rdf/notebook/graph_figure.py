"""The relationship graph of a bundle as a picture: which memories and entities link, and how.

::

    from mif_rdf import load_bundle
    from mif_rdf.notebook.graph_figure import relationship_figure

    relationship_figure(load_bundle("examples"))  # a matplotlib Figure; Jupyter shows it

Each memory and entity is a box holding its full title (wrapped), coloured
by base type (entities grey); each relationship is an arrow coloured by its
type; two legends name the colours.  The layout is built for reading, not
for physics: the graph is cut into clusters (modularity communities), each
cluster is laid out on its own and the clusters sit side by side on a
circle, then boxes that still overlap are pushed apart.  The picture is laid
out in inches, so a label's size is known before it is drawn and the figure
grows with the bundle instead of shrinking the text.  It suits bundles of a
few dozen nodes; larger ones are better explored with the query helpers.

Needs matplotlib and networkx (``pip install 'mif-rdf[notebook]'``); they are
imported when a figure is drawn, so this module imports without them.
"""

from __future__ import annotations

import math
import textwrap
from itertools import combinations
from typing import TYPE_CHECKING, Any

from mif_rdf.core.errors import MifRdfError
from mif_rdf.queries import compact_iri, memories_of_type, relationship_edges
from mif_rdf.source.identity import BASE_TYPES

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from mif_rdf.queries.helpers.parameters import GraphLike

__all__ = ["relationship_figure"]

#: Box colours by base type; entities (and nodes of no base type) are :data:`ENTITY_COLOUR`.
TYPE_COLOURS = {"semantic": "#4c72b0", "episodic": "#dd8452", "procedural": "#55a868"}
ENTITY_COLOUR = "#8c8c8c"
#: Relationship colours, given in order of first use (sorted relationship names).
RELATIONSHIP_COLOURS = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#bcbd22",
    "#ff7f0e",
    "#7f7f7f",
    "#393b79",
    "#637939",
    "#8c6d31",
    "#843c39",
    "#7b4173",
)
#: Characters per line of a wrapped title.
WRAP = 20
FONT_SIZE = 9
#: Inches kept free between two boxes.
GAP = 0.3
#: A cluster's area over the area of its boxes: the free room its arrows run through.
ROOM = 3.5
#: Inches between two clusters.
CLUSTER_GAP = 2.5
#: Legend measures in inches at :data:`FONT_SIZE`: a line, where the relationship legend starts, one of its columns.
_LEGEND_ROW = 0.22
_EDGE_LEGEND_AT = 2.2
_EDGE_LEGEND_COLUMN = 1.7
_MIN_WIDTH = 8.0
_MARGIN = 0.4


def relationship_figure(graph: GraphLike, *, wrap: int = WRAP, font_size: float = FONT_SIZE) -> Figure:
    """The relationship graph of ``graph`` (a bundle or any graph the query helpers take) as a Figure.

    Nodes are what :func:`~mif_rdf.queries.relationship_edges` returns (every
    memory or entity at either end of a direct relationship), labelled with
    their full title wrapped at ``wrap`` characters.  The figure is not
    registered with pyplot, so a notebook shows it once, as the cell's value.
    """
    try:
        import networkx as nx
        from matplotlib.figure import Figure
        from matplotlib.patches import FancyArrowPatch, Rectangle
    except ImportError:
        raise MifRdfError(
            "the relationship figure needs matplotlib and networkx: pip install 'mif-rdf[notebook]'"
        ) from None

    kinds = {row["memory"]: kind for kind in BASE_TYPES for row in memories_of_type(graph, kind)}
    network = nx.MultiDiGraph()
    for edge in relationship_edges(graph):
        network.add_node(edge["source"], label=edge["source_label"])
        network.add_node(edge["target"], label=edge["target_label"])
        network.add_edge(
            edge["source"], edge["target"], relationship=compact_iri(edge["relationship"]).removeprefix("mif:")
        )
    if not network:
        raise MifRdfError("no relationships between memories or entities to draw")
    relationships = sorted({name for *_, name in network.edges(data="relationship")})
    edge_colours = {name: RELATIONSHIP_COLOURS[i % len(RELATIONSHIP_COLOURS)] for i, name in enumerate(relationships)}

    labels = {node: textwrap.fill(str(network.nodes[node]["label"]), wrap) for node in network}
    sizes = _label_sizes(labels, font_size)
    positions = _spread(_cluster_layout(nx, nx.Graph(network.to_undirected()), sizes), sizes)

    left = min(x - sizes[n][0] / 2 for n, (x, _) in positions.items()) - _MARGIN
    right = max(x + sizes[n][0] / 2 for n, (x, _) in positions.items()) + _MARGIN
    bottom = min(y - sizes[n][1] / 2 for n, (_, y) in positions.items()) - _MARGIN
    top = max(y + sizes[n][1] / 2 for n, (_, y) in positions.items()) + _MARGIN
    if right - left < _MIN_WIDTH:  # centred in a figure wide enough for the legends
        left, right = (left + right - _MIN_WIDTH) / 2, (left + right + _MIN_WIDTH) / 2
    width, height = right - left, top - bottom
    scale = font_size / FONT_SIZE
    node_handles, edge_handles = _legend_handles(network, kinds, edge_colours)
    fits = max(1, int((width - _EDGE_LEGEND_AT * scale) / (_EDGE_LEGEND_COLUMN * scale)))
    columns = max(1, min(fits, math.ceil(len(edge_handles) / max(len(node_handles), 1))))
    rows = max(len(node_handles), math.ceil(len(edge_handles) / columns))
    band = (rows + 2) * _LEGEND_ROW * scale  # room under the graph for the two legends
    figure = Figure(figsize=(width, height + band))
    axes = figure.add_axes((0, band / (height + band), 1, height / (height + band)))
    axes.set_xlim(left, right)
    axes.set_ylim(bottom, top)  # one data unit is one inch: the sizes measured above hold
    axes.set_axis_off()
    legend_top = band / (height + band)
    figure.legend(
        handles=node_handles,
        title="memory type",
        loc="upper left",
        bbox_to_anchor=(0.1 * scale / width, legend_top),
        fontsize=font_size,
        title_fontsize=font_size,
        alignment="left",
        frameon=False,
    )
    figure.legend(
        handles=edge_handles,
        title="relationship",
        loc="upper left",
        bbox_to_anchor=(_EDGE_LEGEND_AT * scale / width, legend_top),
        ncols=columns,
        fontsize=font_size,
        title_fontsize=font_size,
        alignment="left",
        frameon=False,
    )

    outlines = {}
    for node, (x, y) in positions.items():
        colour = TYPE_COLOURS.get(kinds.get(node, ""), ENTITY_COLOUR)
        text = axes.text(
            x,
            y,
            labels[node],
            fontsize=font_size,
            ha="center",
            va="center",
            zorder=3,
            bbox={"boxstyle": "round,pad=0.3", "facecolor": _tint(colour), "edgecolor": colour, "linewidth": 1.5},
        )
        text.set_gid(str(node))
        # the box in data units (inches), for clipping the arrows: a text's own box is placed only
        # when it is drawn, for the dpi of that drawing, after the arrows beneath it
        w, h = sizes[node]
        outlines[node] = Rectangle((x - w / 2, y - h / 2), w, h, transform=axes.transData)
    for source, target, relationship in network.edges(data="relationship"):
        axes.add_patch(
            FancyArrowPatch(
                positions[source],
                positions[target],
                patchA=outlines[source],
                patchB=outlines[target],
                arrowstyle="-|>",
                mutation_scale=14,
                connectionstyle="arc3,rad=0.12",
                color=edge_colours[relationship],
                linewidth=1.4,
                alpha=0.85,
                zorder=2,
            )
        )
    return figure


def _legend_handles(network: Any, kinds: dict[Any, str], edge_colours: dict[str, str]) -> tuple[list[Any], list[Any]]:
    """The legend entries: each base type drawn (and ``entity``), then each relationship type."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    drawn = {kinds.get(node, "entity") for node in network}
    colours = {**TYPE_COLOURS, "entity": ENTITY_COLOUR}
    nodes = [
        Patch(
            facecolor=_tint(colours[kind]),
            edgecolor=colours[kind],
            label=kind if kind == "entity" else f"{kind} memory",
        )
        for kind in (*BASE_TYPES, "entity")
        if kind in drawn
    ]
    edges = [Line2D([], [], color=colour, linewidth=2, label=name) for name, colour in edge_colours.items()]
    return nodes, edges


def _tint(colour: str) -> tuple[float, float, float]:
    """``colour`` mixed with three parts white: a box fill the black text reads on."""
    from matplotlib.colors import to_rgb

    red, green, blue = to_rgb(colour)
    return 0.25 * red + 0.75, 0.25 * green + 0.75, 0.25 * blue + 0.75


def _label_sizes(labels: dict[Any, str], font_size: float) -> dict[Any, tuple[float, float]]:
    """Width and height in inches of each label's box (text, padding and border)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure()
    renderer = FigureCanvasAgg(figure).get_renderer()
    pad = 2 * 0.3 * font_size / 72
    sizes = {}
    for node, label in labels.items():
        box = figure.text(0, 0, label, fontsize=font_size).get_window_extent(renderer)
        sizes[node] = (box.width / figure.dpi + pad, box.height / figure.dpi + pad)
    return sizes


def _cluster_layout(nx: Any, network: Any, sizes: dict[Any, tuple[float, float]]) -> dict[Any, tuple[float, float]]:
    """Positions in inches: each modularity community laid out alone, the communities around a circle.

    A community's radius grows with the room its labels need; the circle
    carrying the communities is just long enough for them to sit side by side.
    """
    communities = sorted(
        (sorted(c, key=str) for c in nx.community.greedy_modularity_communities(network)),
        key=lambda c: (-len(c), str(c[0])),
    )
    radii = [math.sqrt(sum(sizes[n][0] * sizes[n][1] for n in c) * ROOM / math.pi) for c in communities]
    ring = sum(2 * r + CLUSTER_GAP for r in radii) / (2 * math.pi) if len(communities) > 1 else 0.0
    positions: dict[Any, tuple[float, float]] = {}
    angle = math.pi / 2
    for community, radius in zip(communities, radii):
        step = (2 * radius + CLUSTER_GAP) / (2 * ring) if ring else 0.0
        angle -= step
        centre = (ring * math.cos(angle), ring * math.sin(angle))
        angle -= step
        cluster = nx.Graph()  # nodes in a fixed order: the seeded start positions are handed out in node order
        cluster.add_nodes_from(community)
        cluster.add_edges_from(network.subgraph(community).edges())
        local = nx.spring_layout(cluster, seed=7, scale=radius, center=centre)
        positions.update({node: (float(x), float(y)) for node, (x, y) in local.items()})
    return positions


def _spread(
    positions: dict[Any, tuple[float, float]], sizes: dict[Any, tuple[float, float]], rounds: int = 500
) -> dict[Any, tuple[float, float]]:
    """Push apart every two boxes closer than :data:`GAP`, each by half, along the axis that needs less."""
    points = {node: list(xy) for node, xy in positions.items()}
    for _ in range(rounds):
        moved = False
        for a, b in combinations(sorted(points, key=str), 2):
            (xa, ya), (xb, yb) = points[a], points[b]
            need_x = (sizes[a][0] + sizes[b][0]) / 2 + GAP - abs(xb - xa)
            need_y = (sizes[a][1] + sizes[b][1]) / 2 + GAP - abs(yb - ya)
            if need_x <= 0 or need_y <= 0:
                continue
            moved = True
            if need_x < need_y:
                shift = (need_x / 2 + 1e-3) * (1 if xb >= xa else -1)
                points[a][0] -= shift
                points[b][0] += shift
            else:
                shift = (need_y / 2 + 1e-3) * (1 if yb >= ya else -1)
                points[a][1] -= shift
                points[b][1] += shift
        if not moved:
            break
    return {node: (x, y) for node, (x, y) in points.items()}
