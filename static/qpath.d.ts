// qpath's JavaScript API: what vLLM decides for each attention group on a GPU, a vLLM release and a `vllm serve`
// command line: the backend it picks (FLASHINFER, FLASH_ATTN, TRITON_ATTN, FLEX_ATTENTION, TURBOQUANT, the MLA backends of
// DeepSeek-architecture models, …), the query
// dtype and kernel of each phase, every error, log line and why. The functions are exported by wasm-bindgen from the page's crate (`qpath-web`,
// `src/api.rs`); on the trunk-built page they are on `window.wasmBindings`:
//
//     const { resolve } = window.wasmBindings as unknown as QpathApi;
//     const report = resolve("vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8", { gpu: "l4" });
//
// This file is hand-written; `src/api.rs` embeds it as a `typescript_custom_section`, so the .d.ts wasm-bindgen
// generates carries the same declarations. The Report shape is `crates/qpath-core/src/report.rs`; `resolve()` returns
// exactly the JSON of `qpath --format json` for the same scenario (same keys, same nulls). `scripts/dts-check.sh`
// type-checks real CLI JSON against these declarations, and `crates/qpath-core/tests/dts_unions.rs` holds every
// string-literal union below to the strings the core's enums serialise to.

/** A torch dtype as vLLM and FlashInfer name it, without the `torch.` prefix. `uint8` is the storage dtype of fp8 and
 *  nvfp4 KV caches. */
export type Dtype = "float16" | "bfloat16" | "float32" | "float8_e4m3fn" | "float8_e5m2" | "uint8";

/** A kernel a phase runs, named for its backend. FLASHINFER: `trtllm-gen` (SM100 family), `xqa`, FlashInfer's own FA3 /
 *  FA2 templates (`fa3`, `fa2`). FLASH_ATTN: `flash_attn_varlen_func` at FA version 2, 3 (with AOT scheduler metadata:
 *  `fa3-varlen-aot`) or 4, and cascade attention. TRITON_ATTN: `kernel_unified_attention` on its 2D or 3D (split-KV)
 *  grid, the INT4 packed kernel. FLEX_ATTENTION, TURBOQUANT, and the recurrent layers' kernels (gated delta rule, Mamba
 *  SSD / selective state update, lightning attention, short convolutions). MLA: the decode kernels (FlashMLA dense / FP8 /
 *  sparse, CUTLASS, FlashInfer's trtllm-gen / CuTe DSL / sparse / SM120 / SM90 kernels, Triton's `decode_attention_fwd`,
 *  FA3 / FA4 with `q_v`, TokenSpeed), the MLA prefill backends' kernels (FLASH_ATTN's `fa*-varlen`, TRTLLM ragged,
 *  FlashInfer's ragged wrapper, TokenSpeed, sparse MLA's FA4 masked MHA) and the DeepSeek-V3.2 indexer's logits kernels. */
export type Kernel = "trtllm-gen"
  | "xqa"
  | "fa3"
  | "fa2"
  | "fa2-varlen"
  | "fa3-varlen"
  | "fa3-varlen-aot"
  | "fa4-varlen"
  | "fa-cascade"
  | "triton-unified-2d"
  | "triton-unified-3d"
  | "triton-int4-packed"
  | "flex-attention"
  | "turboquant-decode"
  | "turboquant-dequant-fa2"
  | "flashmla-decode"
  | "flashmla-decode-fp8"
  | "flashmla-sparse-decode-fp8"
  | "flashmla-sparse-fwd"
  | "cutlass-mla-decode"
  | "trtllm-gen-mla"
  | "cute-dsl-mla"
  | "trtllm-gen-mla-sparse"
  | "flashinfer-mla-sparse-sm120"
  | "flashinfer-mla-paged-sm90"
  | "triton-mla-decode"
  | "fa3-mla-qv"
  | "fa3-mla-sparse-qv"
  | "fa4-mla-sparse-qv"
  | "fa4-masked-mha"
  | "tokenspeed-mla-decode"
  | "trtllm-ragged-deepseek"
  | "flashinfer-ragged-cutlass"
  | "tokenspeed-mla-prefill"
  | "indexer-mqa-logits"
  | "indexer-paged-mqa-logits"
  | "fla-chunk-gdr"
  | "flashinfer-chunk-gdr"
  | "cutedsl-chunk-gdr"
  | "fla-packed-decode-gdr"
  | "fla-sigmoid-gating-gdr"
  | "cuda-fused-mtp-decode-gdr"
  | "mamba-chunk-scan"
  | "selective-state-update"
  | "flashinfer-selective-state-update"
  | "selective-scan"
  | "lightning-attention"
  | "linear-decode"
  | "causal-conv1d"
  | "causal-conv1d-update";

/** Where in the engine's life a group error fires, for every backend (`GroupError.raised_in` names the call):
 *  `profile_run` = the memory profile's forward pass at engine start; `init` = a backend's `__init__` (its metadata
 *  builder's or its impl's, e.g. `TritonAttentionImpl.__init__`: engine start); `build` = the metadata builder's
 *  `build()` (the first batch); `*_plan` = FlashInfer's wrappers' `plan()`; `*_jit` = FlashInfer's JIT module for
 *  the phase's kernel; `*_forward` = the impl's `forward()` on the phase's tokens (the first batch with a prefill / a
 *  decode; decode-only batches are captured in CUDA graphs at engine start when the mode is FULL). */
export type Stage = "profile_run" | "init" | "build" | "prefill_plan" | "prefill_jit" | "prefill_forward" | "decode_plan"
  | "decode_jit" | "decode_forward";

/** The attention backends qpath models, as vLLM's `AttentionBackendEnum` names them (the composites
 *  `TRITON_FLASH_ATTN` and `TRITON_FLASHINFER` from 0.30.0), and the recurrent-state backends of hybrid models'
 *  linear-attention / Mamba layers, as its `MambaAttentionBackendEnum` names them (`GDN_ATTN`, `MAMBA2`, `MAMBA1`,
 *  `LINEAR`, `SHORT_CONV`). */
export type Backend = "FLASHINFER" | "FLASH_ATTN" | "TRITON_ATTN" | "FLEX_ATTENTION" | "TURBOQUANT" | "TRITON_FLASH_ATTN"
  | "TRITON_FLASHINFER" | "FLASHMLA" | "FLASHMLA_SPARSE" | "CUTLASS_MLA" | "FLASHINFER_MLA" | "FLASHINFER_MLA_SPARSE"
  | "FLASHINFER_MLA_SPARSE_SM120" | "FLASHINFER_MLA_SPARSE_SM90" | "TRITON_MLA" | "FLASH_ATTN_MLA" | "FLASH_ATTN_MLA_SPARSE"
  | "FLASH_ATTN_MLA_SPARSE_FA4" | "TOKENSPEED_MLA" | "DEEPSEEK_V32_INDEXER" | "GDN_ATTN" | "MAMBA2" | "MAMBA1" | "LINEAR"
  | "SHORT_CONV";

/** A layer's token mixer: attention over every previous token or a window of them, or (hybrid models) a recurrent
 *  linear-attention (gated delta net) or Mamba layer. */
export type AttentionKind = "full" | "sliding_window" | "linear_attention" | "mamba" | "indexer" | "chunked_local";

/** What a whole scenario fails with: `ArgumentError` (argparse rejects the command line), vLLM's own `ValueError`, or
 *  `InputError` (input qpath cannot read: an unknown model without `--hf-overrides`, a backend qpath does not model), or
 *  vLLM's `NotImplementedError` (a checkpoint's compressed-tensors `kv_cache_scheme` vLLM does not support), or
 *  vLLM's `AssertionError` or Python's `ZeroDivisionError` while the model is built (head counts that do not divide
 *  by each other or by the tensor-parallel size; a bare `assert` has an empty message), or pydantic's `ValidationError`
 *  (a `ValueError` raised inside `VllmConfig`: heads not divisible by the tensor-parallel size, nvfp4 on MLA). */
export type ScenarioErrorType = "ArgumentError" | "ValueError" | "InputError" | "NotImplementedError" | "AssertionError" | "ZeroDivisionError" | "ValidationError";

/** The Python exception one attention group raises. */
export type GroupErrorType = "ValueError" | "AssertionError" | "NotImplementedError" | "RuntimeError" | "AttributeError";

/** A matrix cell: every group it summarizes runs (`ok`), a group or the scenario raises (`error`), no layer runs on
 *  FlashInfer (`other-backend`, only in the `flashinfer` mode), or qpath cannot model part of it (`cannot-model`). */
export type CellStatus = "ok" | "error" | "other-backend" | "cannot-model";

/** What a matrix shows (`qpath matrix --backend`): `flashinfer` (the default) is FlashInfer's groups over the cache
 *  dtypes FlashInfer's backend lists; `picked` is the backend vLLM picks on each GPU (or the one the command line's
 *  `--attention-backend` forces), with its query dtypes and kernels, over the cache dtypes any backend qpath models
 *  accepts (FlashInfer's, TRITON_ATTN's `*_per_token_head`, TURBOQUANT's `turboquant_*`), or, for a model whose layers
 *  are MLA, the MLA backends' (`auto`, `float16`, `bfloat16`, `fp8`, `fp8_e4m3`, `fp8_ds_mla`, `nvfp4_ds_mla` from
 *  0.30.0). */
export type MatrixMode = "flashinfer" | "picked";

/** A scenario's answer in one word: vLLM serves it, vLLM fails (the scenario's or a group's error), or qpath cannot
 *  model (part of) it (an `InputError`, a group's `unmodelled`, a note naming qpath's limit). */
export type Verdict = "serves" | "fails" | "cannot_model";

/** One kernel a phase can run, and when (`null`: every batch of the phase), e.g. TRITON_ATTN's decode:
 *  `[{kernel: "triton-unified-3d", when: "decode-only batches of ≤ 16 requests"}, {kernel: "triton-unified-2d",
 *  when: null}]` (the 3D split-KV grid for small decode batches, else the 2D grid). */
export interface KernelChoice {
  kernel: Kernel;
  /** The batches that run it, in vLLM's terms; `null` for every batch (or every other batch, after the ones before). */
  when: string | null;
}

/** An MLA (multi-head latent attention) layer's dims, as the DeepSeek-architecture model files read them from the
 *  config (DeepSeek-V2 / V3 / R1 / V3.2, Kimi-K2, GLM-5, …). The KV cache holds one latent head per token, `kv_c`
 *  (`kv_lora_rank`) ‖ `k_pe` (`qk_rope_head_dim`): the group's `head_dim` is their sum (576 for DeepSeek-V3) and its
 *  `num_kv_heads` 1. Decode attends over the latent with the absorbed query (on the group's `backend`); the prefill
 *  rows `forward_mha` takes up-project the latent to per-head K of `qk_nope_head_dim + qk_rope_head_dim` and V of
 *  `v_head_dim` and run the MLA prefill backend vLLM selects apart (FLASH_ATTN's `fa*-varlen`, `trtllm-ragged-deepseek`,
 *  `flashinfer-ragged-cutlass`, `tokenspeed-mla-prefill`: the group's `kernel.prefill`). */
export interface MlaDims {
  kv_lora_rank: number;
  /** `null`: the query is projected without a low-rank step (DeepSeek-V2-Lite). */
  q_lora_rank: number | null;
  qk_nope_head_dim: number;
  qk_rope_head_dim: number;
  v_head_dim: number;
  /** DeepSeek Sparse Attention's top-k (DeepSeek-V3.2, GLM-5): the layer is sparse, with a lightning-indexer cache;
   *  `null` for dense MLA. */
  index_topk: number | null;
}

/** The attention layer's static query quantization (`QuantFP8` in `Attention.__init__`, for a backend whose impl
 *  takes a quantized query and an FP8 / NVFP4 cache): the query reaches both phases' kernels as `float8_e4m3fn`,
 *  scaled by the layer's `_q_scale`. */
export interface QueryQuant {
  /** `per_tensor`, or `per_kv_head` (a compressed-tensors `attn_head` checkpoint). */
  granularity: string;
  /** The `_q_scale` the kernel's `q_descale` receives, as far as qpath knows it: `1.0`, `checkpoint` (a
   *  compressed-tensors checkpoint's own), or `checkpoint, else 1.0` (an fp8 / ModelOpt checkpoint: its q_scale when it
   *  stores one; vLLM then warns it uses k_scale, yet sets 1.0). */
  q_scale: string;
  /** Which weight-loading path sets it, and vLLM's warning where it logs one. */
  why: string;
}

/** A Python logging level, as vLLM's log lines start with it. */
export type LogLevel = "DEBUG" | "INFO" | "WARNING" | "ERROR";

/** A flashinfer-python release some vLLM release qpath knows pins (the values {@link ResolveOptions.flashinfer} takes). */
export type FlashInferVersion = "0.6.8.post1" | "0.6.11.post2" | "0.6.12" | "0.6.13" | "0.6.14" | "0.6.16.post3" | "0.6.18" | "0.6.18.post1" | "0.7.0.post1" | "0.7.2.post1";

/** Whose layers a group holds: the served model's, or the speculative-decoding drafter's (an MTP layer, an EAGLE head,
 *  a draft model), which vLLM builds with the drafter's own config and numbers apart (so its layer indices can equal
 *  the target's). */
export type GroupRole = "target" | "drafter";

/** The vLLM model runner that serves the scenario (`VllmConfig.use_v2_model_runner`). */
export type ModelRunner = "v1" | "v2";
/** vLLM's `AttentionCGSupport`: how far a backend's builder supports CUDA graphs, lowest first. */
export type CgSupport = "NEVER" | "UNIFORM_SINGLE_TOKEN_DECODE" | "UNIFORM_BATCH" | "ALWAYS";

/** The two phases of a mixed batch of prefills and single-token decodes. */
export interface Phases<T> {
  prefill: T;
  decode: T;
}

/** The hardware of the scenario. */
export interface GpuRef {
  /** The GPU table id, or `null` for a raw compute capability. */
  id: string | null;
  name: string;
  /** As reported under the scenario's CUDA version (Jetson Thor: 10.1 before CUDA 13), e.g. `"8.9"`. */
  compute_capability: string;
}

/** A scenario vLLM rejects as a whole (bad flag, no valid backend, …). */
export interface ScenarioError {
  type: ScenarioErrorType;
  message: string;
  /** Where vLLM raises it (`file:line` of that release), when it is vLLM's own error. */
  source: string | null;
}

/** The model as resolved (preset and/or `--hf-overrides`, `--dtype`). */
export interface ModelSummary {
  id: string;
  /** The model dtype vLLM runs with (`--dtype`, or the config's). */
  dtype: Dtype;
  num_layers: number;
  /** False when the model is not a preset (built from its config.json, or from `--hf-overrides` only). */
  preset: boolean;
  /** Where the model's config.json came from (a path, `--model-config FILE`, `modelConfig`); absent for a preset. */
  config?: string;
  /** The KV cache dtype the checkpoint's `quantization_config` sets under `--kv-cache-dtype auto`, e.g.
   *  `"fp8, from the checkpoint's quantization_config.kv_cache_scheme"`; absent otherwise. */
  checkpoint_kv_cache_dtype?: string;
}

/** An error one attention group raises. */
export interface GroupError {
  type: GroupErrorType;
  message: string;
  stage: Stage;
  /** `file:line` of the raising statement (`raise` / `assert`) in that release (vLLM or the installed FlashInfer). */
  source: string | null;
  /** The call that reaches the raising statement, e.g. `BatchPrefillWithPagedKVCacheWrapper.plan → get_batch_prefill_module`. */
  raised_in: string;
}

/** One decision step: what the code looked at, what it decided, and the line it restates. */
export interface TraceStep {
  /** What the step looked at; `"unverified prediction"` for a step that predicts beyond what the Python source decides
   *  (derived from it, not run). */
  rule: string;
  outcome: string;
  /** `file:line` in this release; `null` for qpath's own bookkeeping (grouping, inputs). */
  source: string | null;
  /** The source line on GitHub at the release tag. */
  url: string | null;
}

/** One log line as vLLM's logger prints it: `INFO [cuda.py:482] Using …` (`level`, the base name of `file`, `line`,
 *  `text`). */
export interface LogRecord {
  level: LogLevel;
  /** The file of the `logger.` call in its repository, e.g. `"vllm/platforms/cuda.py"`. */
  file: string;
  /** The line of the `logger.` call in this release (the line Python's logging records). */
  line: number;
  /** The message, as in `logs`. */
  text: string;
}

/** One attention group: layers that share a backend and a KV-cache spec (one metadata builder in vLLM). */
export interface GroupReport {
  layers: number[];
  attention: AttentionKind;
  sliding_window: number | null;
  /** `head_dim`, `num_q_heads`, `num_kv_heads`: 0 for a recurrent (`linear_attention` / `mamba`) group. */
  head_dim: number;
  num_q_heads: number;
  num_kv_heads: number;
  has_sinks: boolean;
  backend: Backend;
  /** The builder's `cache_dtype`: the global `--kv-cache-dtype` string for quantized groups, `auto` otherwise. */
  cache_dtype: string;
  /** The query dtype each phase's kernel receives; `null` where the code raised before computing it, or where qpath
   *  cannot model it (`unmodelled` says why). */
  q_dtype: Phases<Dtype | null>;
  /** The kernel each phase runs for the first batch qpath models (a decode of one token per request, a prefill of
   *  512 tokens); `kernels` lists every one a phase can run. */
  kernel: Phases<Kernel | null>;
  /** Every kernel each phase can run, in the order the code tries them, each with its condition where the backend
   *  decides per batch; the first is `kernel`'s. */
  kernels: Phases<KernelChoice[]>;
  /** The layer's query quantization and its scale, when the attention layer quantizes the query (`q_dtype` FP8);
   *  `null` otherwise. */
  query_quant: QueryQuant | null;
  /** What qpath cannot model about this group ("qpath cannot model this: …"): the fields it leaves `null`. A group
   *  that runs has a query dtype and a kernel per phase unless this says why not. */
  unmodelled: string | null;
  /** An MLA group's dims (DeepSeek-architecture models; {@link MlaDims}): `head_dim` is their head size
   *  `kv_lora_rank + qk_rope_head_dim`, `attention` stays `full`, `backend` is an MLA backend (`FLASHMLA`,
   *  `FLASHINFER_MLA`, `CUTLASS_MLA`, `TRITON_MLA`, `FLASH_ATTN_MLA`, the sparse ones, …) and runs the decode kernel,
   *  while `kernel.prefill` is the MLA prefill backend's; `null` for standard attention. */
  mla: MlaDims | null;
  /** The error that fires first in vLLM's real order (the trace's "first error" step says which order). */
  error: GroupError | null;
  /** Each phase's own first error (FlashInfer's plan or JIT module, a backend's forward); null for a phase that runs,
   * and for both when the memory profile, `__init__` or `build()` raises first. */
  phase_errors: { prefill: GroupError | null; decode: GroupError | null };
  warnings: string[];
  logs: string[];
  trace: TraceStep[];
  /** `logs` with the level and source line of each (appended key). */
  log_records: LogRecord[];
  /** `target` for the served model's layers, `drafter` for the speculative-decoding drafter's; the drafter's groups
   *  come after the target's. */
  role: GroupRole;
  /** The CUDA-graph support this group's builder declares in the release; `null` when the scenario stops before. */
  cudagraph_support: CgSupport | null;
}

/** CUDA graphs: the `cudagraph_mode` asked for and the one the runner resolves once the backends are known. */
export interface CudaGraphReport {
  /** The mode before the backends' downgrades, e.g. `FULL_AND_PIECEWISE`. */
  requested: string;
  /** What set it (`the default optimization level -O2`, `--enforce-eager`, …). */
  set_by: string;
  /** The resolved mode (the requested one when `error` is set). */
  mode: string;
  /** The minimum over the groups (drafter groups included); `null` without groups. */
  support: CgSupport | null;
  /** The backend class at that minimum (`FlashInferBackend`); `null` when every group is `ALWAYS`. */
  min_backend: string | null;
  /** Each group's support, in the order of `groups`. */
  group_support: (CgSupport | null)[];
  error: ScenarioError | null;
  /** vLLM's downgrade warnings, with the line of each `logger.warning(` call. */
  log_records: LogRecord[];
  trace: TraceStep[];
}

/** Speculative decoding (`--speculative-config`): what vLLM settles on for the drafter. */
export interface SpeculativeReport {
  /** The method after vLLM's inference (`draft_model` for a model without a method, `mtp` for a deprecated MTP name,
   *  `eagle3` for a model id containing "eagle3", …). */
  method: string;
  num_speculative_tokens: number | null;
  /** The drafter's model id (the target's own for MTP); `null` for methods without a model. */
  model: string | null;
  runner: ModelRunner;
  /** Whether the drafter has attention layers (false for n-gram, suffix, Medusa, MLP speculators, hidden-state
   *  extraction, which add no group). */
  attention_layers: boolean;
  /** The backend the drafter's layers are built under: a backend name, or `auto` (selected by priority). */
  backend: string;
  /** The drafter's cache dtype (`--kv-cache-dtype`, or the speculative config's `kv_cache_dtype`). */
  kv_cache_dtype: string;
  trace: TraceStep[];
  log_records: LogRecord[];
}

/** The answer for one scenario: the JSON of `qpath --format json`. */
export interface Report {
  /** The vLLM release, e.g. `"0.25.0"` or `"0.25.0-prefix"` (for a nightly or patch version: the release it runs as;
   * `notes` says so). */
  vllm: string;
  /** The FlashInfer in effect: the installed one ({@link ResolveOptions.flashinfer}) or the release's pin. */
  flashinfer: FlashInferVersion;
  /** The FlashInfer the release pins; differs from `flashinfer` when another is installed. */
  flashinfer_pinned: FlashInferVersion;
  gpu: GpuRef;
  /** The torch CUDA version, e.g. `"12.9"`. */
  cuda: string;
  /** Whether TRTLLM cubins are available (the option, else available, or `VLLM_HAS_FLASHINFER_CUBIN=1`). */
  trtllm_cubins: boolean;
  /** Set when vLLM rejects the scenario as a whole; `model` and `groups` are then empty or partial. */
  error: ScenarioError | null;
  model: ModelSummary | null;
  groups: GroupReport[];
  /** Log lines vLLM prints once for the whole engine (backend selection), in order. */
  logs: string[];
  /** Things qpath noticed about the input that vLLM accepts silently. */
  notes: string[];
  /** Flags vLLM accepts that do not affect this decision. */
  unused_flags: string[];
  /** `logs` as vLLM's logger prints them: with the level and the `file:line` of each `logger.` call. */
  log_records: LogRecord[];
  /** Speculative decoding, `null` without a `--speculative-config`; the drafter's layers are the groups with
   *  `role: "drafter"`. */
  speculative: SpeculativeReport | null;
  /** CUDA graphs, `null` when the scenario stops before the groups are known. */
  cuda_graphs: CudaGraphReport | null;
  /** The answer in one word (what the CLI's exit code says: 0 `serves`, 1 `fails`, 2 `cannot_model`). */
  verdict: Verdict;
}

/** One cell of the matrix: the outcome of the scenario on one GPU with one cache dtype. */
export interface MatrixCell {
  /** A GPU id of {@link gpus}. */
  gpu: string;
  kv_cache_dtype: string;
  /** The command line of this cell (the base one with `--kv-cache-dtype` replaced). */
  command_line: string;
  status: CellStatus;
  /** The first error (`ValueError: …`), what qpath cannot model, else what runs: query dtypes at prefill/decode, then
   *  kernels at prefill/decode (`a|b`: a or b as the batch decides), one part per distinct group, joined by `; `:
   *  `bf16/e4m3 fa2/xqa` per FlashInfer group in the `flashinfer` mode, `FLASH_ATTN bf16/bf16 fa3-varlen-aot/…`
   *  (with the backend) per group in the `picked` mode and in `other-backend` cells. */
  summary: string;
  /** The backends the cell's groups run on, each once, in group order; empty when the scenario fails as a whole. */
  backends: Backend[];
}

/** Every GPU × every cache dtype of its mode for one scenario: the JSON of `qpath matrix --format json` (`--backend
 *  flashinfer|picked`). */
export interface Matrix {
  vllm: string;
  kv_cache_dtypes: string[];
  gpus: string[];
  /** Row-major: for each GPU, one cell per cache dtype. */
  cells: MatrixCell[];
  /** What the cells show, and which cache dtypes are the columns. */
  mode: MatrixMode;
}

/** The options of {@link resolve}. Every key is optional (`undefined` or `null` = not given); any other key throws. */
export interface ResolveOptions {
  /** A GPU id of {@link gpus} (default `"h100-sxm"`). Excludes `computeCapability`. */
  gpu?: string | null;
  /** A raw compute capability `"X.Y"` instead of a GPU of the table. Excludes `gpu`. */
  computeCapability?: string | null;
  /** A vLLM release of {@link releases}, e.g. `"0.25.0-prefix"` (default: the newest), or any vLLM version (a nightly
   * `"0.27.2rc1.dev77+g1234abc"`, a patch `"0.31.1"`): it runs as the last release at or before it (PEP 440 order), and
   * the report's `notes` say so; a version before the first release is an error. A leading `v` is accepted. */
  vllm?: string | null;
  /** The installed flashinfer-python when it is not the release's pin (default: the pin). FlashInfer's own rules and
   * source lines follow it. */
  flashinfer?: FlashInferVersion | null;
  /** The torch CUDA version `"X.Y"` (default `"12.9"`). */
  cuda?: string | null;
  /** Whether TRTLLM cubins are available (default `true`: flashinfer-cubin installed or NVIDIA's artifactory reachable;
   * `false` is "offline, no flashinfer-cubin"). */
  trtllmCubins?: boolean | null;
  /** The model's config.json, as its text or as an object: read instead of the preset of the command line's model
   *  (which then only names it); `--hf-overrides` applies on top. */
  modelConfig?: string | Record<string, unknown> | null;
}

/** One GPU of qpath's table. */
export interface GpuInfo {
  /** The id {@link ResolveOptions.gpu} takes, e.g. `"l4"`. */
  id: string;
  name: string;
  /** The architecture, e.g. `"Ada Lovelace"`. */
  arch: string;
  /** The capability under current CUDA, e.g. `"8.9"`. */
  compute_capability: string;
  /** The `sm_XY` target. */
  sm: string;
  memory_gb: number;
  fp8: boolean;
  fp4: boolean;
  /** `datacenter`, `workstation`, `consumer` or `edge`. */
  segment: string;
  year: number;
}

/** One vLLM release qpath knows, oldest first. */
export interface ReleaseInfo {
  /** The name {@link ResolveOptions.vllm} takes, e.g. `"0.25.0"`. */
  vllm: string;
  /** The flashinfer-python release it pins. */
  flashinfer: string;
  /** The UTC day PyPI received its first wheel (`YYYY-MM-DD`), `null` for a state never published. Printed by
   * `qpath releases --format json`; the page's `releases()` leaves it out. */
  published?: string | null;
  /** Whether qpath assumes TRTLLM cubins by default: `true` for every release (flashinfer-cubin, required up to 0.25.1
   * and in the common images after, or a networked machine reaching NVIDIA's artifactory). */
  cubinsByDefault: boolean;
}

/** One model preset (a model id `vllm serve` can name without `--hf-overrides`), as the newest release lays it out. */
export interface PresetInfo {
  /** The Hugging Face id, e.g. `"openai/gpt-oss-20b"`. */
  id: string;
  /** The transformers architecture, e.g. `"LlamaForCausalLM"`. */
  architecture: string;
  /** The config's dtype (`--dtype auto` starts from it). */
  dtype: Dtype;
  layers: number;
  /** How many of the layers use sliding-window attention. */
  sliding_window_layers: number;
  /** The window of those layers in tokens, `null` when there are none. */
  sliding_window: number | null;
  /** Query heads, KV heads and head dim of the first layer (before tensor parallelism). */
  num_q_heads: number;
  num_kv_heads: number;
  head_dim: number;
  /** Whether the attention has sinks (gpt-oss). */
  has_sinks: boolean;
}

/**
 * Resolves one scenario like `qpath --format json`: parses `commandLine` (`[ENV=VAL ...] vllm serve MODEL [FLAGS]`)
 * like the release's argparse, selects each layer's attention backend and runs that backend's decisions.
 *
 * A scenario vLLM rejects is not a throw: the report comes back with `error` (or a group's `error`) set.
 * @throws Error for a bad option (unknown GPU id, unknown release, malformed CUDA or capability, a value of the wrong
 *   type, both `gpu` and `computeCapability`, an unknown key) or a `commandLine` that is not a string; the message
 *   names the option and the value.
 */
export function resolve(commandLine: string, options?: ResolveOptions | null): Report;

/** The GPU table, in its order (30 GPUs). */
export function gpus(): GpuInfo[];

/** The vLLM releases qpath knows and the FlashInfer each pins, oldest first (including the unreleased `0.25.0-prefix`). */
export function releases(): ReleaseInfo[];

/** The model presets. */
export function presets(): PresetInfo[];

/** The version of qpath's page crate, e.g. `"0.1.0"`. */
export function version(): string;

/** The functions above, as `window.wasmBindings` carries them on the trunk-built page. */
export interface QpathApi {
  resolve: typeof resolve;
  gpus: typeof gpus;
  releases: typeof releases;
  presets: typeof presets;
  version: typeof version;
}
