"""``mif-rdf query``: run a SPARQL query on a bundle and print the result."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from mif_rdf.cli.commands import _common
from mif_rdf.core.errors import MifRdfError, counted
from mif_rdf.core.names import RESULT_FORMATS

if TYPE_CHECKING:  # for annotations; each function imports what it runs (fast start-up)
    from mif_rdf.bundle import Bundle
    from mif_rdf.load import QueryView

ORDER = 40


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "query",
        help="run a SPARQL query (SELECT, ASK, CONSTRUCT, DESCRIBE) on a bundle",
        description=(
            "Load a bundle and run one SPARQL query on the union of its graphs (a set: each triple once). The "
            "prefixes mif: dc: prov: schema: xsd: rdf: rdfs: owl: skos: mifp: are predeclared. Without --store, "
            "Oxigraph answers when it is installed, from a query database kept in the load cache, so a second query "
            "on an unchanged bundle reads nothing again (with --as-of, one database per date); rdflib's memory "
            "store answers --reason and mif:validAt/mif:freshness."
        ),
    )
    _common.bundle_options(parser)
    store = next(action for action in parser._actions if action.dest == "store")
    store.help = "memory (rdflib) or oxigraph; default: oxigraph when installed and able to answer, else memory"
    parser.add_argument("query", nargs="?", help="the query text (or use --file); - reads it from standard input")
    parser.add_argument(
        "--file", type=Path, metavar="FILE", help="read the query from this file (.rq; - for standard input)"
    )
    parser.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help=(
            'bind the query variable ?NAME to VALUE, written as in SPARQL: 42, 1.5, true, "text", "text"@en, <iri>, '
            "mif:term (any other text is a string); repeatable"
        ),
    )
    parser.add_argument(
        "--format",
        choices=RESULT_FORMATS,
        default="table",
        help=(
            "table (default), csv, json or tsv: the W3C SPARQL result formats; graphs as Turtle (table), JSON-LD "
            "(json) or subject/predicate/object rows"
        ),
    )
    parser.add_argument(
        "--reason", metavar="PROFILE", help="add inferences (mif_rdf.reasoning, e.g. profile 'fast') before querying"
    )
    parser.add_argument(
        "--allow-service",
        action="store_true",
        help=(
            "let SERVICE clauses fetch from other SPARQL endpoints (off by default: a query never reaches the "
            "network unless asked)"
        ),
    )
    _common.as_of_option(parser)
    parser.set_defaults(func=run, store=None)  # no --store: Oxigraph when it can answer (see run)


def run(args: argparse.Namespace) -> int:
    from mif_rdf.queries import check_query_safety

    text = bound(_query_text(args.query, args.file), args.param)
    check_query_safety(text, allow_service=args.allow_service)  # before the bundle is loaded
    if args.store is None:
        args.store = "oxigraph" if _oxigraph_answers(args, text) else "memory"
    if args.store == "oxigraph" and args.cache is not False and not (args.reason or args.rev):
        done = _from_query_view(args, text)
        if done is not None:
            return done
    bundle = _common.load(args)
    _common.as_of(bundle, args.as_of)
    if args.reason:
        added = _reason(bundle, args.reason)
        _common.note(f"reasoning ({args.reason}): {added} inferred triples")
    return _answer(args, text, bundle.dataset, list(bundle.problems))


#: What the query database cannot answer: the mif: time functions need the store they read (rdflib's engine, or
#: the bundle's own Oxigraph store through mif_rdf.queries.oxigraph_calls), not the read-only view; such a query
#: runs on the memory store.
_RDFLIB_ONLY = re.compile(r"validAt|freshness|strengthAt")


def _oxigraph_answers(args: argparse.Namespace, text: str) -> bool:
    """Whether a query given no ``--store`` runs on Oxigraph: installed, and nothing asked that only rdflib does."""
    from mif_rdf.load import oxigraph_installed

    return oxigraph_installed() and not (args.reason or _RDFLIB_ONLY.search(text))


def _from_query_view(args: argparse.Namespace, text: str) -> int | None:
    """Answer from the cache's query database (:mod:`mif_rdf.load.cache_view`), writing it first when
    the bundle changed; None when the cache cannot be used (the caller loads as usual).

    With ``--as-of``, from the query database of the bundle restricted to that moment (one per moment):
    a query as of a date asked before costs what a plain one costs.
    """
    from mif_rdf.load import cached_query_view, default_cache_dir, keep_query_view
    from mif_rdf.queries import as_of_key, as_of_note, restrict

    options = {
        "base_iri": args.base,
        "engine": args.engine,
        "limits": _common.limits_of(args),
        "cache_dir": args.cache_dir or default_cache_dir(),
        "key": _ontology_key(args),
        "as_of": as_of_key(args.as_of) if args.as_of else None,  # a date that is no date: an error, now
    }

    def answered(view: QueryView, how: str) -> int:
        _common.detail(f"cache: {how}: {view.entry}")
        if args.as_of:
            _common.note(as_of_note(args.as_of, view.valid, len(view.left_out)))
        return _answer(args, text, view.dataset, view.problems)

    try:
        with cached_query_view(args.bundle, **options) as view:
            if view is not None:
                return answered(view, "warm, the query database answers, nothing read again")
    except MifRdfError as error:  # the cache folder cannot be used: the usual load says why
        _common.detail(f"cache: no query database ({error})")
        return None
    bundle = _common.load(args)
    left_out = restrict(bundle, args.as_of) if args.as_of else []
    keep_query_view(bundle, options["key"], options["as_of"], left_out)
    with cached_query_view(args.bundle, **options) as view:
        if view is not None:
            return answered(view, "query database written")
    if args.as_of:
        _common.note(as_of_note(args.as_of, len(bundle.memories), len(left_out)))
    return _answer(args, text, bundle.dataset, list(bundle.problems))


def _ontology_key(args: argparse.Namespace) -> str:
    """The ontology files the types graph may read (their folders, names, sizes and times): the query database
    holds the types graph, so it is made again when one of them changes."""
    from mif_rdf.ontology import search_path, user_ontology_dirs

    users = user_ontology_dirs() if args.ontology_dir is None else [Path(d) for d in args.ontology_dir]
    folders = search_path(users, args.bundle.resolve(), [Path(d) for d in getattr(args, "path", None) or ()])
    stamps = [str(folders)]
    for folder in folders:
        for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
            if path.is_file():
                info = path.stat()
                stamps.append(f"{path}\0{info.st_size}\0{info.st_mtime_ns}")
    return "\n".join(stamps)


def _answer(args: argparse.Namespace, text: str, dataset: object, problems: list) -> int:
    from mif_rdf.queries import format_result, run_query

    result = run_query(dataset, text, allow_service=args.allow_service)  # type: ignore[arg-type]
    sys.stdout.write(format_result(result, args.format))
    errors = sum(1 for p in problems if p.severity.value == "error")
    if errors:
        _common.note(f"note: the bundle has {counted(errors, 'error')}; 'mif-rdf load {args.bundle}' lists them")
    return _common.EXIT_OK


def _query_text(query: str | None, path: Path | None) -> str:
    if (query is None) == (path is None):
        raise MifRdfError(
            "give the query either as an argument or with --file, not both"
            if query
            else "no query: give it as an argument or with --file FILE"
        )
    if query == "-" or str(path) == "-":
        if sys.stdin.isatty():
            _common.note("reading the query from standard input (end it with Ctrl-D)")
        return sys.stdin.read()
    if path is None:
        assert query is not None  # exactly one of the two (above)
        return query
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise MifRdfError(
            f"cannot read the query file {str(path)!r}: {getattr(exc, 'strerror', None) or exc}"
        ) from None


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: A value already written as a SPARQL term: a number, a boolean, a quoted string (optionally tagged or typed),
#: an IRI, a prefixed name.
_TERM = re.compile(
    r"""[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|true|false|<[^<>"{}|^`\\\x00-\x20]*>|[A-Za-z][\w-]*:[\w-]*"""
    r"""|"([^"\\\n\r]|\\["\\tbnrf'])*"(@[A-Za-z]+(-[A-Za-z0-9]+)*|\^\^(<[^<>"{}|^`\\\x00-\x20]*>|[A-Za-z][\w-]*:[\w-]*))?"""
)


def bound(query: str, params: list[str]) -> str:
    """The query with ``NAME=VALUE`` bindings, as a trailing ``VALUES`` clause (SPARQL 1.1, 18.2.4.3).

    A value written as a SPARQL term keeps that type (``42`` an integer,
    ``"x"@en`` a tagged string, ``<iri>``); anything else is a plain string,
    escaped, so a value never changes the query's shape.
    """
    if not params:
        return query
    names, values = [], []
    for param in params:
        name, equals, value = param.partition("=")
        name = name.lstrip("?$")
        if not equals or not _NAME.fullmatch(name):
            raise MifRdfError(f"--param {param!r}: write NAME=VALUE (a variable name, then the value)")
        if name in names:
            raise MifRdfError(f"--param binds ?{name} twice")
        names.append(name)
        values.append(
            value
            if _TERM.fullmatch(value)
            else '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r") + '"'
        )
    return f"{query.rstrip()}\nVALUES ({' '.join('?' + n for n in names)}) {{ ({' '.join(values)}) }}\n"


def _reason(bundle: Bundle, profile: str) -> int:
    """Run the ontology engineer's reasoner, imported only when asked for (it is optional)."""
    try:
        from mif_rdf.reasoning import infer
    except ModuleNotFoundError as exc:
        if exc.name != "mif_rdf.reasoning":
            raise
        raise MifRdfError("--reason needs mif_rdf.reasoning, which this installation does not have") from None
    return int(infer(bundle, profile))
