"""Where the upstream MIF data is, for the upstream-conformance suite only.

The main suite runs on a bare clone with the project's own fixtures
(tests/fixtures/); this suite runs the same properties against the data of the
public MIF repositories, which a clone does not carry.  It is collected only
with ``pytest --shared PATH`` (``make conformance``), and a missing PATH is a
usage error, so it never passes by skipping.  The root conftest exports the
path as ``MIF_SHARED_DIR`` before collection.
"""

from __future__ import annotations

import os
from pathlib import Path

SHARED = Path(os.environ["MIF_SHARED_DIR"])
UPSTREAM = SHARED / "fixtures" / "upstream" / "mif"
#: ontologies of the public corpus, with their `extends` chains closed
CORPUS = SHARED / "fixtures" / "upstream" / "ontologies"
AI_MEMORY_ONTOLOGY = UPSTREAM / "profiles" / "ai-memory" / "ontology.yaml"
SUBTYPES = UPSTREAM / "test" / "subtype_of"
SPEC_DATA = SHARED / "spec" / "upstream-data"
SCHEMA = SPEC_DATA / "schema"

#: Folders of the upstream data that are bundles of MIF v1.0 memories.
UPSTREAM_BUNDLES = {
    "upstream-examples": UPSTREAM / "examples",
    "ai-memory-examples": UPSTREAM / "profiles" / "ai-memory" / "examples",
    "upstream-properties": UPSTREAM / "test" / "properties",
    "upstream-temporal-good": UPSTREAM / "test" / "temporal" / "good",
    "upstream-temporal-bad": UPSTREAM / "test" / "temporal" / "bad",
    "upstream-legacy-0.1": UPSTREAM / "test" / "fixtures" / "legacy-0.1-bundle",
}
