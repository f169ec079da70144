"""Print pip constraints that pin every direct dependency of mif-rdf (and of its extras) to its declared floor.

``make test-lowest`` installs with them into a fresh virtual environment and runs the
suite: a floor in pyproject.toml that the suite does not pass with fails there, so the
floors stay true.  A floor ``>=X`` is pinned to the lowest release the index has at or
above X (``>=7.1`` may mean 7.1.1 when 7.1.0 was never released); exact pins (``==``)
stay as they are, and transitive dependencies resolve as usual (pip's "lowest-direct").
Runs under the interpreter of the new environment (it needs ``packaging`` and ``pip``).
"""

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version


def lowest_release(name: str, floor: Version) -> Version:
    """The lowest version of ``name`` on the configured index that is not below ``floor``."""
    out = subprocess.run([sys.executable, "-m", "pip", "index", "versions", name, "--json", "--pre"], capture_output=True, text=True, check=True)
    versions = sorted(v for v in map(Version, json.loads(out.stdout)["versions"]) if v >= floor and (floor.is_prerelease or not v.is_prerelease))
    if not versions:
        sys.exit(f"{name}: no release at or above {floor}")
    return versions[0]


project = tomllib.loads(Path(sys.argv[1] if len(sys.argv) > 1 else "pyproject.toml").read_text())["project"]
requirements = [Requirement(r) for r in project["dependencies"]]
for extra in project["optional-dependencies"].values():
    requirements += [Requirement(r) for r in extra if not r.startswith(project["name"])]
floors: dict[str, Version] = {}
for requirement in requirements:
    name = re.sub(r"[-_.]+", "-", requirement.name).lower()
    for spec in requirement.specifier:
        if spec.operator == ">=":
            floors[name] = max(floors.get(name, Version(spec.version)), Version(spec.version))
for name, floor in sorted(floors.items()):
    print(f"{name}=={lowest_release(name, floor)}")
