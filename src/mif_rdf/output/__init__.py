"""Everything that leaves a loaded bundle: serializers, the export policy, streamed and native export, conversion,
and write-back to the markdown files."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mif_rdf.core.lazy import lazy_names

if TYPE_CHECKING:  # the names a type checker sees; at run time __getattr__ imports each on first use
    from mif_rdf.output.convert import bundle_root_of as bundle_root_of
    from mif_rdf.output.convert import check_projections as check_projections
    from mif_rdf.output.convert import jsonld_files as jsonld_files
    from mif_rdf.output.convert import markdown_from_jsonld as markdown_from_jsonld
    from mif_rdf.output.convert import roundtrip_report as roundtrip_report
    from mif_rdf.output.diff import diff_bundles as diff_bundles
    from mif_rdf.output.diff import with_findings as with_findings
    from mif_rdf.output.diff_fast import exact_changes as exact_changes
    from mif_rdf.output.diff_fast import partial_bundles as partial_bundles
    from mif_rdf.output.graph_import import import_dataset as import_dataset
    from mif_rdf.output.graph_import import import_graphs as import_graphs
    from mif_rdf.output.patch import patch_text as patch_text
    from mif_rdf.output.patch import rdf_patch as rdf_patch
    from mif_rdf.output.patch import sparql_update as sparql_update
    from mif_rdf.output.patch import update_text as update_text
    from mif_rdf.output.policy import export_bundle as export_bundle
    from mif_rdf.output.policy import export_policy as export_policy
    from mif_rdf.output.serialize import write_graph_as as write_graph_as
    from mif_rdf.output.stream_export import stream_nquads as stream_nquads
    from mif_rdf.output.update import UpdateResult as UpdateResult
    from mif_rdf.output.update import check_update_safety as check_update_safety
    from mif_rdf.output.update import update_bundle as update_bundle
    from mif_rdf.output.writeback import write_files as write_files

#: public name -> the module that defines it (this package's public face: what the command line and users import)
_HOMES = {
    "bundle_root_of": "mif_rdf.output.convert",
    "check_projections": "mif_rdf.output.convert",
    "jsonld_files": "mif_rdf.output.convert",
    "markdown_from_jsonld": "mif_rdf.output.convert",
    "roundtrip_report": "mif_rdf.output.convert",
    "diff_bundles": "mif_rdf.output.diff",
    "with_findings": "mif_rdf.output.diff",
    "exact_changes": "mif_rdf.output.diff_fast",
    "partial_bundles": "mif_rdf.output.diff_fast",
    "import_dataset": "mif_rdf.output.graph_import",
    "import_graphs": "mif_rdf.output.graph_import",
    "patch_text": "mif_rdf.output.patch",
    "rdf_patch": "mif_rdf.output.patch",
    "sparql_update": "mif_rdf.output.patch",
    "update_text": "mif_rdf.output.patch",
    "export_bundle": "mif_rdf.output.policy",
    "export_policy": "mif_rdf.output.policy",
    "write_graph_as": "mif_rdf.output.serialize",
    "stream_nquads": "mif_rdf.output.stream_export",
    "UpdateResult": "mif_rdf.output.update",
    "check_update_safety": "mif_rdf.output.update",
    "update_bundle": "mif_rdf.output.update",
    "write_files": "mif_rdf.output.writeback",
}
__all__ = [
    "UpdateResult",
    "bundle_root_of",
    "check_projections",
    "check_update_safety",
    "diff_bundles",
    "exact_changes",
    "export_bundle",
    "export_policy",
    "import_dataset",
    "import_graphs",
    "jsonld_files",
    "markdown_from_jsonld",
    "partial_bundles",
    "patch_text",
    "rdf_patch",
    "roundtrip_report",
    "sparql_update",
    "stream_nquads",
    "update_bundle",
    "update_text",
    "with_findings",
    "write_files",
    "write_graph_as",
]

__getattr__, __dir__ = lazy_names(__name__, _HOMES)
