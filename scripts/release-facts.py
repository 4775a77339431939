#!/usr/bin/env python3
"""Check (or print) the facts data/releases.toml keeps per vLLM release against their sources.

  scripts/release-facts.py [--src DIR] [--print VERSION ...]

For every released row of data/releases.toml:
  published  the UTC day of the first wheel's `upload-time` in PyPI's simple index (JSON form, PEP 691):
             https://pypi.org/simple/vllm/ with `Accept: application/vnd.pypi.simple.v1+json`
  commit     `commit_id` of DIR/vllm-<VER>/vllm/_version.py without its "g" (the short form the row keeps)
  flashinfer `Requires-Dist: flashinfer-python==X` of DIR/vllm-<VER>/vllm-<VER>.dist-info/METADATA
  requires_flashinfer_cubin  whether that METADATA requires flashinfer-cubin
A row with `source = "X"` was not unpacked by scripts/fetch-vllm-source.sh (its files are X's): only its published day
is checked. DIR is --src, else $QPATH_VLLM_SRC, else ./vllm-src.

`--print VERSION ...` prints the TOML lines of new rows (name, flashinfer, commit, published,
requires_flashinfer_cubin) for releases not yet in the table, from the same sources (unpack them first with
`pip download vllm==VERSION --no-deps` and unzip `vllm/_version.py` and `*.dist-info/METADATA`).

Exit status 1 when a row differs from its sources (each difference is printed), 0 otherwise. This reads the network
(PyPI), so it is a maintainer's check (ARCHITECTURE.md, "Adding a vLLM release"), not a test step.
"""
import argparse
import json
import os
import re
import sys
import tomllib
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def upload_days():
    """{version: first wheel's upload day} from PyPI's simple index."""
    req = urllib.request.Request(
        "https://pypi.org/simple/vllm/", headers={"Accept": "application/vnd.pypi.simple.v1+json"}
    )
    with urllib.request.urlopen(req, timeout=120) as f:
        index = json.load(f)
    days = {}
    for file in index.get("files", []):
        name = file.get("filename", "")
        if not name.endswith(".whl"):
            continue
        version = name.split("-")[1]
        day = file.get("upload-time", "")[:10]
        if day and (version not in days or day < days[version]):
            days[version] = day
    return days


def wheel_facts(src, version):
    """commit, flashinfer pin and cubin requirement of an unpacked wheel, or None where a file is missing."""
    root = Path(src) / f"vllm-{version}"
    facts = {}
    v = root / "vllm" / "_version.py"
    if v.exists():
        m = re.search(r"commit_id\s*(?::[^=]*)?=\s*['\"]g?([0-9a-f]+)['\"]", v.read_text())
        facts["commit"] = m.group(1)[:9] if m else None
    metas = list(root.glob("*.dist-info/METADATA"))
    if metas:
        meta = metas[0].read_text()
        m = re.search(r"^Requires-Dist: flashinfer-python==([^\s;,]+)", meta, re.M)
        facts["flashinfer"] = m.group(1) if m else None
        facts["requires_flashinfer_cubin"] = bool(re.search(r"^Requires-Dist: flashinfer-cubin\b", meta, re.M))
    return facts


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", default=os.environ.get("QPATH_VLLM_SRC", "./vllm-src"))
    ap.add_argument("--print", nargs="+", metavar="VERSION", dest="new")
    args = ap.parse_args()
    with open(REPO / "data" / "releases.toml", "rb") as f:
        rows = tomllib.load(f)["release"]
    days = upload_days()
    if args.new:
        for version in args.new:
            facts = wheel_facts(args.src, version)
            print("[[release]]")
            print(f'name = "{version}"')
            print(f'flashinfer = "{facts.get("flashinfer")}"')
            print(f'commit = "{facts.get("commit")}"')
            print(f'published = "{days.get(version)}"')
            print(f'requires_flashinfer_cubin = {"true" if facts.get("requires_flashinfer_cubin") else "false"}')
            print()
        return 0
    wrong = 0
    for row in rows:
        if not row.get("released", True):
            continue
        name = row["name"]
        want = {"published": days.get(name)}
        if "source" not in row:
            want.update(wheel_facts(args.src, name))
        for key, value in want.items():
            if value is None:
                print(f"{name}: {key}: no source found (PyPI or {args.src}/vllm-{name})")
                wrong += 1
            elif row.get(key) != value:
                print(f"{name}: {key} = {row.get(key)!r} in data/releases.toml, {value!r} in its source")
                wrong += 1
    print(f"release-facts: {wrong} difference(s) over {sum(1 for r in rows if r.get('released', True))} releases")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
