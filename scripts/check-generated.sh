#!/usr/bin/env bash
# Checks that the generated data files equal what their generator prints from the released sources today:
#   data/vllm-enums.tsv  = scripts/gen-vllm-flags.py --src DIR --enums
#   data/vllm-flags.tsv  = scripts/gen-vllm-flags.py --src DIR         (only when DIR/notes/ holds the option lists,
#                          which scripts/gen-flag-lists.py --src DIR writes)
#   data/source-lines.toml's lines start with their anchors, and data/source-statements.tsv =
#                          scripts/source-anchors.py --src DIR --write
# DIR (default $QPATH_VLLM_SRC, else ./vllm-src) is what scripts/fetch-vllm-source.sh DIR fills. The wheels are large
# and not on CI's machines, so this is a maintainer's check (ARCHITECTURE.md, "Adding a vLLM release"), not a test step.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
src=${1:-${QPATH_VLLM_SRC:-./vllm-src}}
[ -d "$src" ] || { echo "check-generated: $src not found; run scripts/fetch-vllm-source.sh $src first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
python3 "$repo/scripts/gen-vllm-flags.py" --src "$src" --enums > "$tmp/vllm-enums.tsv"
if diff -u "$repo/data/vllm-enums.tsv" "$tmp/vllm-enums.tsv"; then
  echo "check-generated: data/vllm-enums.tsv equals the generator's output"
else
  echo "check-generated: data/vllm-enums.tsv differs from the generator's output (diff above)"; status=1
fi
python3 "$repo/scripts/gen-field-bounds.py" --src "$src" > "$tmp/vllm-field-bounds.tsv" 2> /dev/null
if diff -u "$repo/data/vllm-field-bounds.tsv" "$tmp/vllm-field-bounds.tsv"; then
  echo "check-generated: data/vllm-field-bounds.tsv equals the generator's output"
else
  echo "check-generated: data/vllm-field-bounds.tsv differs from the generator's output (diff above)"; status=1
fi
if [ -d "$src/notes" ]; then
  python3 "$repo/scripts/gen-vllm-flags.py" --src "$src" > "$tmp/vllm-flags.tsv"
  if diff -u "$repo/data/vllm-flags.tsv" "$tmp/vllm-flags.tsv"; then
    echo "check-generated: data/vllm-flags.tsv equals the generator's output"
  else
    echo "check-generated: data/vllm-flags.tsv differs from the generator's output (diff above)"; status=1
  fi
else
  echo "check-generated: $src/notes/ (the per-release option lists) is missing: data/vllm-flags.tsv not checked;" \
       "write it with scripts/gen-flag-lists.py --src $src"
fi
if python3 "$repo/scripts/source-anchors.py" --src "$src" --check; then
  echo "check-generated: every line of data/source-lines.toml starts with its anchor"
else
  echo "check-generated: lines of data/source-lines.toml miss their anchors (listed above)"; status=1
fi
python3 "$repo/scripts/source-anchors.py" --src "$src" --write --out "$tmp/source-statements.tsv" > /dev/null
if diff -u "$repo/data/source-statements.tsv" "$tmp/source-statements.tsv"; then
  echo "check-generated: data/source-statements.tsv equals the generator's output"
else
  echo "check-generated: data/source-statements.tsv differs from the generator's output (diff above)"; status=1
fi
exit $status
