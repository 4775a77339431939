#!/usr/bin/env bash
# Checks static/qpath.d.ts against the real JSON: the CLI writes the JSON of a few reports and a matrix
# (`qpath --format json`, `qpath matrix --format json`), each becomes a .ts file `const value: Report = <json>;` in a
# temporary folder, and `tsc --noEmit --strict` (tests/e2e's pinned typescript) type-checks them against the d.ts. A key
# the d.ts lacks, a key it has that the JSON lacks, a wrong type or a string outside one of its unions fails the check.
# `qpath gpus --format json` and `qpath releases --format json` print the JS API's gpus() and releases() objects,
# checked as GpuInfo[] and ReleaseInfo[].
# Needs tests/e2e's node packages (scripts/setup.sh test, or `npm ci` in tests/e2e). Ends with "dts: N passed, M failed".
set -euo pipefail
cd "$(dirname "$0")/.."

TSC=tests/e2e/node_modules/.bin/tsc
[ -x "$TSC" ] || { echo "dts: $TSC missing; run scripts/setup.sh test (or npm ci in tests/e2e)" >&2; exit 1; }
cargo build -q -p qpath-cli
QPATH=target/debug/qpath

DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
cp static/qpath.d.ts "$DIR/qpath.d.ts"
count=0

# emit NAME TYPE QPATH-ARGS...: $DIR/NAME.ts holds the JSON the CLI prints, typed as TYPE of the d.ts.
emit() {
  local name="$1" type="$2"
  shift 2
  {
    printf 'import type { %s } from "./qpath.d.ts";\n\nexport const value: %s = ' "${type%\[\]}" "$type"
    # The CLI's exit code says whether vLLM would serve (0), fail (1) or qpath cannot model it (2); all print JSON.
    "$QPATH" "$@" || [ $? -le 2 ]
    printf ';\n'
  } >"$DIR/$name.ts"
  count=$((count + 1))
}

LLAMA="vllm serve meta-llama/Llama-3.1-8B-Instruct"
# FlashInfer groups that raise: the FA2 FP8 assertion (0.25.0-prefix on L4), SM90 with sliding-window layers
# (NotImplementedError, next to a group that works), an NVFP4 cache off SM100 (ValueError), FA2 with head_dim 512 off
# Blackwell (RuntimeError); groups that work, one with attention sinks.
emit group-assertion Report --gpu l4 --vllm 0.25.0-prefix --format json -- $LLAMA --kv-cache-dtype fp8
emit group-not-implemented Report --gpu h100-sxm --vllm 0.26.0 --format json -- \
  vllm serve google/gemma-3-27b-it --attention-backend FLASHINFER
emit group-value-error Report --gpu h100-sxm --vllm 0.24.0 --format json -- $LLAMA --attention-backend FLASHINFER --kv-cache-dtype nvfp4
emit group-runtime-error Report --gpu h100-sxm --vllm 0.32.0 --format json -- $LLAMA --attention-backend FLASHINFER \
  --kv-cache-dtype fp8 -ac.disable_flashinfer_q_quantization true --hf-overrides '{"head_dim": 512}'
emit group-ok Report --gpu b200 --format json -- $LLAMA --kv-cache-dtype fp8
emit group-sinks Report --gpu b200 --trtllm-cubins yes --format json -- vllm serve openai/gpt-oss-20b
# The environment: offline (vLLM's artifactory warning), an installed FlashInfer other than the pin, a nightly.
emit env-offline-flashinfer Report --gpu b200 --vllm 0.26.0 --trtllm-cubins no --flashinfer 0.7.2.post1 --format json -- \
  $LLAMA --attention-backend FLASHINFER
emit env-nightly Report --gpu h100-sxm --vllm 0.27.2rc1.dev77+g1234abc --format json -- $LLAMA --kv-cache-dtype fp8
# Scenario errors: argparse, an invalid forced backend (vLLM's ValueError), a model qpath cannot read.
emit scenario-argument Report --format json -- $LLAMA --no-such-flag
emit scenario-value Report --gpu v100 --format json -- $LLAMA --attention-backend FLASHINFER
emit scenario-input Report --format json -- vllm serve no-such-org/no-such-model
# Several groups: sliding-window and full layers, one quantized and one skipped.
emit multi-group Report --gpu h100-sxm --format json -- vllm serve google/gemma-3-27b-it
emit multi-group-skip Report --gpu b200 --format json -- \
  vllm serve google/gemma-3-27b-it --kv-cache-dtype fp8 --kv-cache-dtype-skip-layers sliding_window
# A raw compute capability (gpu.id is null).
emit capability Report --compute-capability 9.0 --format json -- $LLAMA
# Speculative decoding: an MTP drafter on the hybrid Qwen3-Next, an EAGLE-3 head under V1 with the CUDA-graph downgrade,
# a method without drafter layers, a drafter qpath cannot model.
emit spec-mtp Report --gpu b200 --format json -- vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct \
  --speculative-config '{"method": "qwen3_next_mtp", "num_speculative_tokens": 2}'
emit spec-eagle3 Report --gpu h100-sxm --vllm 0.25.0 --format json -- $LLAMA --attention-backend FLASHINFER \
  --speculative-config '{"model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}'
emit spec-ngram Report --gpu l4 --vllm 0.24.0 --format json -- $LLAMA --speculative-config '{"method": "ngram", "num_speculative_tokens": 2}'
emit spec-unknown Report --format json -- $LLAMA --speculative-config '{"model": "someone/EAGLE3-x", "num_speculative_tokens": 2}'
# The tables.
emit gpus 'GpuInfo[]' gpus --format json
emit releases 'ReleaseInfo[]' releases --format json
# Matrices: every status (ok, error, other-backend) appears in these; both modes (FlashInfer's grid, the backend vLLM
# picks over every backend's cache dtypes, with TRITON_ATTN, TURBOQUANT and FLASH_ATTN cells).
emit matrix Matrix matrix --vllm 0.33.0 --format json -- $LLAMA
emit matrix-gemma Matrix matrix --vllm 0.28.0 --format json -- vllm serve google/gemma-3-27b-it
emit matrix-picked Matrix matrix --backend picked --vllm 0.33.0 --format json -- vllm serve Qwen/Qwen3-4B
# Every backend's group: FLASH_ATTN (H100, and with an FP8 cache: the query quantization), TRITON_ATTN (T4, and its
# init error on a bfloat16 cache), FLEX_ATTENTION forced, TURBOQUANT, a composite qpath cannot model (0.30.0+).
emit backend-flash-attn Report --gpu h100-sxm --format json -- $LLAMA
emit backend-flash-attn-fp8 Report --gpu h100-sxm --format json -- $LLAMA --kv-cache-dtype fp8
emit backend-triton Report --gpu t4 --format json -- vllm serve Qwen/Qwen3-4B
emit backend-triton-error Report --gpu t4 --format json -- $LLAMA --kv-cache-dtype bfloat16
emit backend-flex Report --gpu h100-sxm --format json -- $LLAMA --attention-backend FLEX_ATTENTION
emit backend-turboquant Report --gpu h100-sxm --format json -- $LLAMA --kv-cache-dtype turboquant_k8v4
emit backend-composite Report --gpu h100-sxm --format json -- $LLAMA --attention-backend TRITON_FLASH_ATTN
# MLA (DeepSeek-architecture models): DeepSeek-V3 on B200 with an FP8 cache (FLASHINFER_MLA, an FP8 decode query, the
# FLASH_ATTN prefill backend's kernel), DeepSeek-V2-Lite on an L4 (TRITON_MLA, no q_lora_rank), the sparse DeepSeek-V3.2
# on H200 with fp8_ds_mla (index_topk, its indexer group), pydantic's ValidationError for an nvfp4 cache on MLA, the
# picked matrix over the MLA cache dtypes, and DeepSeek MTP (an MLA drafter group).
emit mla-deepseek-v3 Report --gpu b200 --format json -- vllm serve deepseek-ai/DeepSeek-V3 --kv-cache-dtype fp8
emit mla-v2-lite Report --gpu l4 --format json -- vllm serve deepseek-ai/DeepSeek-V2-Lite
emit mla-sparse Report --gpu h200 --format json -- vllm serve deepseek-ai/DeepSeek-V3.2 --kv-cache-dtype fp8_ds_mla
emit mla-validation-error Report --gpu b200 --format json -- vllm serve deepseek-ai/DeepSeek-V3 --kv-cache-dtype nvfp4
emit matrix-mla Matrix matrix --backend picked --vllm 0.33.0 --format json -- vllm serve deepseek-ai/DeepSeek-V3
emit mla-mtp Report --gpu b200 --format json -- vllm serve deepseek-ai/DeepSeek-V3 \
  --speculative-config '{"method": "mtp", "num_speculative_tokens": 1}'

cat >"$DIR/tsconfig.json" <<'EOF'
{
  "compilerOptions": {
    "strict": true,
    "noEmit": true,
    "target": "es2020",
    "module": "esnext",
    "moduleResolution": "bundler",
    "allowImportingTsExtensions": true,
    "skipLibCheck": false,
    "types": []
  },
  "include": ["*.ts"]
}
EOF

if "$TSC" --noEmit --strict -p "$DIR/tsconfig.json"; then
  echo "dts: $count passed, 0 failed"
else
  echo "dts: static/qpath.d.ts does not describe the JSON above (files in $DIR are removed on exit)" >&2
  echo "dts: 0 passed, 1 failed"
  exit 1
fi
