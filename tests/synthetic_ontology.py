"""Generated ontology YAML of any size, shaped like the large vocabularies of issue 39.

The issue's case was a 50 MB file of 164,022 entity types (about 300 bytes a
type): each type with a description, aliases, a trait or two and a handful of
fields of every kind the compiler maps (strings, formats, enums, numbers,
required fields, an array of mappings), plus relationship types and a
namespace tree.  ``python tests/synthetic_ontology.py --types N FILE`` writes one.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

TRAITS = {
    "stamped": ["created_at: {type: string, format: date-time}", "updated_at: {type: string, format: date}"],
    "scored": ["score: {type: number}", "grade: {type: string, enum: [low, mid, high]}"],
    "sourced": ["source: {type: string, format: uri}", "author: {type: string}"],
    "counted": ["count: {type: integer}"],
}
FIELDS = [
    "label_{n}: {{type: string}}",
    "code_{n}: {{type: string, pattern: '^[A-Z]{{2}}[0-9]+$'}}",
    "kind_{n}: {{type: string, enum: [alpha, beta, gamma]}}",
    "size_{n}: {{type: integer}}",
    "ratio_{n}: {{type: number}}",
    "flag_{n}: {{type: boolean}}",
    "mail_{n}: {{type: string, format: email}}",
]


def ontology_yaml(types: int, *, ontology_id: str = "big", seed: int = 0) -> str:
    """An ontology of ``types`` entity types (deterministic for a seed), extending ``mif-base``."""
    rng = random.Random(seed)
    lines = [
        "ontology:",
        f"  id: {ontology_id}",
        '  version: "1.0.0"',
        f'  description: "generated: {types} entity types"',
        "  extends: [mif-base]",
        "namespaces:",
        "  _semantic:",
        "    type_hint: semantic",
        "    children:",
        *(f"      area{n}: {{description: 'area {n}'}}" for n in range(min(types, 20))),
        "traits:",
    ]
    for name, fields in TRAITS.items():
        lines += [f"  {name}:", "    fields:", *(f"      {field}" for field in fields)]
    lines += ["relationships:"]
    for n in range(max(1, types // 50)):
        lines += [f"  rel_{n}:", f"    description: 'relation {n}'", f"    from: [t{n}]", f"    to: [t{n + 1}]"]
    lines += ["entity_types:"]
    for n in range(types):
        own = rng.sample(FIELDS, 3)
        traits = rng.sample(sorted(TRAITS), rng.randint(0, 2))
        lines += [
            f"  - name: t{n}",
            f"    base: {rng.choice(['semantic', 'episodic', 'procedural'])}",
            f"    description: 'entity type number {n}'",
            f"    aliases: [a{n}]",
        ]
        if traits:
            lines.append(f"    traits: [{', '.join(traits)}]")
        lines += ["    schema:", f"      required: [{own[0].split(':')[0].format(n=n)}]", "      properties:"]
        lines += [f"        {field.format(n=n)}" for field in own]
        if n % 10 == 0:
            lines += [
                f"        parts_{n}:",
                "          type: array",
                "          items: {type: object, properties: {part: {type: string}, done: {type: boolean}}}",
            ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--types", type=int, default=1000)
    parser.add_argument("--id", default="big")
    parser.add_argument("file", type=Path)
    args = parser.parse_args()
    args.file.write_text(ontology_yaml(args.types, ontology_id=args.id))


if __name__ == "__main__":
    main()
