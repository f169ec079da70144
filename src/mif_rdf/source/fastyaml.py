"""A faster :func:`~mif_rdf.source.yamlio.load_yaml` that gives exactly the same result.

:func:`load_yaml` here has the signature and result of
:func:`mif_rdf.source.yamlio.load_yaml` (same values, same Python types, timestamps
as :class:`~mif_rdf.source.yamlio.YamlTimestamp`, same duplicate-key issues, same
``yaml.YAMLError`` on bad YAML).  It reads a document with the Rust parser of
the ``yaml-rs`` package only when a conservative pre-check proves that
PyYAML's YAML 1.1 safe loader and ``yaml-rs`` (YAML 1.2) must agree on it;
every other document -- and every document when ``yaml-rs`` is not installed,
is of a version we have not tested, or fails the start-up self-check -- is
read by PyYAML as before.  docs/yaml-parsers.md explains the choice and the
measurements; tests/test_fastyaml.py checks the identity.

The pre-check (:data:`SAFE_DOCUMENT`) accepts only plain block YAML, line by
line, the shape of nearly all frontmatter:

* the first content line starts in column 0; indentation is spaces only (at
  most 60) with at most 10 ``- `` sequence dashes in front;
* each line is blank, a whole-line comment, ``key:``, ``key: value``,
  ``- value`` or a bare ``-``; there is exactly one space after ``:`` and
  ``-`` and none at the end of a line; no comment after a value;
* keys are plain strings that no YAML schema reads as anything else, or
  one-line quoted strings (but not ``'<<'``);
* values are one-line single- or double-quoted strings (double quotes with
  the escapes ``\\\\ \\" \\n \\t \\xHH \\uHHHH`` only), ``[]``, ``{}``, or plain
  scalars of a form both schemas read alike: ``true``/``True``/``TRUE``,
  ``false``/..., ``null``/``Null``/``NULL``/``~``, decimal integers of at most
  18 digits without a ``+`` or leading zero, decimals ``-?D.D`` (at most 15
  digits each side), the timestamp forms ``YYYY-MM-DD`` and
  ``YYYY-MM-DDTHH:MM:SS[.f][Z|+HH:MM]``, and strings that cannot be a number,
  boolean, null or timestamp in either schema (they start with a letter or
  another non-indicator character and are not ``yes``/``no``/``on``/``off``/
  ``y``/``n``/``inf``/``nan`` in any case, or start with a digit or ``_``
  and contain a character that no number or timestamp has -- yaml-rs reads
  ``_1`` as the integer 1), UUIDs and lower-case hex hashes, dotted version
  numbers (``1.0.0``, two or three dots), a year and month (``2024-01``) and
  relative paths (``./x``, ``../x``: a ``.`` starts a number only before a
  digit, ``inf`` or ``nan``), which both schemas read as strings;
* only characters both parsers accept alike: no control characters, tabs,
  CR, NEL, line/paragraph separators, byte-order marks or surrogates.

Anchors, aliases, merge keys, tags, flow collections, block scalars,
directives, document markers, complex keys, octal/hex/binary/sexagesimal
numbers, exponents, ``.inf``/``.nan`` and YAML 1.1-only booleans therefore
all go to PyYAML.  On the fast path ``yaml-rs`` must also agree on structure
(indentation, multi-line plain scalars) and raise on duplicate keys; any
exception from it sends the document to PyYAML, which then produces the
duplicate-key issues or the syntax error.

YAML 1.2 has no timestamp type, so ``yaml-rs`` returns unquoted timestamps as
plain ``str``.  They are turned into :class:`YamlTimestamp` by position: every
value scalar of an accepted document sits at the end of a line after ``": "``
or ``"- "``, so one regex finds all timestamp-shaped values, quoted or not, in
document order; the parsed data is walked in document order and the n-th
timestamp-shaped string gets the n-th match's kind.  If the counts or the
texts disagree (a multi-line plain scalar, an escape that spells a timestamp)
the document goes to PyYAML.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from mif_rdf.source.yamlio import YamlResult, YamlTimestamp
from mif_rdf.source.yamlio import load_yaml as _pyyaml_load

__all__ = ["SAFE_DOCUMENT", "backend", "is_fast_candidate", "load_yaml"]

# --------------------------------------------------------------------------
# The pre-check
# --------------------------------------------------------------------------
#: Characters that never reach the fast path (C0/C1 controls incl. tab, CR
#: and NEL, DEL, line/paragraph separators, surrogates, BOM, U+FFFE/U+FFFF).
_NEVER = "\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff"
#: One character of a plain scalar other than ':' and whitespace.
_C = rf"[^\s:{_NEVER}]"
#: The rest of a plain scalar after its first character: runs of characters
#: where ':' is always followed by a non-space, single words separated by
#: spaces, no word starting with '#' (a comment), no trailing space.
_PLAIN_REST = rf"{_C}*+(?::++{_C}++)*+(?: ++(?!#){_C}++(?::++{_C}++)*+)*+"
#: First character of a plain string in both schemas: no YAML indicator, and
#: none of the characters PyYAML's implicit resolvers start with (digits,
#: sign, '.', '<' (merge), '~', '=' (value)), nor '_' (yaml-rs reads '_1' as 1).
_FIRST = rf"[^\s\-?:,\[\]{{}}#&*!|>'\"%@`+0-9._<~={_NEVER}]"
#: Where a plain scalar ends: end of line, or ':' + space / end (a key).
_END = r"(?=\n|\Z|:[ \n]|:\Z)"
#: Plain words that a YAML 1.1 or 1.2 schema (or a lax Rust float parser)
#: may read as a boolean, null or float, in any letter case.
_NOT_A_WORD = (
    r"(?!(?:[yY](?:[eE][sS])?|[nN](?:[oO]|[aA][nN])?|[oO](?:[nN]|[fF][fF])"
    r"|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?"
    r"|[tT][rR][uU][eE]|[fF][aA][lL][sS][eE]|[nN][uU][lL][lL])" + _END + ")"
)
#: The same, but the canonical booleans and nulls (read alike) are allowed.
_NOT_A_RISKY_WORD = (
    r"(?!(?:[yY](?:[eE][sS])?|[nN](?:[oO]|[aA][nN])?|[oO](?:[nN]|[fF][fF])"
    r"|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?"
    r"|(?!true|True|TRUE|false|False|FALSE|null|Null|NULL)"
    r"(?:[tT][rR][uU][eE]|[fF][aA][lL][sS][eE]|[nN][uU][lL][lL]))" + _END + ")"
)
#: A character that appears in no YAML 1.1 or 1.2 number or timestamp.
_NOT_NUMERIC = r"[^\n0-9a-fA-FxXoOtTzZiInN_.:+\- ]"
_SQ = rf"'(?:[^'\n{_NEVER}]++|'')*+'"
_DQ = rf'"(?:[^"\\\n{_NEVER}]++|\\[\\"nt]|\\x[0-9a-fA-F]{{2}}|\\u[0-9a-fA-F]{{4}})*+"'
#: The timestamp forms taken on the fast path (a subset of yamlio.TIMESTAMP_RE).
_TS = r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?(?:Z|[+-][0-9]{2}:[0-9]{2})?)?"
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
#: Lower-case hex digits with a letter other than 'e' (so no exponent), not
#: '0b...' (a YAML 1.1 binary integer): e.g. git and content hashes.
_HEX = r"(?!0b)[0-9](?=[0-9a-f]*?[a-df])[0-9a-f]*+"
_EOL = r"(?=\n|\Z)"
_VALUE = (
    "(?>"
    rf"{_NOT_A_RISKY_WORD}{_FIRST}{_PLAIN_REST}"
    rf"|{_SQ}|{_DQ}"
    rf"|-?(?:0|[1-9][0-9]{{0,17}}){_EOL}"
    rf"|-?(?:0|[1-9][0-9]{{0,14}})\.[0-9]{{1,15}}{_EOL}"
    rf"|{_TS}{_EOL}|{_UUID}{_EOL}|{_HEX}{_EOL}"
    rf"|[0-9]{{1,9}}(?:\.[0-9]{{1,9}}){{2,3}}{_EOL}|[0-9]{{4}}-[0-9]{{2}}{_EOL}|\.\.?/{_PLAIN_REST}"
    rf"|[0-9_](?=[^\n]*?{_NOT_NUMERIC}){_PLAIN_REST}"
    r"|\[\]|\{\}|~"
    rf"){_EOL}"
)
_KEY_END = r"(?=:(?: |\n|\Z))"
_KEY = (
    "(?>"
    rf"{_NOT_A_WORD}{_FIRST}{_PLAIN_REST}"
    rf"|(?!'<<'){_SQ}|(?!\"<<\"){_DQ}"
    rf"|{_UUID}{_KEY_END}|{_HEX}{_KEY_END}"
    rf"|[0-9_](?=[^\n:]*?{_NOT_NUMERIC}){_PLAIN_REST}"
    r"):(?= |\n|\Z)"
)
_LINE = (
    "(?>"
    rf" {{0,60}}(?:- ){{0,10}}(?:{_KEY}(?: {_VALUE}|{_EOL})|-{_EOL})"
    rf"| {{0,60}}(?:- ){{1,10}}{_VALUE}"
    rf"| *+(?:#[^\n{_NEVER}]*+)?"
    ")"
)
#: A whole document the fast path may read (use with ``fullmatch``).
SAFE_DOCUMENT = re.compile(rf"(?: *+(?:#[^\n{_NEVER}]*+)?\n)*+(?! )(?:{_LINE}\n)*+{_LINE}")

#: Every timestamp-shaped value scalar (plain, single- or double-quoted) in
#: document order; group 1 is set for plain ones.
_TS_VALUE = re.compile(rf" (?:({_TS})|'({_TS})'|\"({_TS})\")(?=\n|\Z)")


def is_fast_candidate(text: str) -> bool:
    """True if the pre-check lets ``text`` go to the fast parser."""
    return SAFE_DOCUMENT.fullmatch(text) is not None


# --------------------------------------------------------------------------
# Timestamps back
# --------------------------------------------------------------------------
class _Unsure(Exception):
    """The fast result cannot be proven equal to PyYAML's: use PyYAML."""


def _mark_timestamps(node: Any, found: list[tuple[str, bool]], shapes: set[str], at: list[int]) -> None:
    """Walk ``node`` in document order, turning the plain timestamps back into YamlTimestamp."""
    items = node.items() if type(node) is dict else enumerate(node)
    for key, value in items:
        kind = type(value)
        if kind is str:
            if value in shapes:
                index = at[0]
                if index >= len(found) or found[index][0] != value:
                    raise _Unsure
                if found[index][1]:
                    node[key] = YamlTimestamp(value)
                at[0] = index + 1
        elif kind is dict or kind is list:
            _mark_timestamps(value, found, shapes, at)


# --------------------------------------------------------------------------
# The backend
# --------------------------------------------------------------------------
#: yaml-rs versions whose behaviour tests/test_fastyaml.py has checked.
TESTED_VERSIONS = ("0.1.6",)

_parse: Callable[[str], Any] | None = None
_backend: str | None = None


def _load_backend() -> None:
    global _parse, _backend
    try:
        from importlib.metadata import version

        import yaml_rs
    except ImportError:
        return
    try:
        installed = version("yaml-rs")
    except Exception:
        return
    if installed not in TESTED_VERSIONS:
        return
    policy = yaml_rs.DuplicateKeyPolicy.Error

    def parse(text: str) -> Any:
        return yaml_rs.loads(text, parse_datetime=False, duplicate_key_policy=policy)

    _parse = parse
    if not _self_check():
        _parse = None
        return
    _backend = f"yaml-rs {installed}"


#: Documents the backend must read exactly as PyYAML before it is used.
_CANARIES = (
    "a: 1\nb: -2\nc: 0.5\nd: true\ne: null\nf: ~\ng: []\nh: {}\ni: word\nj: 'x''y'\nk: \"\\x41\\u00e9\\t\"\n",
    "created: 2026-01-15T10:30:00Z\nq: '2026-01-15'\nd: 2026-01-15\nl:\n- 2026-01-15T10:30:00.5+01:00\n"
    "- '2026-01-15'\n",
    "a:\n  b:\n  - c: 1\n    d: x y z\n  -\n- e\n",
    "a: 1\na: 2\n",
    "a:\n  b: 1\n c: 2\n",
    "a: x\n  - y\n",
    "",
)


def _self_check() -> bool:
    """Does the backend read the canaries exactly like PyYAML (same data, issues, errors)?"""
    for text in _CANARIES:
        try:
            expected: Any = _pyyaml_load(text)
            expected = ("ok", _typed(expected.data), [vars(i) for i in expected.issues])
        except Exception as exc:  # noqa: BLE001 - compared, not handled
            expected = ("error", type(exc))
        try:
            got: Any = load_yaml(text)
            got = ("ok", _typed(got.data), [vars(i) for i in got.issues])
        except Exception as exc:  # noqa: BLE001
            got = ("error", type(exc))
        if got != expected:
            return False
    return True


def _typed(value: Any) -> Any:
    """``value`` with every scalar tagged by its exact type, for comparison."""
    if type(value) is dict:
        return [("dict",)] + [(_typed(k), _typed(v)) for k, v in value.items()]
    if type(value) is list:
        return [("list",)] + [_typed(v) for v in value]
    return (type(value).__name__, repr(value))


def backend() -> str | None:
    """``"yaml-rs X.Y.Z"`` when the fast path is in use, else None (PyYAML only)."""
    return _backend


# --------------------------------------------------------------------------
# The loader
# --------------------------------------------------------------------------
def load_yaml(text: str) -> YamlResult:
    """Parse one YAML document exactly like :func:`mif_rdf.source.yamlio.load_yaml`, faster.

    Raises ``yaml.YAMLError`` on syntax errors (always PyYAML's own).
    """
    parse = _parse
    if parse is None or SAFE_DOCUMENT.fullmatch(text) is None:
        return _pyyaml_load(text)
    try:
        data = parse(text)
        found = _TS_VALUE.findall(text)
        if found:
            timestamps = [(plain, True) if plain else (single or double, False) for plain, single, double in found]
            if any(is_plain for _, is_plain in timestamps):
                if "\\" in text:  # an escape could spell a timestamp the regex did not see
                    raise _Unsure
                at = [0]
                if type(data) is dict or type(data) is list:
                    _mark_timestamps(data, timestamps, {value for value, _ in timestamps}, at)
                if at[0] != len(timestamps):
                    raise _Unsure
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # noqa: BLE001 - yaml-rs errors and Rust panics (PanicException) alike
        return _pyyaml_load(text)
    return YamlResult(data, [], _bounds(text))


#: A line indented by more than this many spaces leaves a document's nesting unbounded by :func:`_bounds`.
_DEEP_LINE = "\n" + " " * 11


def _bounds(text: str) -> tuple[int, int] | None:
    """The most values and the deepest nesting a document the pre-check accepted can hold, from its text alone.

    Each of its lines is ``key: value``, ``key:``, ``- value`` or ``-`` after at most 60 spaces and 10 dashes,
    with no alias: a tree in which a line adds at most 10 sequences, a mapping and a value (16 a line is a
    margin).  A nested collection starts to the right of its parent, except a sequence under a key, which may
    start in the key's column, and the child of a sequence starts right of its dash: two levels cost at least a
    column, so a collection starting in column c is at most 2c + 2 deep (an empty ``[]``/``{}`` under it one
    more).  With no line indented more than 10 spaces a collection starts by column 30 (10 dashes after the
    spaces): at most 63 deep.  None when a line is indented more (the caller then walks the data).
    """
    if _DEEP_LINE in text:
        return None
    return 16 * (text.count("\n") + 1) + 1, 63


_load_backend()
