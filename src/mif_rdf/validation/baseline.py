"""A validation baseline for CI: known findings are reported as known, only new ones fail the run.

A bundle with 1,500 existing warnings cannot adopt ``mif-rdf validate`` in CI
if every run fails until all are fixed.  A baseline file records the findings
of one run; later runs compare against it:

* **new**: in this run, not in the baseline.  Reported and counted as usual.
* **unchanged**: in both.  Known: not listed (SARIF lists them with
  ``baselineState: unchanged``) and never failing the run.
* **absent**: in the baseline, gone from this run (fixed).

Findings are matched by a *fingerprint* of what identifies them and does not
move when unrelated lines are edited: the rule, the bundle-relative file, the
frontmatter key path and the value.  Line numbers and message wording are left
out (a line moves when a key above it is added; a message may be reworded by a
newer mif-rdf).  Two findings with the same fingerprint (the same rule on the
same key and value, e.g. two load problems of one file) are matched as a
multiset: the baseline's count of a fingerprint is how many of them are known.

The baseline file is JSON (``{"mif-rdf-baseline": 1, "findings": [...]}``),
sorted, one entry per finding, so it diffs well in review.  A SARIF file that
``mif-rdf validate --format sarif`` wrote is read as a baseline too: its
results carry the fingerprint in ``partialFingerprints``.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from mif_rdf.core.errors import MifRdfError, Problem, Severity
from mif_rdf.validation.report import LOAD_RULE, ValidationReport, _joined, _uri

FORMAT_VERSION = 1
#: The ``partialFingerprints`` key of mif-rdf's fingerprint in SARIF results.
SARIF_FINGERPRINT = "mifFinding/v1"


def fingerprint(finding: Problem) -> str:
    """The stable identity of a finding: a hash of rule, file, key path and value (never the line)."""
    value = (
        None if finding.value is None else json.dumps(finding.value, default=str, sort_keys=True, ensure_ascii=False)
    )
    text = json.dumps([finding.rule or LOAD_RULE, finding.path, finding.key or "", value], ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


@dataclass(frozen=True)
class KnownFinding:
    """One finding of a baseline, as recorded (enough to list it once it is fixed)."""

    fingerprint: str
    rule: str
    path: str
    key: str | None = None
    value: Any = None
    severity: str = "error"
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        data = {
            "fingerprint": self.fingerprint,
            "rule": self.rule,
            "path": self.path,
            "key": self.key,
            "value": self.value,
            "severity": self.severity,
            "message": self.message,
        }
        return {k: v for k, v in data.items() if v is not None}


def known(finding: Problem) -> KnownFinding:
    """A finding as a baseline records it."""
    return KnownFinding(
        fingerprint(finding),
        finding.rule or LOAD_RULE,
        finding.path,
        finding.key,
        _plain(finding.value),
        finding.severity.value,
        finding.message,
    )


@dataclass
class Comparison:
    """This run's findings against a baseline: ``new``, ``unchanged`` (both are this run's) and ``absent`` (fixed)."""

    new: list[Problem]
    unchanged: list[Problem]
    absent: list[KnownFinding]

    def summary(self) -> str:
        return (
            f"baseline: {len(self.new)} new, {len(self.absent)} fixed, {len(self.unchanged)} unchanged (only "
            "new findings are listed)"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "new": len(self.new),
            "fixed": len(self.absent),
            "unchanged": len(self.unchanged),
            "fixed_findings": [k.to_dict() for k in self.absent],
        }


def compare(report: ValidationReport, baseline: list[KnownFinding]) -> Comparison:
    """Split ``report``'s findings into new and unchanged, and find the baseline's findings that are gone."""
    left = Counter(k.fingerprint for k in baseline)
    new, unchanged = [], []
    for (
        finding
    ) in report.sorted_results():  # sorted: which of two equal fingerprints counts as new does not depend on run order
        mark = fingerprint(finding)
        if left[mark] > 0:
            left[mark] -= 1
            unchanged.append(finding)
        else:
            new.append(finding)
    absent = []
    for entry in sorted(baseline, key=lambda k: (k.path, k.rule, k.key or "", k.fingerprint)):
        if left[entry.fingerprint] > 0:
            left[entry.fingerprint] -= 1
            absent.append(entry)
    return Comparison(new, unchanged, absent)


def write_baseline(report: ValidationReport, path: Path) -> None:
    """Record every finding of ``report`` in a baseline file (replaced only once complete)."""
    from mif_rdf.core.outputs import replacing

    entries = sorted((known(r) for r in report.results), key=lambda k: (k.path, k.rule, k.key or "", k.fingerprint))
    document = {"mif-rdf-baseline": FORMAT_VERSION, "findings": [k.to_dict() for k in entries]}
    path.parent.mkdir(parents=True, exist_ok=True)
    with replacing(path) as handle:
        handle.write((json.dumps(document, indent=2, ensure_ascii=False, default=str) + "\n").encode("utf-8"))


def read_baseline(path: Path) -> list[KnownFinding]:
    """The findings of a baseline file: mif-rdf's baseline JSON, or a SARIF report mif-rdf wrote.

    Raises :class:`MifRdfError` naming the file when it cannot be read or is neither.
    """
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise MifRdfError(f"cannot read the baseline {str(path)!r}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise MifRdfError(f"the baseline {str(path)!r} is not JSON: {exc}") from None
    if isinstance(document, dict) and "mif-rdf-baseline" in document:
        return _from_baseline(path, document)
    if isinstance(document, dict) and isinstance(document.get("runs"), list):
        return _from_sarif(path, document)
    raise MifRdfError(
        f"{str(path)!r} is no baseline: write one with 'mif-rdf validate BUNDLE --write-baseline FILE' (or give a "
        "SARIF report of mif-rdf)"
    )


def _from_baseline(path: Path, document: dict[str, Any]) -> list[KnownFinding]:
    if document["mif-rdf-baseline"] != FORMAT_VERSION or not isinstance(document.get("findings"), list):
        raise MifRdfError(
            f"the baseline {str(path)!r} has format {document['mif-rdf-baseline']!r}; this mif-rdf reads format "
            f"{FORMAT_VERSION}"
        )
    found = []
    for number, entry in enumerate(document["findings"]):
        if not isinstance(entry, dict) or not isinstance(entry.get("fingerprint"), str):
            raise MifRdfError(f"the baseline {str(path)!r}: findings[{number}] has no fingerprint")
        found.append(
            KnownFinding(
                entry["fingerprint"],
                str(entry.get("rule", LOAD_RULE)),
                str(entry.get("path", "")),
                entry.get("key"),
                entry.get("value"),
                str(entry.get("severity", "error")),
                str(entry.get("message", "")),
            )
        )
    return found


def _from_sarif(path: Path, document: dict[str, Any]) -> list[KnownFinding]:
    found = []
    for run in document["runs"]:
        for result in (run.get("results") or []) if isinstance(run, dict) else []:
            if not isinstance(result, dict) or result.get("baselineState") == "absent":
                continue  # a fixed finding of an earlier comparison is not a known one now
            mark = (result.get("partialFingerprints") or {}).get(SARIF_FINGERPRINT)
            if not isinstance(mark, str):
                raise MifRdfError(
                    f"the SARIF baseline {str(path)!r} has a result without partialFingerprints.{SARIF_FINGERPRINT}: "
                    "write it with 'mif-rdf validate --format sarif --baseline ...' or use --write-baseline"
                )
            properties = result.get("properties") or {}
            found.append(
                KnownFinding(
                    mark,
                    str(result.get("ruleId", LOAD_RULE)),
                    str(properties.get("file", "")),
                    properties.get("key"),
                    properties.get("value"),
                    str(result.get("level", "error")),
                    str((result.get("message") or {}).get("text", "")),
                )
            )
    return found


def report_against_baseline(
    report: ValidationReport,
    baseline: Path | None,
    write: Path | None,
    fmt: str,
    render: Callable[[ValidationReport, str], str],
    root: str = ".",
) -> tuple[str, bool]:
    """What ``mif-rdf validate --baseline FILE --write-baseline FILE`` prints, and whether the run passes.

    The comparison is with ``baseline`` when given, else with the findings
    being written (a first baseline: everything is known, the run passes).
    Writing comes after reading, so one file can be both: a ratchet that
    records each run's findings once it has been checked against the last.
    """
    known_findings = read_baseline(baseline) if baseline else [known(r) for r in report.results]
    result = formatted(report, known_findings, fmt, render, root)
    if write is not None:
        write_baseline(report, write)
    return result


def formatted(
    report: ValidationReport,
    baseline: list[KnownFinding],
    fmt: str,
    render: Callable[[ValidationReport, str], str],
    root: str = ".",
) -> tuple[str, bool]:
    """The report in format ``fmt`` against ``baseline``, and whether the run passes (no new error).

    ``render`` turns a report into text (``mif-rdf validate``'s formatter);
    ``root`` is the bundle folder as CI sees it (where fixed findings' files were).
    SARIF lists every finding with its ``baselineState`` and fingerprint, plus
    the fixed ones as ``absent``; every other format shows only the new
    findings, and the line-oriented ones (text, GitHub annotations) and JSON
    also say how many are new, fixed and unchanged.
    """
    comparison = compare(report, baseline)
    passes = not any(r.severity == Severity.ERROR for r in comparison.new)
    if fmt == "sarif":
        return sarif_with_baseline(render(report, fmt), report, comparison, root), passes
    text = render(replace(report, results=comparison.new), fmt)
    if fmt == "json":
        document = json.loads(text)
        document["baseline"] = comparison.to_dict()
        return json.dumps(document, indent=2, default=str, ensure_ascii=False) + "\n", passes
    if fmt in ("text", "github"):
        return f"{comparison.summary()}\n{text}", passes
    if fmt == "turtle":
        return f"# {comparison.summary()}\n{text}", passes
    return text, passes


def sarif_with_baseline(text: str, report: ValidationReport, comparison: Comparison, root: str = ".") -> str:
    """SARIF 2.1.0 with ``baselineState`` (new/unchanged/absent) and ``partialFingerprints`` on every result.

    The SARIF results come in :meth:`ValidationReport.sorted_results` order,
    which pairs each with its finding.
    """
    document = json.loads(text)
    run = document["runs"][0]
    findings = report.sorted_results()
    if len(findings) != len(run["results"]):
        raise MifRdfError("internal: the SARIF report does not list one result per finding")  # pragma: no cover
    unchanged = {id(f) for f in comparison.unchanged}
    for finding, result in zip(findings, run["results"]):
        _mark_sarif(result, finding)
        result["baselineState"] = "unchanged" if id(finding) in unchanged else "new"
    rules = {rule["id"] for rule in run["tool"]["driver"]["rules"]}
    for entry in comparison.absent:
        if entry.rule not in rules:
            rules.add(entry.rule)
            run["tool"]["driver"]["rules"].append(
                {"id": entry.rule, "name": entry.rule, "shortDescription": {"text": f"MIF rule {entry.rule}"}}
            )
        properties = {
            k: v for k, v in (("file", entry.path), ("key", entry.key), ("value", entry.value)) if v is not None
        }
        run["results"].append(
            {
                "ruleId": entry.rule,
                "level": {"info": "note"}.get(entry.severity, entry.severity),
                "message": {"text": entry.message or f"fixed finding of rule {entry.rule}"},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(_joined(root, entry.path))}}}],
                "partialFingerprints": {SARIF_FINGERPRINT: entry.fingerprint},
                "baselineState": "absent",
                "properties": properties,
            }
        )
    run.setdefault("properties", {})["baseline"] = {
        k: v for k, v in comparison.to_dict().items() if k != "fixed_findings"
    }
    return json.dumps(document, indent=2, default=str, ensure_ascii=False) + "\n"


def _mark_sarif(result: dict[str, Any], finding: Problem) -> None:
    result["partialFingerprints"] = {SARIF_FINGERPRINT: fingerprint(finding)}
    result.setdefault("properties", {})["file"] = finding.path


def _plain(value: Any) -> Any:
    """A value as JSON keeps it (dates as their text), so a baseline read back compares equal."""
    return None if value is None else json.loads(json.dumps(value, default=str, ensure_ascii=False))
