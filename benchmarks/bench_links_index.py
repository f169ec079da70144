"""The streamed export's links index (output/stream_index.py) on its own: what it costs a memory as the bundle grows.

The writer asks the index, for every memory, whether its id and document IRI
are taken, then adds its id, two target keys and its relationships; after the
last memory it joins every relationship with its target.  This replays that
traffic with random UUID ids and three relationships a memory pointing at
random memories, so the index's own cost is measured without reading a file:

    python benchmarks/bench_links_index.py 100000 300000

Per size, CPU microseconds a memory for the adding (look-ups included) and for
the join at the end.  Why it exists: from 100,000 to 300,000 memories the
stream's cost a memory grew by a few per cent, and this was where (the SQLite
index's text-keyed B-trees outgrew its page cache; session 17 replaced them,
docs/performance.md "The links index made cheaper (session 17)").
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from mif_rdf.output.stream_index import StreamIndex  # noqa: E402

BASE = "mif://local/bench/"
LINKS = 3  # relationships a memory


def replay(count: int, seed: int = 1) -> tuple[float, float, int]:
    """CPU seconds adding ``count`` memories, CPU seconds of the join, and the edges it gave."""
    rng = random.Random(seed)
    ids = [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(count)]
    with tempfile.TemporaryDirectory(prefix="mif-rdf-bench-") as folder:
        index = StreamIndex(Path(folder), count)
        try:
            started = time.process_time()
            for memory_id in ids:
                relpath = f"memories/{memory_id}.md"
                doc_iri = BASE + relpath
                links = [
                    (position, "relates-to", target, "urn:mif:" + target)
                    for position, target in enumerate(rng.choices(ids, k=LINKS))
                ]
                if index.holder(memory_id) is None and index.located(doc_iri) is None:
                    index.add_memory(memory_id, "urn:mif:" + memory_id, relpath, doc_iri, False, links)
            adding = time.process_time() - started
            started = time.process_time()
            edges = sum(1 for _ in index.edges())
            joining = time.process_time() - started
        finally:
            index.close()
    return adding, joining, edges


def main(argv: list[str]) -> None:
    for count in [int(arg) for arg in argv] or [100_000, 300_000]:
        adding, joining, edges = replay(count)
        print(
            f"{count:>9,} memories: adding {adding / count * 1e6:5.1f} us a memory, "
            f"the join at the end {joining / count * 1e6:5.1f} us a memory ({edges:,} edges)"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
