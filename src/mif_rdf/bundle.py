"""The public face of a loaded bundle: :class:`Bundle` and :func:`load_bundle`.

:class:`Bundle` is the loader's :class:`~mif_rdf.load.bundle.LoadedBundle`
(what was loaded, read-only accessors) plus the conveniences a notebook or a
script reaches for: :meth:`~Bundle.query`, :meth:`~Bundle.export`,
:meth:`~Bundle.update`, :meth:`~Bundle.reload` and the Jupyter view.  They
sit here, at the top of the import graph, because each calls a later stage
(queries, output, write-back, notebook); the pipeline below only ever sees a
``LoadedBundle`` and never imports this module.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, cast

from rdflib.query import Result
from rdflib.store import Store
from rdflib.term import Identifier

from mif_rdf.core.limits import DEFAULT_LIMITS, Limits
from mif_rdf.load import incremental, loader
from mif_rdf.load.bundle import EntityRecord as EntityRecord
from mif_rdf.load.bundle import Link as Link
from mif_rdf.load.bundle import LoadedBundle as LoadedBundle
from mif_rdf.load.bundle import MemoryRecord as MemoryRecord
from mif_rdf.load.pipeline import ToRdfEngine
from mif_rdf.load.revisions import load_at_revision
from mif_rdf.load.stores import new_dataset as new_dataset
from mif_rdf.queries.sparql import run_query

# Importing the query stage (above) registers the project's SPARQL functions (mif:validAt, ...) and the
# time-bounded REGEX with rdflib, which ``bundle.dataset.query`` relies on.  The other later stages a convenience
# calls (write-back, export, the Jupyter view) are imported by the method that needs them: a command that only
# loads and exports does not pay for them at start-up.
if TYPE_CHECKING:
    from mif_rdf.nsmodel.audience import Audience
    from mif_rdf.output.export_api import Destination
    from mif_rdf.output.policy import ExportPolicy
    from mif_rdf.output.update import UpdateResult
    from mif_rdf.remote import Credentials

__all__ = ["Bundle", "EntityRecord", "Link", "LoadedBundle", "MemoryRecord", "load_bundle", "new_dataset"]


class Bundle(LoadedBundle):
    """A loaded bundle, as the Python API hands it out: the Dataset, the records, and the conveniences."""

    def query(
        self, query: str, bindings: Mapping[str, Identifier] | None = None, *, allow_service: bool = False
    ) -> Result:
        """Run SPARQL over the union of the bundle's graphs, with the project's prefixes declared.

        The same as :func:`mif_rdf.queries.run_query` on ``self.dataset``: updates
        and (unless allowed) ``SERVICE`` are refused, syntax errors name the line.
        """
        return run_query(self.dataset, query, bindings, allow_service=allow_service)

    def export(
        self,
        target: Destination,
        format: str | None = None,
        *,
        include_local: bool = False,
        audience: str | Audience | None = None,
        include_system: bool = False,
    ) -> ExportPolicy:
        """Write what may leave the machine, as ``mif-rdf export`` does: never ``_local`` unless ``include_local``.

        ``format`` defaults to the one the file's extension names; ``audience``
        (a party of the bundle) writes only what it may read.  The same as
        :func:`mif_rdf.export`; returns the policy applied.
        """
        from mif_rdf.output.export_api import export

        return export(
            self, target, format, include_local=include_local, audience=audience, include_system=include_system
        )

    def update(
        self,
        update: str,
        *,
        dry_run: bool = False,
        allow_service: bool = False,
        force: bool = False,
        allow_delete: bool = False,
    ) -> UpdateResult:
        """Run a SPARQL Update and write each changed memory back to its file
        (:func:`mif_rdf.output.update.update_bundle`)."""
        from mif_rdf.output.update import update_bundle

        return update_bundle(
            self, update, dry_run=dry_run, allow_service=allow_service, force=force, allow_delete=allow_delete
        )

    def import_graphs(
        self,
        source: str | Path,
        format: str | None = None,
        *,
        dry_run: bool = False,
        force: bool = False,
        credentials: Credentials | None = None,
        timeout: float = 30.0,
    ) -> UpdateResult:
        """Merge the memory graphs of an RDF file, or of a triple store, into the bundle's files (``mif-rdf import``).

        ``source`` is a file (``format`` from its suffix unless given) or an
        ``http(s)://`` URL: a store's Graph Store Protocol endpoint, read with
        one GET of its whole dataset (``credentials``: see
        :class:`mif_rdf.remote.Credentials`; never a password in the URL).
        Spec 18.3: trust is never raised; a new memory is marked ``external_import``.
        """
        if isinstance(source, str) and source.lower().startswith(("http://", "https://")):
            from mif_rdf.remote import HttpClient, import_from_store

            client = HttpClient(credentials, timeout)
            return import_from_store(self, source, client=client, dry_run=dry_run, force=force)
        from mif_rdf.core.formats import format_for
        from mif_rdf.output.graph_import import import_graphs

        return import_graphs(self, source, format_for(Path(source), format), dry_run=dry_run, force=force)

    def reload(self, *relpaths: str) -> set[str]:
        """Re-read changed, new or deleted memory and entity files; only their graphs are replaced
        (:func:`mif_rdf.load.incremental.reload`)."""
        return incremental.reload(self, *relpaths)

    def add_content_hashes(self) -> None:
        """Give every memory ``extensions.mif-rdf.hash`` (spec 18.2) in the dataset; files are untouched."""
        incremental.add_content_hashes(self)

    def _repr_html_(self) -> str:
        """The summary Jupyter shows for a bundle: counts, graphs and problems."""
        from mif_rdf.notebook.display import bundle_html

        return bundle_html(self)


def load_bundle(
    root: str | Path,
    *,
    base_iri: str | None = None,
    engine: ToRdfEngine = "fast",
    store: str | Store = "memory",
    progress: bool | None = None,
    limits: Limits = DEFAULT_LIMITS,
    cache: bool | str | Path | None = None,
    workers: int | None = None,
    rev: str | None = None,
) -> Bundle:
    """Load a MIF bundle folder into an rdflib Dataset.

    ``engine="fast"`` walks the precompiled context; ``engine="pyld"`` runs
    pyld's JSON-LD toRdf on every memory (the reference).
    ``store`` is ``"memory"`` (default) or ``"oxigraph"`` (with oxrdflib
    installed), as on the command line, or any rdflib store name or instance.
    ``limits`` bounds file size, YAML expansion and depth, and the number of
    memories (:class:`~mif_rdf.core.limits.Limits`).  ``cache`` keeps the load for the next one
    (:mod:`mif_rdf.load.cache`): ``True`` in the user cache folder, or a folder; only changed files are read again.
    ``workers`` is the number of worker processes that prepare memories (0:
    none; default: as many as there are idle cores, for 1,000 files or more);
    they change the speed of a load, never its result.
    Problems with single files never raise: they are in ``bundle.problems``.
    ``rev`` (any git revision: a commit, a tag, ``HEAD~3``) loads the files as
    they were at that revision, read from the repository's objects without a
    checkout (:func:`mif_rdf.load.revisions.load_at_revision`); with ``cache``, a revision
    whose files are mostly those of the last one loaded costs little.
    Raises :class:`MifRdfError` only when the folder itself cannot be read.
    """
    if rev is not None:
        return cast(
            Bundle,
            load_at_revision(
                root,
                rev,
                base_iri=base_iri,
                engine=engine,
                store=store,
                progress=progress,
                limits=limits,
                cache=cache,
                workers=workers,
                into=Bundle,
            ),
        )
    return cast(
        Bundle,
        loader.load(
            root,
            base_iri=base_iri,
            engine=engine,
            store=store,
            progress=progress,
            limits=limits,
            cache=cache,
            workers=workers,
            into=Bundle,
        ),
    )
