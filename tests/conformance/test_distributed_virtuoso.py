"""Issue 32 item 5: the partition files of ``export --dask`` bulk-load into Virtuoso 7 with its own loader.

A generated bundle is exported on a LocalCluster (one gzipped N-Quads file
per partition), Virtuoso's bulk loader (``ld_dir`` + ``rdf_loader_run``)
reads the folder, and the store is read back over its SPARQL endpoint with
plain urllib: the quads of every graph the bundle has (counted per graph)
and the links graph's ``mif:path`` rows are those of the single-machine
streamed export.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import urllib.parse
import urllib.request
from collections import Counter
from pathlib import Path

import pyoxigraph as ox
from distributed import Client, LocalCluster
from test_upstream_virtuoso import virtuoso  # noqa: F401  (the fixture: a fresh Virtuoso on loopback)

from mif_rdf.distributed import export_nquads
from mif_rdf.load.bundle import PATH as MIF_PATH
from mif_rdf.output import stream_nquads
from synthetic import generate_bundle

PATH = str(MIF_PATH)


def select(url: str, query: str) -> list[dict[str, str]]:
    """A SPARQL SELECT on Virtuoso's endpoint, each row's values as text."""
    request = urllib.request.Request(
        f"{url}/sparql?{urllib.parse.urlencode({'query': query})}",
        headers={"Accept": "application/sparql-results+json"},
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        rows = json.loads(answer.read())["results"]["bindings"]
    return [{name: cell["value"] for name, cell in row.items()} for row in rows]


def isql(folder: Path, command: str) -> str:
    """A SQL command through isql-vt, on the port the fixture wrote into its virtuoso.ini."""
    port = re.search(r"\[Parameters\]\nServerPort = 127\.0\.0\.1:(\d+)", (folder / "virtuoso.ini").read_text())
    assert port is not None
    done = subprocess.run(
        [shutil.which("isql-vt") or "isql-vt", f"127.0.0.1:{port[1]}", "dba", "dba", f"exec={command}"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return done.stdout


def test_the_partition_files_bulk_load_into_virtuoso(virtuoso: str, tmp_path: Path) -> None:  # noqa: F811
    root, out = tmp_path / "bundle", tmp_path / "nq"  # the fixture allows Virtuoso to read tmp_path (DirsAllowed)
    generate_bundle(root, 150, seed=4, broken_links=3)
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        report = export_nquads(root, out, client, partitions=3)
    assert len(list(out.glob("*.nq.gz"))) == 7 and report.quads > 0
    isql(tmp_path, f"ld_dir('{out}', '*.nq.gz', 'urn:mif-rdf:unused'); rdf_loader_run(); checkpoint;")
    errors = isql(tmp_path, "SELECT COUNT(*) FROM DB.DBA.load_list WHERE ll_error IS NOT NULL;")
    assert re.search(r"^\s*0\s*$", errors, re.M), errors

    streamed = io.BytesIO()
    stream_nquads(root, streamed, progress=False)
    quads = set(ox.parse(streamed.getvalue(), format=ox.RdfFormat.N_QUADS))
    expected = Counter(q.graph_name.value for q in quads)
    rows = select(virtuoso, "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g")
    loaded = {row["g"]: int(row["n"]) for row in rows if row["g"] in expected}
    assert loaded == dict(expected)
    links = next(g for g in expected if g.endswith("#links"))
    paths = {
        (q.subject.value, q.object.value) for q in quads if q.graph_name.value == links and q.predicate.value == PATH
    }
    got = select(virtuoso, f"SELECT ?s ?o WHERE {{ GRAPH <{links}> {{ ?s <{PATH}> ?o }} }}")
    assert {(row["s"], row["o"]) for row in got} == paths and len(paths) >= 150
