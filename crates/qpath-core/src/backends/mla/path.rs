//! What a selected MLA group runs (`model_executor/layers/attention/mla_attention.py`'s `MLAAttention` and the
//! backend's impl and builder; `docs/source-notes/mla-path.md`), in the engine's order:
//!
//! 1. layer init (model construction): the cache dtype the backend reads (FLASHMLA_SPARSE and the SM120 sparse
//!    backend read `fp8_ds_mla`) and its layout, the q/k scales (only a ModelOpt checkpoint gives an `MLAAttention`
//!    layer a KV-cache method), the impl's `__init__` raises, whether the impl takes the layer's FP8 decode query
//!    (`supports_quant_query_input`), the prefill backend ([`super::prefill`]);
//! 2. engine start: decode context parallelism's LSE check (`check_attention_cp_compatibility`), the metadata builder
//!    (`reorder_batch_threshold`: which requests are decodes; the prefill query dtype; its raises);
//! 3. each phase: the decode kernel on the absorbed query (`W_UK_T` bmm, then `_decode_concat_quant_fp8_op` when the
//!    cache is quantized and the impl takes it), the prefill kernel (the prefill backend's for long prefills, the
//!    decode kernel for prefills within the threshold; a sparse layer's top-k MQA path, dense MHA or masked MHA), and
//!    the errors each meets, in the order the engine meets them (decodes first when FULL decode graphs are captured).

use super::decode::{self, MqaInputs};
use super::prefill::{self, SparseImpl};
use super::Mla;
use crate::attention::{Backend, CgSupport, GroupErrorKind, Kernel, Phases, Stage, QPATH_LIMIT};
use crate::backends::{init_error, is_quantized_kv_cache, take_trace, CgDecision, GroupContext, Raise};
use crate::dtype::TorchDtype;
use crate::model::MlaDims;
use crate::platform::Platform;
use crate::release::Release::{self, *};
use crate::report::{GroupError, GroupReport, KernelChoice, QueryQuant, TraceStep};
use crate::source::{self, Cite};
use crate::trace::Trace;

/// The prompt length of the first prefill qpath models (as the other backends: 512 tokens, no cached context).
const FIRST_PREFILL: u32 = 512;

/// The cache dtype the impl reads: `_canonicalize_sparse_mla_kv_cache_dtype` after selection (FLASHMLA_SPARSE turns any
/// quantized dtype but `nvfp4_ds_mla` (0.30.0+) into `fp8_ds_mla`; FLASHINFER_MLA_SPARSE_SM120 turns `auto`, `fp8`,
/// `fp8_e4m3` into `fp8_ds_mla`). The selection writes the rewrite into the layer's query; applying it again here
/// changes nothing then.
pub fn canonical_kv(b: Backend, r: Release, kv: &str) -> String {
    let quantized = is_quantized_kv_cache(r, kv);
    if b == Backend::FlashMlaSparse && quantized && !(r >= V0_30_0 && kv == "nvfp4_ds_mla") {
        return "fp8_ds_mla".into();
    }
    if b == Backend::FlashInferMlaSparseSm120 && matches!(kv, "auto" | "fp8" | "fp8_e4m3") {
        return "fp8_ds_mla".into();
    }
    kv.to_string()
}

/// The q/k scales of an MLA layer (`_init_kv_cache_quant`): only ModelOpt's `get_quant_method` gives `MLAAttention`
/// a KV-cache method; fp8 and compressed-tensors checkpoints give one to `Attention` layers only, so their MLA layers
/// keep 1.0.
struct Scales {
    /// `_q_scale`'s value as far as qpath knows it.
    q: &'static str,
    /// `_k_scale` is the checkpoint's calibrated one (a ModelOpt checkpoint that quantizes the KV cache).
    k_from_checkpoint: bool,
    why: String,
}

fn scales(cx: &GroupContext, t: &mut Trace) -> Scales {
    let Some(c) = cx.engine.checkpoint else {
        let why = "no quantization_config: _init_kv_cache_quant leaves the layer's q/k/v scales at 1.0".to_string();
        t.step(Some(&source::MLA_PATH_INIT_KV_QUANT), "MLA layer scales", why.clone());
        return Scales {
            q: "1.0",
            k_from_checkpoint: false,
            why,
        };
    };
    if c.method.starts_with("modelopt") {
        let kv_algo = c.cache_dtype.is_some();
        let why = if kv_algo {
            "ModelOpt's get_quant_method gives MLAAttention its KV-cache method: the checkpoint's calibrated k_scale \
             (and q_scale when it stores one; else vLLM logs \"Checkpoint does not provide a q scaling factor. …\" and \
             sets 1.0)"
                .to_string()
        } else {
            "ModelOpt's get_quant_method gives MLAAttention its KV-cache method, but the checkpoint quantizes no KV \
             cache (no kv_cache_quant_algo), so it stores no k/q scale: 1.0"
                .to_string()
        };
        t.step(Some(&source::MLA_PATH_MODELOPT_KV_METHOD), "MLA layer scales", why.clone());
        return Scales {
            q: if kv_algo { "checkpoint, else 1.0" } else { "1.0" },
            k_from_checkpoint: kv_algo,
            why,
        };
    }
    let method = if c.method.is_empty() { "the checkpoint's" } else { &c.method };
    let why = format!(
        "{method} quantization gives a KV-cache method (and checkpoint k/v/q scales) to Attention layers only, not to \
         MLAAttention: the MLA layer's scales stay 1.0"
    );
    t.step(Some(&source::MLA_PATH_FP8_KV_METHOD), "MLA layer scales", why.clone());
    Scales {
        q: "1.0",
        k_from_checkpoint: false,
        why,
    }
}

/// The cache layout step: one latent "head" per token, `kv_c` ‖ `k_pe`.
fn layout_step(p: &Platform, dims: &MlaDims, kv: &str, t: &mut Trace) {
    let r = p.release;
    let head = dims.head_size();
    let (l, rope) = (dims.kv_lora_rank, dims.qk_rope_head_dim);
    let text = match kv {
        "fp8_ds_mla" => format!(
            "fp8_ds_mla: (num_blocks, block_size, 656) uint8 — {l} float8_e4m3fn NoPE values, 4 float32 scales (one \
             per 128 values), {rope} bfloat16 RoPE values: 656 bytes per token"
        ),
        "nvfp4_ds_mla" => "nvfp4_ds_mla: 352 bytes per token (packed NVFP4 NoPE values, their scales and the RoPE \
                           values)"
            .to_string(),
        _ if is_quantized_kv_cache(r, kv) => format!(
            "{kv}: (num_blocks, block_size, {head}) — kv_c ({l}) ‖ k_pe ({rope}) in one latent head, stored as uint8 \
             and viewed as float8_e4m3fn: {head} bytes per token"
        ),
        _ => {
            let dtype = crate::backends::unquantized_spec_dtype(kv, p.model_dtype);
            format!(
                "{kv}: (num_blocks, block_size, {head}) — kv_c ({l}) ‖ k_pe ({rope}) in one latent head of {dtype}: {} \
                 bytes per token",
                head * 2
            )
        }
    };
    let cite = if kv.ends_with("_ds_mla") {
        if r < V0_29_0 {
            &source::MLA_PATH_FMS_SHAPE_656
        } else {
            &source::MLA_PATH_SPEC_DS_MLA_BYTES
        }
    } else {
        &source::MLA_PATH_FWD_FP8_ATTENTION
    };
    t.step(Some(cite), "MLA cache layout", text);
}

/// Fills an MLA group: cache dtype, both phases' kernels and query dtypes, the layer's FP8 decode query, errors (each
/// phase's and the first the engine meets), log lines and the trace.
pub fn resolve_group(b: &Mla, p: &Platform, cx: &GroupContext, g: &mut GroupReport) {
    let be = b.backend;
    let Some(k) = decode::kind(be) else {
        g.unmodelled = Some(format!("{QPATH_LIMIT}: {be} is not an MLA backend"));
        return;
    };
    let Some(l) = cx.query else {
        g.unmodelled = Some(format!("{QPATH_LIMIT}: an MLA group without its layers' query"));
        return;
    };
    let Some(dims) = l.mla.or(g.mla) else {
        g.unmodelled = Some(format!("{QPATH_LIMIT}: a {be} group whose layers have no MLA dims"));
        return;
    };
    let r = p.release;
    let mut t = Trace::new(r);
    t.flashinfer = p.flashinfer;
    let heads = g.num_q_heads;
    let sparse = decode::is_sparse(k);
    if cx
        .engine
        .attention_config
        .other
        .iter()
        .any(|(k, v)| k == "hisparse_config" && v != "null")
    {
        g.unmodelled = Some(format!("{QPATH_LIMIT}: HiSparse (--attention-config hisparse_config)"));
        return;
    }

    // 1. Layer init: the cache dtype the impl gets, its layout, the scales.
    let kv = canonical_kv(be, r, &l.kv_cache_dtype);
    if kv != l.kv_cache_dtype {
        t.step(
            Some(&source::MLA_PATH_CANON_SPARSE_DTYPE),
            "MLA cache dtype",
            format!(
                "{be} reads kv_cache_dtype {:?} as {kv:?} ({}, which also rewrites cache_config.cache_dtype)",
                l.kv_cache_dtype,
                // 0.24.0 factored the inline FLASHMLA_SPARSE rewrite (mla_attention.py L396 in 0.23.0) out.
                if r >= V0_24_0 {
                    "_canonicalize_sparse_mla_kv_cache_dtype"
                } else {
                    "MLAAttention.__init__'s FLASHMLA_SPARSE rewrite"
                }
            ),
        );
        // The selection rewrites the layer's dtype (and logs this) before the group is built; when it has not, the
        // layer logs it here.
        t.info(&source::MLA_PATH_LOG_KV_FORMAT, super::selection::canon_log(r, be, &kv));
    }
    let quantized = is_quantized_kv_cache(r, &kv);
    if quantized {
        g.cache_dtype = kv.clone();
    }
    layout_step(p, &dims, &kv, &mut t);
    if be == Backend::FlashInferMlaSparse && quantized && kv != "fp8_ds_mla" {
        t.info(
            &source::MLA_PATH_LOG_STD_FP8_FORMAT,
            "Using standard fp8 KV cache format. To use DeepSeek's fp8_ds_mla KV cache format, please set \
             `--attention-backend FLASHMLA_SPARSE`",
        );
    }
    let sc = scales(cx, &mut t);
    t.step(
        Some(&source::MLA_PATH_IMPL_CLS),
        "MLA impl",
        format!(
            "{}(num_heads={heads}, head_size={}, num_kv_heads=1, kv_cache_dtype={kv:?}, kv_lora_rank={}, \
             qk_nope_head_dim={}, qk_rope_head_dim={}, v_head_dim={})",
            decode::impl_class(k),
            dims.head_size(),
            dims.kv_lora_rank,
            dims.qk_nope_head_dim,
            dims.qk_rope_head_dim,
            dims.v_head_dim
        ),
    );
    if let Some(e) = decode::impl_init(k, p, cx.engine.device, &kv, &mut t) {
        stop(p, g, t, e);
        return;
    }

    // The decode (MQA) query: absorbed into the latent space, FP8 when the cache is quantized and the impl takes it.
    let (takes, takes_cite, takes_why) = decode::takes_quant_query(k, r, &kv);
    t.step(Some(takes_cite), "supports_quant_query_input", takes_why);
    let q_mqa = decode_query(p, &dims, &kv, takes, &sc, &mut t, g);

    // The prefill backend (layer init, after the impl).
    let sparse_impl = sparse.then(|| SparseImpl {
        dense_mha: decode::dense_mha_prefill(k, r, dims.qk_rope_head_dim, &kv),
    });
    let pf = prefill::layer_prefill(p, cx, &dims, sparse_impl, &mut t);
    if let Some(e) = pf.error {
        stop(p, g, t, e);
        return;
    }
    if let Some(why) = pf.unmodelled.clone() {
        g.unmodelled = Some(why);
    }

    // 2. Engine start: DCP's LSE check, then the metadata builder.
    if p.dcp > 1 && !decode::can_return_lse(k, r) {
        stop(
            p,
            g,
            t,
            Raise {
                kind: GroupErrorKind::AssertionError,
                message: format!(
                    "Decode Context Parallelism (DCP) requires attention implementations to return the softmax LSE \
                     during decode, but {} does not. Try a different backend by setting --attention-backend or \
                     disable DCP.",
                    decode::impl_class(k)
                ),
                cite: &source::TRITON_DCP_LSE_ASSERT,
                raised_in: "check_attention_cp_compatibility (engine start, before the metadata builders)",
            },
        );
        return;
    }
    let split = decode::split(k, p, heads);
    let threshold = split.threshold.map(|v| if p.dcp > 1 && !split.dcp_varlen { 1 } else { v });
    threshold_step(p, &split, threshold, &mut t);
    let q_prefill_builder = if sparse {
        if r >= V0_26_0 {
            t.step(
                Some(&source::MLA_PATH_SPARSE_PREFILL_METADATA),
                "prefill query dtype",
                format!(
                    "the sparse builder's dense-MHA prefill metadata takes the model dtype {}: no FP8 prefill",
                    p.model_dtype
                ),
            );
        }
        p.model_dtype
    } else {
        prefill::prefill_q_dtype(p, cx, pf.backend, &mut t)
    };
    if let Some(e) = decode::builder_init(k, p, heads) {
        stop(p, g, t, e);
        return;
    }

    // 3. The MQA (decode) kernels, then each phase's choices.
    let mut m = decode::mqa(
        k,
        p,
        &MqaInputs {
            kv: &kv,
            heads,
            q_dtype: q_mqa,
            checkpoint_scales: sc.k_from_checkpoint,
        },
        &mut t,
    );
    if let Some(why) = m.unmodelled.take() {
        g.unmodelled.get_or_insert(why);
    }
    if r < V0_25_0 && p.dcp > 1 && quantized {
        let message = "DCP not support fp8 kvcache now.".to_string();
        t.step(
            Some(&source::MLA_PATH_FWD_DCP_FP8_ASSERT),
            "raises AssertionError",
            message.clone(),
        );
        m.errors.decode = Some(GroupError {
            kind: GroupErrorKind::AssertionError,
            message,
            stage: Stage::DecodeForward,
            source: source::MLA_PATH_FWD_DCP_FP8_ASSERT.at(r).map(|s| s.short()),
            raised_in: "MLAAttention.forward_impl (the decode query under DCP)".into(),
        });
    }
    let decode_kernel = m.decode.first().map(|c| c.kernel);
    g.kernels.decode = m.decode.clone();
    g.kernel.decode = decode_kernel;
    g.q_dtype.decode = Some(q_mqa);

    let rows = Rows {
        threshold,
        decode: decode_kernel,
        q_mqa,
        prefill: pf.kernel,
        q_prefill: q_prefill_builder,
    };
    let (choices, first, prefill_error) = if sparse {
        sparse_prefill(k, p, cx, &dims, &kv, &rows, &pf, m.prefill_rows, &mut t)
    } else {
        dense_prefill(&rows, &mut t)
    };
    g.kernels.prefill = choices;
    if let Some((k, q)) = first {
        g.kernel.prefill = Some(k);
        g.q_dtype.prefill = Some(q);
    }
    if let Some(e) = prefill_error {
        m.errors.prefill = Some(e);
    }
    if g.kernel.prefill.is_none() && g.unmodelled.is_none() {
        g.unmodelled = Some(format!("{QPATH_LIMIT}: the prefill kernel of this {be} group"));
    }
    g.phase_errors = m.errors.clone();
    g.error = first_phase_error(p, &m.errors, &mut t);
    take_trace(g, t);
}

/// The layer's absorbed decode query and its FP8 quantization (`forward_impl`'s MQA half), as the impl receives it.
fn decode_query(
    p: &Platform,
    dims: &MlaDims,
    kv: &str,
    takes: bool,
    sc: &Scales,
    t: &mut Trace,
    g: &mut GroupReport,
) -> TorchDtype {
    let r = p.release;
    let (nope, l, rope) = (dims.qk_nope_head_dim, dims.kv_lora_rank, dims.qk_rope_head_dim);
    t.step(
        Some(&source::MLA_PATH_FWD_W_UK_BMM),
        "absorbed decode query",
        format!(
            "q_nope (N, B, {nope}) × W_UK_T (N, {nope}, {l}) by torch.bmm in {} → ql_nope (B, N, {l}), beside q_pe (B, \
             N, {rope})",
            p.model_dtype
        ),
    );
    let fp8_attention = is_quantized_kv_cache(r, kv);
    if fp8_attention && takes {
        let fp8 = TorchDtype::Float8E4m3fn;
        t.step(
            Some(&source::MLA_PATH_FWD_Q_QUANT_OP),
            "decode query quantization",
            format!(
                "the cache {kv:?} is quantized and the impl takes a quantized query: _decode_concat_quant_fp8_op \
                 (static per-tensor QuantFP8) writes ql_nope ‖ q_pe as one {fp8} tensor (B, N, {}) scaled by \
                 layer._q_scale",
                l + rope
            ),
        );
        g.query_quant = Some(QueryQuant {
            granularity: "per_tensor".into(),
            q_scale: sc.q.into(),
            why: format!("the MLA layer's _decode_concat_quant_fp8_op (decode only); {}", sc.why),
        });
        return fp8;
    }
    let why = if !fp8_attention {
        format!("the cache {kv:?} is not quantized")
    } else {
        "the impl does not take a quantized query".to_string()
    };
    t.step(
        Some(&source::MLA_PATH_FWD_Q_TUPLE),
        "decode query quantization",
        format!("{why}: the impl gets the tuple (ql_nope, q_pe) in {}", p.model_dtype),
    );
    p.model_dtype
}

/// The builder's split as a trace step.
fn threshold_step(p: &Platform, s: &decode::Split, threshold: Option<u32>, t: &mut Trace) {
    let Some(v) = threshold else {
        t.step(Some(s.cite), "decode/prefill split", s.why.clone());
        return;
    };
    let dcp = if p.dcp > 1 && s.threshold != Some(v) {
        format!(" (decode context parallelism without varlen DCP support lowers it to {v})")
    } else {
        String::new()
    };
    let spec = if s.spec_as_decode {
        "; speculative decoding raises it to the widest verification query (1 + num_speculative_tokens)"
    } else {
        "; speculative verification queries stay prefills (SINGLE_ONLY)"
    };
    t.step(
        Some(s.cite),
        "decode/prefill split",
        format!(
            "{}{dcp}: requests of ≤ {v} query tokens take the absorbed decode path{spec}",
            s.why
        ),
    );
    t.step(
        Some(&source::MLA_PATH_BUILDER_REORDER),
        "reorder_batch_threshold",
        format!(
            "_init_reorder_batch_threshold(supports_spec_as_decode={}, supports_dcp_with_varlen={})",
            py_bool(s.spec_as_decode),
            py_bool(s.dcp_varlen)
        ),
    );
}

fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

/// What the prefill routing needs.
struct Rows {
    threshold: Option<u32>,
    decode: Option<Kernel>,
    q_mqa: TorchDtype,
    prefill: Option<Kernel>,
    q_prefill: TorchDtype,
}

type PrefillChoices = (Vec<KernelChoice>, Option<(Kernel, TorchDtype)>, Option<GroupError>);

/// A dense layer: prefills within the threshold run the decode kernel; longer ones `forward_mha` on the prefill
/// backend (context chunks too).
fn dense_prefill(rows: &Rows, t: &mut Trace) -> PrefillChoices {
    let thr = rows.threshold.unwrap_or(1);
    let mut short = None;
    if let (true, Some(k)) = (thr > 1, rows.decode) {
        short = Some(KernelChoice::when(
            k,
            format!("prefills of ≤ {thr} query tokens, which the builder counts as decodes"),
        ));
    }
    let long = rows.prefill.map(|k| {
        if thr > 1 {
            KernelChoice::when(k, format!("prefills of more than {thr} query tokens"))
        } else {
            KernelChoice::always(k)
        }
    });
    t.step(
        Some(&source::MLA_PATH_FWD_MHA_CALL),
        "prefill rows",
        format!(
            "forward_mha up-projects the latent (kv_b_proj) and runs the prefill backend{} on the new tokens, causal; \
             cached context is gathered in chunks and run non-causal, merged by LSE",
            rows.prefill.map_or(String::new(), |k| format!(" ({})", k.name()))
        ),
    );
    let first_short = FIRST_PREFILL <= thr;
    let mut choices = Vec::new();
    let first = if first_short {
        choices.extend(short);
        choices.extend(long);
        rows.decode.map(|k| (k, rows.q_mqa))
    } else {
        choices.extend(long);
        choices.extend(short);
        rows.prefill.map(|k| (k, rows.q_prefill))
    };
    (choices, first, None)
}

/// A sparse layer's prefill rows: 0.24.0–0.25.0 every token on the top-k MQA path; 0.26.0+ rows within the threshold
/// as decodes, longer prefills whose longest sequence is within `index_topk` as dense MHA on the prefill backend,
/// 0.27.0+ longer ones as FA4 masked MHA where it is available, the rest on the top-k MQA path.
#[allow(clippy::too_many_arguments)]
fn sparse_prefill(
    k: decode::Kind,
    p: &Platform,
    cx: &GroupContext,
    dims: &MlaDims,
    kv: &str,
    rows: &Rows,
    pf: &prefill::Prefill,
    mqa_rows: Option<Kernel>,
    t: &mut Trace,
) -> PrefillChoices {
    let r = p.release;
    let topk = dims.index_topk.unwrap_or(2048);
    let Some(mqa_rows) = mqa_rows else {
        return (Vec::new(), None, None);
    };
    let mqa_choice = |when: Option<String>| KernelChoice { kernel: mqa_rows, when };
    if r < V0_26_0 {
        t.step(
            Some(&source::MLA_PATH_FWD_SPARSE_ALL_MQA),
            "sparse prefill rows",
            format!(
                "a sparse impl: every token, prefills included, takes the top-k MQA path ({}); forward_mha never runs",
                mqa_rows.name()
            ),
        );
        return (vec![mqa_choice(None)], Some((mqa_rows, rows.q_mqa)), None);
    }
    let thr = rows.threshold.unwrap_or(1);
    let force_mqa = prefill::config_bool(cx, "sparse_mla_force_mqa");
    let mut choices = Vec::new();
    let short = rows.decode.filter(|_| thr > 1).map(|k| {
        KernelChoice::when(
            k,
            format!("prefills of ≤ {thr} query tokens, which the builder counts as decodes"),
        )
    });
    let dense = pf.kernel.filter(|_| !force_mqa);
    let mut error = None;
    let dense_when = format!("prefills of more than {thr} query tokens whose longest sequence is ≤ index_topk ({topk})");
    let dense_choice = match dense {
        Some(_) if k == decode::Kind::FlashInferMlaSparseSm120 => {
            // 0.26.0–0.28.0: the SM120 impl is a plain MLAAttentionImpl whose forward_mha is the base class's bare raise.
            let cite = &source::MLA_PATH_IMPL_FORWARD_MHA_RAISE;
            t.step(
                Some(cite),
                "raises NotImplementedError",
                format!(
                    "{dense_when} go to forward_mha, which FlashInferMLASparseSM120Impl does not override: the base \
                     MLAAttentionImpl.forward_mha raises NotImplementedError without a message"
                ),
            );
            error = Some(GroupError {
                kind: GroupErrorKind::NotImplementedError,
                message: String::new(),
                stage: Stage::PrefillForward,
                source: cite.at(r).map(|s| s.short()),
                raised_in: format!("MLAAttention.forward_impl → FlashInferMLASparseSM120Impl.forward_mha ({dense_when})"),
            });
            None
        }
        Some(k) => {
            t.step(
                Some(&source::MLA_PATH_FWD_SPARSE_ALL_MQA),
                "sparse prefill rows",
                format!(
                    "{dense_when} run dense MHA through the prefill backend ({}) with a {} query (unless \
                     sparse_mla_force_mqa)",
                    k.name(),
                    p.model_dtype
                ),
            );
            Some(KernelChoice::when(k, dense_when.clone()))
        }
        None => {
            let why = if force_mqa {
                "--attention-config sparse_mla_force_mqa: no dense-MHA prefill"
            } else {
                "no prefill backend: no dense-MHA prefill"
            };
            t.step(Some(&source::MLA_PATH_FWD_SPARSE_ALL_MQA), "sparse prefill rows", why);
            None
        }
    };
    let masked = (r >= V0_27_0 && dense_choice.is_some() && masked_available(p, dims, kv)).then(|| {
        t.step(
            Some(&source::MLA_PATH_SPARSE_MASKED_AVAIL_FN),
            "masked MHA",
            "SM100 family, FA4 at the model's MLA head dims, a 16-bit cache and DeepSeek-V3.2 / GLM-5 dims: longer \
             prefills may run FA4 with the top-k mask when _MASKED_MHA_THRESHOLDS admits their lengths",
        );
        KernelChoice::when(
            Kernel::Fa4MaskedMha,
            format!(
                "prefills of more than {thr} query tokens whose longest sequence exceeds {topk}, when their query and \
                 sequence lengths meet _MASKED_MHA_THRESHOLDS for the model's total heads and tensor-parallel size"
            ),
        )
    });
    // Rows routed to forward_mha (dense MHA, or SM120's raise) leave the MQA path the longer sequences only.
    let rest = match (dense.is_some(), masked.is_some()) {
        (false, _) => format!("prefills of more than {thr} query tokens"),
        (true, false) => format!("prefills of more than {thr} query tokens whose longest sequence exceeds {topk}"),
        (true, true) => format!(
            "prefills of more than {thr} query tokens whose longest sequence exceeds {topk} that masked MHA does not \
             take"
        ),
    };
    let mqa = mqa_choice(Some(rest));
    // The first prefill (512 tokens, sequence 512): a decode within the threshold, else dense MHA, else MQA.
    let first = if FIRST_PREFILL <= thr {
        choices.extend(short.clone());
        rows.decode.map(|k| (k, rows.q_mqa))
    } else if let Some(c) = &dense_choice {
        choices.push(c.clone());
        (FIRST_PREFILL <= topk).then_some((c.kernel, p.model_dtype))
    } else {
        None
    };
    for c in [short, dense_choice, masked].into_iter().flatten() {
        if !choices.contains(&c) {
            choices.push(c);
        }
    }
    choices.push(mqa);
    let first = first.or(Some((mqa_rows, rows.q_mqa)));
    (choices, first, error)
}

/// `_is_masked_mha_available` without the total heads (qpath checks the dims and the cache; the heads and lengths stay
/// the choice's condition): the SM100 family, FA4 for the MLA head dims, a non-quantized cache, DeepSeek-V3.2's or
/// GLM-5's dims (0.33.0: also the rope-free GLM-5.3-Flash's).
fn masked_available(p: &Platform, dims: &MlaDims, kv: &str) -> bool {
    let r = p.release;
    if !p.is_family(100) || is_quantized_kv_cache(r, kv) || p.dcp > 1 {
        return false;
    }
    let d = (
        dims.kv_lora_rank,
        dims.qk_nope_head_dim,
        dims.qk_rope_head_dim,
        dims.v_head_dim,
    );
    let known = d == (512, 128, 64, 128) || d == (512, 192, 64, 256) || (r >= V0_33_0 && d == (512, 256, 0, 256));
    if !known {
        return false;
    }
    let qk = dims.qk_nope_head_dim + dims.qk_rope_head_dim;
    let fa = if qk == 256 && dims.v_head_dim == 256 {
        crate::backends::flash_attn::version_for(p, None, None, None)
    } else {
        crate::backends::flash_attn::version_for(p, Some(qk), Some(dims.v_head_dim), None)
    };
    fa == Some(4)
}

/// The phase error the engine meets first: decodes first when FULL decode graphs are captured at engine start.
fn first_phase_error(p: &Platform, e: &Phases<Option<GroupError>>, t: &mut Trace) -> Option<GroupError> {
    let graphs = p.resolved_graphs.as_ref().unwrap_or(&p.graphs);
    if e.decode.is_none() && e.prefill.is_none() {
        return None;
    }
    let first = if graphs.full_decode() {
        e.decode.clone().or_else(|| e.prefill.clone())
    } else {
        e.prefill.clone().or_else(|| e.decode.clone())
    };
    if let Some(f) = &first {
        let when = if graphs.full_decode() && e.decode.is_some() {
            format!(
                "cudagraph_mode {} captures FULL decode graphs at engine start: the decode path's {} fires at capture, \
                 before any request",
                graphs.mode, f.kind
            )
        } else {
            format!("the {} fires at the first batch that takes that path", f.kind)
        };
        t.step(None, "first error", when);
    }
    first
}

/// An `__init__`-time raise stops the group.
fn stop(p: &Platform, g: &mut GroupReport, mut t: Trace, e: Raise) {
    init_error(p, Some(e), &mut t, g);
    take_trace(g, t);
}

/// `_cudagraph_support` (or `get_cudagraph_support`) of the MLA backend's metadata builder in this release.
pub fn cudagraph_support(b: &Mla, p: &Platform, _g: &GroupReport, _q: u32, non_causal: bool) -> CgDecision {
    let r = p.release;
    let c = |support, cite: &'static Cite, why: &str| CgDecision {
        support,
        cite,
        why: why.to_string(),
    };
    use decode::Kind;
    use CgSupport::*;
    let Some(k) = decode::kind(b.backend) else {
        return CgDecision {
            support: Never,
            cite: &source::MLA_PATH_FLASHMLA_CG,
            why: format!("{QPATH_LIMIT}: {} is not an MLA backend", b.backend),
        };
    };
    match k {
        Kind::FlashMla => c(
            UniformBatch,
            &source::MLA_PATH_FLASHMLA_CG,
            "FlashMLAMetadataBuilder's class attribute",
        ),
        Kind::FlashAttnMla => c(
            UniformBatch,
            &source::MLA_PATH_FAMLA_CG,
            "FlashAttnMLAMetadataBuilder's class attribute",
        ),
        Kind::FlashInferMla if r < V0_31_0 => c(
            UniformBatch,
            &source::MLA_PATH_FIMLA_CG,
            "FlashInferMLAMetadataBuilder's class attribute (query lengths UNIFORM)",
        ),
        Kind::FlashInferMla => c(
            Always,
            &source::MLA_PATH_FIMLA_CG,
            "FlashInferMLAMetadataBuilder's class attribute (query lengths VARLEN, 0.31.0+)",
        ),
        Kind::CutlassMla => c(
            UniformSingleTokenDecode,
            &source::MLA_PATH_CUTLASS_CG,
            "CutlassMLAMetadataBuilder's class attribute",
        ),
        // 0.20.0–0.21.0: TRITON_MLA has no builder of its own (triton_mla.py gains TritonMLAMetadataBuilder in
        // 0.22.0): MLACommonMetadataBuilder keeps AttentionMetadataBuilder's NEVER (v1/attention/backend.py L519).
        Kind::TritonMla if r < V0_22_0 => c(
            Never,
            &source::MLA_PATH_BUILDER_CG_NEVER,
            "MLACommonMetadataBuilder (TRITON_MLA's builder before 0.22.0) inherits AttentionMetadataBuilder's class \
             attribute",
        ),
        Kind::TritonMla if r < V0_26_0 => c(
            UniformBatch,
            &source::MLA_PATH_TRITON_CG,
            "TritonMLAMetadataBuilder's class attribute",
        ),
        Kind::TritonMla if r < V0_29_0 => c(
            UniformSingleTokenDecode,
            &source::MLA_PATH_TRITON_CG,
            "TritonMLAMetadataBuilder's class attribute",
        ),
        Kind::TritonMla if r < V0_31_0 && non_causal => c(
            UniformBatch,
            &source::MLA_PATH_TRITON_GET_CG,
            "TritonMLAMetadataBuilder.get_cudagraph_support: a non-causal multi-token group (use_non_causal)",
        ),
        Kind::TritonMla if r < V0_31_0 => c(
            UniformSingleTokenDecode,
            &source::MLA_PATH_TRITON_GET_CG,
            "TritonMLAMetadataBuilder.get_cudagraph_support: a causal group keeps the class attribute",
        ),
        Kind::TritonMla => c(
            UniformBatch,
            &source::MLA_PATH_TRITON_CG,
            "TritonMLAMetadataBuilder's class attribute (query lengths UNIFORM, 0.31.0+)",
        ),
        Kind::TokenspeedMla => c(
            UniformBatch,
            &source::MLA_PATH_TS_CG,
            "TokenspeedMLAMetadataBuilder's class attribute",
        ),
        Kind::FlashMlaSparse => c(
            UniformBatch,
            &source::MLA_PATH_FMS_CG,
            "FlashMLASparseMetadataBuilder's class attribute",
        ),
        Kind::FlashInferMlaSparse | Kind::FlashAttnMlaSparseFa4 if r >= V0_29_0 => {
            let s = if r < V0_32_0 { Always } else { UniformBatch };
            c(
                s,
                &source::MLA_PATH_FIMS_TRTLLM_CG,
                "FlashInferMLASparseTRTLLMMetadataBuilder's class attribute (the TRT-LLM builder, 0.29.0+)",
            )
        }
        Kind::FlashInferMlaSparse
        | Kind::FlashAttnMlaSparseFa4
        | Kind::FlashInferMlaSparseSm120
        | Kind::FlashInferMlaSparseSm90 => c(
            UniformBatch,
            &source::MLA_PATH_FIMS_CG,
            "FlashInferMLASparseMetadataBuilder's class attribute",
        ),
        Kind::FlashAttnMlaSparse => c(
            UniformBatch,
            &source::MLA_PATH_FAMS_CG,
            "FlashAttnMLASparseMetadataBuilder's class attribute",
        ),
    }
}

/// With speculative decoding (`n` tokens), the builder's threshold and whether a verification request is a decode
/// (`_init_reorder_batch_threshold`'s `supports_spec_as_decode`; 0.24.0–0.30.0 `1 + (2 if parallel_drafting else 1) ·
/// k`, 0.31.0+ `max_decode_query_len`); for the scenario's speculative pass to push onto the group's trace.
pub fn spec_as_decode_step(be: Backend, p: &Platform, heads: u32, n: u32) -> Option<TraceStep> {
    if n == 0 {
        return None;
    }
    let s = decode::split(decode::kind(be)?, p, heads);
    let base = s.threshold?;
    let outcome = if p.dcp > 1 && !s.dcp_varlen {
        "decode context parallelism without varlen DCP support keeps the threshold at 1: a verification request is a \
         prefill"
            .to_string()
    } else if s.spec_as_decode {
        let v = base.max(1 + n);
        format!(
            "reorder_batch_threshold = max({base}, 1 + {n}) = {v}: a verification request of {} tokens is a decode",
            1 + n
        )
    } else {
        format!(
            "query_len_support SINGLE_ONLY: the threshold stays {base}; a verification request of {} tokens is a prefill",
            1 + n
        )
    };
    let cite = if p.release < V0_31_0 {
        &source::MLA_PATH_REORDER_SPEC
    } else {
        &source::MLA_PATH_REORDER_FN
    };
    Some(TraceStep::new("speculative decoding", outcome, cite.at(p.release)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sparse backends' cache-dtype rewrite, per release (`nvfp4_ds_mla` kept from 0.30.0); others unchanged.
    #[test]
    fn canonical_cache_dtypes() {
        let c = |b, r, kv| canonical_kv(b, r, kv);
        assert_eq!(c(Backend::FlashMlaSparse, V0_24_0, "fp8"), "fp8_ds_mla");
        assert_eq!(c(Backend::FlashMlaSparse, V0_24_0, "auto"), "auto");
        assert_eq!(c(Backend::FlashMlaSparse, V0_29_0, "nvfp4_ds_mla"), "fp8_ds_mla");
        assert_eq!(c(Backend::FlashMlaSparse, V0_30_0, "nvfp4_ds_mla"), "nvfp4_ds_mla");
        assert_eq!(c(Backend::FlashInferMlaSparseSm120, V0_33_0, "auto"), "fp8_ds_mla");
        assert_eq!(c(Backend::FlashInferMlaSparseSm120, V0_33_0, "fp8_e4m3"), "fp8_ds_mla");
        assert_eq!(c(Backend::FlashInferMlaSparse, V0_33_0, "fp8_e4m3"), "fp8_e4m3");
        assert_eq!(c(Backend::FlashMla, V0_33_0, "fp8"), "fp8");
    }

    /// The sparse builders' head tables: the SM100-family one (FLASHMLA_SPARSE on SM100, every FlashInfer sparse
    /// builder) and FLASHMLA_SPARSE's / FLASH_ATTN_MLA_SPARSE's other one.
    #[test]
    fn sparse_thresholds() {
        let p = Platform::for_tests(V0_33_0, (9, 0));
        let t = |k, heads| decode::split(k, &p, heads).threshold;
        assert_eq!(t(decode::Kind::FlashMlaSparse, 128), Some(256));
        assert_eq!(t(decode::Kind::FlashMlaSparse, 16), Some(128));
        assert_eq!(t(decode::Kind::FlashInferMlaSparseSm90, 128), Some(1024));
        assert_eq!(t(decode::Kind::FlashAttnMlaSparse, 64), Some(256));
        let p = Platform::for_tests(V0_33_0, (10, 0));
        assert_eq!(decode::split(decode::Kind::FlashMlaSparse, &p, 128).threshold, Some(1024));
        let p = Platform::for_tests(V0_25_0, (10, 0));
        assert_eq!(decode::split(decode::Kind::FlashInferMlaSparse, &p, 128).threshold, None);
    }
}
