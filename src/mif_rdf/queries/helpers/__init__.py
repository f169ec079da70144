"""The query helpers (moving into modules by what they ask; see :mod:`.temporal` for now)."""

from mif_rdf.queries.helpers.temporal import TRUST_LEVELS as TRUST_LEVELS
from mif_rdf.queries.helpers.temporal import GraphLike as GraphLike
from mif_rdf.queries.helpers.temporal import Instant as Instant
from mif_rdf.queries.helpers.temporal import _moment as _moment
from mif_rdf.queries.helpers.temporal import _profile as _profile
from mif_rdf.queries.helpers.temporal import _time_value as _time_value
from mif_rdf.queries.helpers.temporal import conflicts as conflicts
from mif_rdf.queries.helpers.temporal import current_version as current_version
from mif_rdf.queries.helpers.temporal import decay_profiles as decay_profiles
from mif_rdf.queries.helpers.temporal import freshness as freshness
from mif_rdf.queries.helpers.temporal import memories_about as memories_about
from mif_rdf.queries.helpers.temporal import memories_between as memories_between
from mif_rdf.queries.helpers.temporal import memories_in_namespace as memories_in_namespace
from mif_rdf.queries.helpers.temporal import memories_of_class as memories_of_class
from mif_rdf.queries.helpers.temporal import memories_of_type as memories_of_type
from mif_rdf.queries.helpers.temporal import memories_with_tag as memories_with_tag
from mif_rdf.queries.helpers.temporal import memory_at_uri as memory_at_uri
from mif_rdf.queries.helpers.temporal import neighbours as neighbours
from mif_rdf.queries.helpers.temporal import recorded_by as recorded_by
from mif_rdf.queries.helpers.temporal import relationship_edges as relationship_edges
from mif_rdf.queries.helpers.temporal import supersession_chain as supersession_chain
from mif_rdf.queries.helpers.temporal import trusted as trusted
from mif_rdf.queries.helpers.temporal import valid_at as valid_at
