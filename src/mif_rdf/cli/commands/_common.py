"""Pieces every subcommand shares: bundle options, loading, output, exit codes.

Command modules import only light modules at their top (argparse, this one,
:mod:`mif_rdf.core.formats`, :mod:`mif_rdf.core.names`, :mod:`mif_rdf.core.limits`,
:mod:`mif_rdf.core.errors`); what a command runs is imported inside its ``run``,
so ``mif-rdf --help`` and each command load only what they use.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import IO, TYPE_CHECKING

from mif_rdf.core.errors import MifRdfError, Problem, Severity, counted
from mif_rdf.core.formats import QUAD_FORMATS, format_name, is_gzipped
from mif_rdf.core.limits import DEFAULT_LIMITS, Limits
from mif_rdf.core.names import STORES

if TYPE_CHECKING:
    from mif_rdf.bundle import Bundle
    from mif_rdf.load import CacheReport
    from mif_rdf.nsmodel import Audience, Withheld

EXIT_OK, EXIT_INVALID, EXIT_CANNOT_RUN = 0, 1, 2


class _Voice:
    """How much a command says on standard error: ``--quiet`` errors only, ``--verbose`` every detail.

    One per process, set by :func:`mif_rdf.cli.main.main` from the options every
    command has; what a command writes as its result (data, a report, a
    summary on standard output) is not chatter and is never silenced.
    """

    quiet = False
    verbose = False


def verbosity_options(parser: argparse.ArgumentParser) -> None:
    """``-q/--quiet`` and ``-v/--verbose``, which every command takes."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("-q", "--quiet", action="store_true", help="say nothing on standard error but errors")
    group.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help=(
            "say more on standard error: each item a summary counts (withheld memories, graphs pushed, ill-typed "
            "dates) and the load cache entry used"
        ),
    )


def set_verbosity(args: argparse.Namespace) -> None:
    _Voice.quiet, _Voice.verbose = bool(getattr(args, "quiet", False)), bool(getattr(args, "verbose", False))


def note(text: str) -> None:
    """A note on standard error, unless ``--quiet``."""
    if not _Voice.quiet:
        print(text, file=sys.stderr, flush=True)


def detail(text: str) -> None:
    """A line that only ``--verbose`` shows (a summary line already counts it)."""
    if _Voice.verbose:
        print(text, file=sys.stderr, flush=True)


def verbose() -> bool:
    return _Voice.verbose


@contextlib.contextmanager
def stages(label: str, total: int) -> Iterator[Callable[[str], None]]:
    """A bar of named stages on a terminal (``validate: bundle rules  2/3``); silent when piped or ``--quiet``."""
    if _Voice.quiet or not sys.stderr.isatty():
        yield lambda name: None
        return
    from tqdm import tqdm

    bar = tqdm(total=total, desc=label, unit="stage", file=sys.stderr, leave=False)
    started = False

    def stage(name: str) -> None:
        nonlocal started
        if started:  # the stage before this one is done
            bar.update()
        started = True
        bar.set_description(f"{label}: {name}")

    try:
        yield stage
    finally:
        bar.close()


def shown(problem: Problem) -> bool:
    """Whether a problem goes to standard error: errors always, warnings and notes unless ``--quiet``."""
    return problem.severity == Severity.ERROR or not _Voice.quiet


def show_problems(problems: Iterable[Problem]) -> None:
    """Problems on standard error: errors always, warnings and notes unless ``--quiet``."""
    for problem in problems:
        if shown(problem):
            print(problem, file=sys.stderr)


def show_ill_typed(problems: Sequence[Problem], root: Path) -> None:
    """Ill-typed literals an output holds: those the author can fix one by one,
    the spec's own forms as one counted note.

    The published context types ``accessed`` as ``xsd:dateTime`` where the
    spec writes a date (``accessed: 2026-01-24``): those ill-typed literals
    (severity note) leave their author nothing to fix, and thousands of
    identical lines would bury the one that matters (docs/decisions.md), so
    they are counted, and ``--verbose`` or ``validate`` (its
    ``ill-typed-literal`` rule) lists them.
    """
    spec_forms = not verbose()
    counted_only = [p for p in problems if spec_forms and p.severity == Severity.INFO]
    show_problems(p for p in problems if not (spec_forms and p.severity == Severity.INFO))
    if counted_only:
        folder = Path(os.path.relpath(root)) if root.is_relative_to(Path.cwd()) else root
        note(
            f"note: the output holds {counted(len(counted_only), 'date')} where the context types an xsd:dateTime "
            "(as the spec "
            f"writes them: ill-typed literals, kept as written); 'mif-rdf validate {folder}' or --verbose lists them"
        )


def as_of_option(parser: argparse.ArgumentParser) -> None:
    """``--as-of DATE``: the bundle as of a valid time (spec 9), for the commands that read its content."""
    parser.add_argument(
        "--as-of",
        metavar="DATE",
        help=(
            "only the memories valid at DATE (ISO 8601 date or date-time; spec 9: validFrom, validUntil, ttl), and "
            "the links between them; see docs/time.md"
        ),
    )


def as_of(bundle: Bundle, date: str | None) -> None:
    """Keep only what was valid at ``date`` (``--as-of``), saying what was left out; nothing without a date."""
    if date:
        from mif_rdf.queries import apply

        note(apply(bundle, date))


def ontology_path_option(parser: argparse.ArgumentParser) -> None:
    """``--path DIR``: more folders for ontologies named by id, for the commands that read a bundle's ontologies."""
    parser.add_argument(
        "--path",
        action="append",
        default=[],
        type=Path,
        metavar="DIR",
        help=(
            "folder to search for ontologies named by id, after the bundle's .mif/ontologies (repeatable; the "
            "built-in ones, --ontology-dir and the bundle's are always searched)"
        ),
    )


def ontology_dir_option(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """``--ontology-dir``: the user ontology folders of spec 10.8.5 (loading commands and ``suggest`` alike)."""
    parser.add_argument(
        "--ontology-dir",
        action="append",
        type=Path,
        metavar="DIR",
        help=(
            "user ontology folder, searched after the built-in ontologies and before the bundle's .mif/ontologies "
            "(repeatable; default: the folders in MIF_RDF_ONTOLOGY_PATH)"
        ),
    )


def bundle_options(parser: argparse.ArgumentParser, *, store: bool = True) -> None:
    """The bundle folder and the load options every loading command shares,
    listed after the command's own in ``--help``.

    ``store=False`` leaves ``--store`` out of the help, for a command that has one
    store only (``serve`` keeps the bundle in Oxigraph): an option that can only
    be refused should not be offered."""
    parser.add_argument("bundle", type=Path, help="the bundle folder")
    shared = parser.add_argument_group("load options (every command that loads a bundle takes them)")
    shared.add_argument(
        "--base",
        metavar="IRI",
        help=(
            "base IRI of the bundle (default mif://<bundle_id>/ from .mif/config.yaml, else "
            "mif://<folder-name>-<path hash>/)"
        ),
    )
    shared.add_argument(
        "--engine",
        choices=("fast", "pyld"),
        default="fast",
        help="fast context walker (default) or pyld's JSON-LD toRdf",
    )
    if store:
        shared.add_argument(
            "--store",
            choices=tuple(STORES),
            default="memory",
            help="rdflib store: in-memory (default) or Oxigraph (needs oxrdflib)",
        )
    else:  # not offered; `--store oxigraph` still accepted, `--store memory` told what there is
        shared.add_argument("--store", choices=("oxigraph",), default="oxigraph", help=argparse.SUPPRESS)
    shared.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    shared.add_argument(
        "--max-file-size",
        type=float,
        metavar="MB",
        default=DEFAULT_LIMITS.max_file_bytes / 2**20,
        help=f"skip (and report) memory files larger than this (default {DEFAULT_LIMITS.max_file_bytes // 2**20} MB)",
    )
    shared.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="worker processes that read memory files (0: none; default: from the idle cores, for 1,000 files or more)",
    )
    shared.add_argument(
        "--cache",
        action=argparse.BooleanOptionalAction,
        default=None,
        help=(
            "keep this load for the next one, which then reads only the files that changed (on by default, in the "
            "user cache folder $XDG_CACHE_HOME/mif-rdf or ~/.cache/mif-rdf; -v says where; --no-cache: a fresh "
            "load, nothing kept)"
        ),
    )
    shared.add_argument(
        "--cache-dir", type=Path, metavar="DIR", help="the cache in DIR instead of the user cache folder"
    )
    shared.add_argument(
        "--max-memories",
        type=int,
        metavar="N",
        default=DEFAULT_LIMITS.max_memories,
        help=f"load at most N memory files, in path order (default {DEFAULT_LIMITS.max_memories:,})",
    )
    ontology_dir_option(shared)
    shared.add_argument(
        "--rev",
        metavar="REV",
        help=(
            "read the bundle as it was at this git revision (a commit, tag, HEAD~3, main@{2026-03-01}), from the "
            "repository's objects: nothing is checked out"
        ),
    )


def load(args: argparse.Namespace, *, types: bool = True) -> Bundle:
    """The bundle named by :func:`bundle_options` arguments.

    With ``types``, the memories' ontology-extended types go into
    ``<base>#types`` (:func:`mif_rdf.ontology.add_types_graph`), so queries,
    exports, pushes and ``serve`` see them.
    """
    limits = limits_of(args)
    from mif_rdf.bundle import load_bundle

    loader = load_bundle
    if getattr(args, "rev", None):
        from mif_rdf.load import revision_loader

        loader = revision_loader(args.rev)  # the same options, the files of that revision

    def loaded(cache: bool | Path | None) -> Bundle:
        return loader(
            args.bundle,
            base_iri=args.base,
            engine=args.engine,
            store=args.store,
            progress=False if args.no_progress else None,
            limits=limits,
            cache=cache,
            workers=args.workers,
        )

    if args.cache is False and args.cache_dir is not None:
        raise MifRdfError("--no-cache and --cache-dir contradict each other: leave out one")
    if args.cache is False:
        bundle = loaded(None)
    elif asked_for_cache(args):
        bundle = loaded(args.cache_dir or True)
    else:  # the default: a cache that cannot be used (a read-only home, a folder another user owns) costs only speed
        try:
            bundle = loaded(True)
        except (OSError, MifRdfError) as error:
            bundle = loaded(None)
            note(f"note: the load cache was not used ({error}); --no-cache skips it")
    if bundle.cache is not None:
        detail(f"cache: {cache_text(bundle.cache)}")
    if types:
        from mif_rdf.ontology import add_types_graph

        add_types_graph(bundle, user_dirs=args.ontology_dir, path_dirs=getattr(args, "path", None) or ())
    return bundle


def allow_empty_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--allow-empty",
        action="store_true",
        help="a folder with no memory file is no error (by default: exit 1 and nothing written)",
    )


def refused_empty(args: argparse.Namespace) -> bool:
    """Before loading: whether the bundle folder holds no memory file and that was not allowed (it says so).

    A typo in a pipeline's path (``exmaples/``, a folder that lost its
    files) must not pass as a good, empty dump.
    """
    if args.allow_empty or not args.bundle.is_dir():  # a missing folder is the load's own error (exit 2)
        return False
    from mif_rdf.source import discover

    if discover(args.bundle).memories:
        return False
    print(
        f"mif-rdf: error: no memory files in {args.bundle} (a memory is a .md file with YAML frontmatter); "
        "nothing written; --allow-empty accepts an empty bundle",
        file=sys.stderr,
    )
    return True


def asked_for_cache(args: argparse.Namespace) -> bool:
    """Whether the cache was asked for by name (``--cache``, ``--cache-dir``), not only on by default."""
    return bool(args.cache or args.cache_dir)


def cache_text(report: CacheReport) -> str:
    """What the load cache did, and where its entry is."""
    if report.state == "cold":
        return f"cold, entry written ({report.reason}): {report.entry}"
    return f"warm, {counted(len(report.reparsed), 'file')} read again, {len(report.removed)} gone: {report.entry}"


def suggestion_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--with-suggestions",
        action="store_true",
        help=(
            "add the <base>#suggestions graph: what the discovery patterns of the memories' ontologies suggest (see "
            "mif-rdf suggest)"
        ),
    )


def add_suggestions(args: argparse.Namespace, bundle: Bundle, audience: Audience | None = None) -> None:
    """With ``--with-suggestions``, put the discovery suggestions into the bundle's ``<base>#suggestions`` graph."""
    if not args.with_suggestions:
        return
    from mif_rdf.ontology import add_suggestions, suggest

    report = suggest(bundle, user_dirs=args.ontology_dir, search_path=getattr(args, "path", None) or ())
    show_problems(report.problems)
    add_suggestions(bundle, report, audience)


def limits_of(args: argparse.Namespace) -> Limits:
    """The limits :func:`bundle_options` arguments set, checked (and ``--workers`` with them)."""
    if args.max_file_size <= 0 or args.max_memories <= 0:
        raise MifRdfError("--max-file-size and --max-memories must be positive")
    if args.workers is not None and args.workers < 0:
        raise MifRdfError("--workers must be 0 or more")
    return replace(DEFAULT_LIMITS, max_file_bytes=int(args.max_file_size * 2**20), max_memories=args.max_memories)


def exit_for(problems: Sequence[Problem]) -> int:
    return EXIT_INVALID if any(p.severity == Severity.ERROR for p in problems) else EXIT_OK


def rdf_format(text: str) -> str:
    """``--format`` of RDF output: every spelling :mod:`mif_rdf.core.formats` knows,
    as argparse's error when unknown."""
    try:
        return format_name(text)
    except MifRdfError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def export(bundle: Bundle, fmt: str, path: Path | None, audience: Audience | None = None) -> None:
    """Write what may leave the machine (spec 10.2: never ``_local``; with ``audience``,
    only what it may read) and say on stderr what was withheld."""
    from mif_rdf.output import export_bundle, export_policy
    from mif_rdf.validation import ill_typed_literals

    policy = export_policy(bundle, audience)
    show_ill_typed(ill_typed_literals(bundle, policy.allows), bundle.root)
    write(path, lambda out: export_bundle(bundle, fmt, out, policy))
    if _Voice.quiet:  # the counts are for the summary line alone, which --quiet does not show
        return
    sizes = policy.sizes(bundle.dataset)  # the store counts (Oxigraph: COUNT queries), nothing is read again
    wrote(sum(sizes.values()), len(sizes), fmt, path, list(policy.withheld.values()))


def wrote(
    quads: int, graphs: int, fmt: str, path: Path | None, withheld: Sequence[Withheld], streamed: bool = False
) -> None:
    """An export's one summary line, and with ``--verbose`` each withheld memory."""
    left_out = (
        f"; {len(withheld)} withheld (_local and other memories that may not leave; --verbose lists them)"
        if withheld
        else ""
    )
    what = (
        f"{counted(quads, 'quad')} in {counted(graphs, 'graph')}"
        if fmt in QUAD_FORMATS
        else f"the union of {counted(graphs, 'graph')} ({counted(quads, 'quad')})"
    )
    note(f"wrote {what} to {path or 'standard output'} ({fmt}{', streamed' if streamed else ''}){left_out}")
    for item in withheld:
        detail(f"withheld {item.label}: {item.reason}")


def write(path: Path | None, writer: Callable[[IO[bytes]], object]) -> None:
    """Run ``writer`` on the output file (replaced only once complete:
    :mod:`mif_rdf.core.outputs`; gzip-compressed when its name ends in ``.gz``), or on standard output."""
    if path is None:
        writer(sys.stdout.buffer)
        sys.stdout.buffer.flush()
        return
    from mif_rdf.core.outputs import replacing

    if not path.parent.exists():
        note(f"created the folder {path.parent} for {path.name}")
    path.parent.mkdir(parents=True, exist_ok=True)
    _Outputs.pending.add(path)
    with replacing(path, gzipped=is_gzipped(path)) as handle:
        writer(handle)
    _Outputs.pending.discard(path)


class _Outputs:
    """The output files a command has yet to put in place: what an interrupt leaves unchanged."""

    pending: set[Path] = set()


def check_outputs(*outputs: tuple[str, Path | None], bundle: Path | None = None, inputs: Iterable[Path] = ()) -> None:
    """Before reading anything: refuse an output that is an input (see :func:`mif_rdf.core.outputs.refuse_sources`)."""
    from mif_rdf.core.outputs import refuse_sources

    refuse_sources(outputs, inputs, bundle)
    for option, path in outputs:  # README.md/x.ttl: say so now, not after the whole load
        blocking = next((parent for parent in (path.parents if path is not None else ()) if parent.exists()), None)
        if blocking is not None and not blocking.is_dir():
            raise MifRdfError(f"{option} {path}: {blocking} is a file, not a folder")
    _Outputs.pending = {path for _, path in outputs if path is not None}  # this command's, none of an earlier run's


def ontology_inputs(folders: Iterable[Path], ontologies: Iterable[str] | None) -> list[Path]:
    """What a command reads ontologies from, for :func:`check_outputs`: its ``--path`` folders and the
    ontologies given as files (an ontology given by id is found in those folders)."""
    return [*folders, *(Path(o) for o in ontologies or () if Path(o).is_file())]


def interrupted() -> str:
    """The one line an interrupted command prints (Ctrl-C or SIGTERM)."""
    left = sorted(str(path) for path in _Outputs.pending)
    return f"interrupted; {' and '.join(left)} left unchanged" if left else "interrupted"
