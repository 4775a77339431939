#!/bin/bash
# Download the vLLM releases of data/releases.toml and the flashinfer-python releases they pin, unzip their
# python sources into DIR, and write the per-release option lists DIR/notes/flags-<VER>.detail.tsv from them
# (scripts/gen-flag-lists.py): what scripts/gen-vllm-flags.py --src DIR reads.
#
#   scripts/fetch-vllm-source.sh [DIR]      DIR: default $QPATH_VLLM_SRC, else ./vllm-src (relative to the current folder)
#
# Only released releases without a `source` key are downloaded (a release with `source = "X"` has X's files byte for
# byte); flashinfer is downloaded for the pin of every released release. Re-running skips what is already there.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
releases="$repo/data/releases.toml"
dest=${1:-${QPATH_VLLM_SRC:-./vllm-src}}
[ -f "$releases" ] || { echo "$releases not found" >&2; exit 1; }

# Two lines: the vLLM releases to download, then the flashinfer pins (each list space-separated, in file order).
lists=$(python3 - "$releases" <<'PY'
import sys, tomllib

with open(sys.argv[1], "rb") as f:
    releases = [r for r in tomllib.load(f).get("release", []) if r.get("released", True)]
vllm = [r["name"] for r in releases if "source" not in r]
pins = list(dict.fromkeys(r["flashinfer"] for r in releases))
print(" ".join(vllm))
print(" ".join(pins))
PY
) || { echo "cannot read $releases" >&2; exit 1; }
vllm_versions=$(sed -n 1p <<<"$lists")
flashinfer_versions=$(sed -n 2p <<<"$lists")

mkdir -p "$dest" && cd "$dest" || exit 1
for v in $vllm_versions; do
  if [ ! -f vllm-$v/DONE ]; then
    pip download vllm==$v --no-deps -d wheels/vllm-$v -q || { echo "FAIL vllm $v"; continue; }
    mkdir -p vllm-$v && (cd vllm-$v && unzip -q -o ../wheels/vllm-$v/*.whl 'vllm/*.py' '*.dist-info/METADATA' ) && touch vllm-$v/DONE
    rm -f wheels/vllm-$v/*.whl
    echo "ok vllm $v"
  fi
done
for f in $flashinfer_versions; do
  if [ ! -f flashinfer-$f/DONE ]; then
    pip download flashinfer-python==$f --no-deps -d wheels/fi-$f -q || { echo "FAIL fi $f"; continue; }
    mkdir -p flashinfer-$f && (cd flashinfer-$f && for w in ../wheels/fi-$f/*; do case $w in *.whl) unzip -q -o $w 'flashinfer/*.py' 'flashinfer/**/*.py' '*.dist-info/METADATA';; *.tar.gz) tar xzf $w;; esac; done) && touch flashinfer-$f/DONE
    echo "ok fi $f"
  fi
done
# The per-release `vllm serve` option lists (DIR/notes/flags-<VER>.detail.tsv), read from the sources by AST; rewritten
# every run (a few seconds), so they follow the tool.
python3 "$repo/scripts/gen-flag-lists.py" --src . --releases "$releases" || echo "FAIL gen-flag-lists (messages above)"
echo ALLDONE
