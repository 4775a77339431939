//! Each layer's cache dtype (the skip list), backend selection, and grouping into attention groups, with their
//! trace steps and the engine's selection log lines; qpath's notes on input vLLM accepts silently.

use super::*;

/// qpath's notes on input vLLM accepts silently: what is not modelled yet, and skip tokens that match no layer.
pub(super) fn input_notes(cmd: &ServeCommand, spec: &ModelSpec, report: &mut Report) {
    if cmd.env.iter().any(|(k, _)| k == "VLLM_KV_CACHE_LAYOUT") {
        report.notes.push(Note::info(
            "VLLM_KV_CACHE_LAYOUT is read by vLLM but its effect on the layout FlashInfer gets is not modelled yet.",
        ));
    }
    skip_notes(cmd, spec, report);
}

/// `--kv-cache-dtype-skip-layers` read once: `Attention.__init__` skips a layer when `str(layer_idx)` is one of the
/// tokens, or when it has a sliding window and `sliding_window` is one ([`source::ATTN_SKIP_LAYERS`]). Built in one
/// pass over the tokens, so that each layer's check is a set lookup (linear in tokens + layers).
pub(super) struct SkipList {
    /// Indices below 1024 (every model's layers) as bits; a larger index, which only a stray token names, in `large`.
    small: [u64; 16],
    large: HashSet<u32>,
    sliding_window: bool,
}

impl SkipList {
    pub(crate) fn new(tokens: &[String]) -> Self {
        let mut list = SkipList {
            small: [0; 16],
            large: HashSet::new(),
            sliding_window: false,
        };
        for t in tokens {
            match layer_index_token(t) {
                Some(n) if n < 1024 => list.small[(n / 64) as usize] |= 1 << (n % 64),
                Some(n) => {
                    list.large.insert(n);
                }
                None => list.sliding_window |= t == "sliding_window",
            }
        }
        list
    }

    /// Whether `Attention.__init__` gives this layer kv_cache_dtype "auto".
    pub(crate) fn skips(&self, layer: u32, sliding: bool) -> bool {
        (sliding && self.sliding_window)
            || match self.small.get((layer / 64) as usize) {
                Some(word) => word & (1 << (layer % 64)) != 0,
                None => self.large.contains(&layer),
            }
    }
}

/// The layer index a token names: `str(layer_idx) == token`, so only the canonical decimal ("7", not "07" or "+7").
pub(super) fn layer_index_token(token: &str) -> Option<u32> {
    // Canonical: no sign, no leading zero (but "0" itself); then `parse` only rejects overflow.
    let canonical =
        !token.is_empty() && token.bytes().all(|b| b.is_ascii_digit()) && (token.len() == 1 || !token.starts_with('0'));
    if canonical {
        token.parse().ok()
    } else {
        None
    }
}

/// Skip tokens that match no layer are accepted by vLLM and do nothing: one note naming them (each once, at most
/// [`serve::limits::MAX_LISTED`]); past [`serve::limits::MAX_SKIP_LAYER_TOKENS`] the scenario stops earlier.
pub(super) fn skip_notes(cmd: &ServeCommand, spec: &ModelSpec, report: &mut Report) {
    let tokens = &cmd.kv_cache_dtype_skip_layers;
    if tokens.is_empty() {
        return;
    }
    // The model's layer indices (ascending as built): a binary search per token.
    let mut layers: Vec<u32> = spec.layers.iter().map(|l| l.index).collect();
    if !layers.is_sorted() {
        crate::order::sort_dedup(&mut layers);
    }
    let has_window = spec.layers.iter().any(|l| l.sliding_window.is_some());
    let mut seen = HashSet::new();
    let mut unmatched: Vec<String> = Vec::new();
    let mut window_token = false;
    for tok in tokens {
        if tok == "sliding_window" {
            window_token = !has_window;
        } else if layer_index_token(tok).is_none_or(|n| layers.binary_search(&n).is_err()) && seen.insert(tok.as_str()) {
            unmatched.push(format!("`{}`", crate::serve::escape_for_message(tok)));
        }
    }
    if window_token {
        report.notes.push(Note::info(
            "--kv-cache-dtype-skip-layers sliding_window: this model has no sliding-window layer, so it skips nothing.",
        ));
    }
    if !unmatched.is_empty() {
        let what = if unmatched.len() == 1 {
            format!("{} matches", unmatched[0])
        } else {
            format!("tokens {} match", crate::serve::limits::capped_list(&unmatched))
        };
        report.notes.push(Note::info(format!(
            "--kv-cache-dtype-skip-layers {what} no layer: vLLM compares each layer's index (0 to {}) as a string, \
             exactly, and ignores other tokens.",
            spec.layers.len().saturating_sub(1)
        )));
    }
}

/// One distinct query to the selector and what it got. Equal queries share one (`get_attn_backend` is cached on its
/// arguments): the rows of a model's layers point to a handful of these.
pub(super) struct Selected {
    pub(super) query: LayerQuery,
    pub(super) selection: Selection,
    /// The layer's own `kv_cache_dtype` after selection: the query's, or the one an MLA layer's sparse backend serves
    /// it as (`canon`).
    pub(super) layer_kv: String,
    /// An MLA layer whose backend serves its cache dtype as another (`_canonicalize_sparse_mla_kv_cache_dtype`):
    /// the new dtype, which vLLM also writes to `cache_config.cache_dtype`, so later layers ask with it.
    pub(super) canon: Option<&'static str>,
}

/// One layer after selection: its skip-adjusted query to the selector and the backend it got (through [`Selected`],
/// which the row derefs to: `row.query`, `row.selection`, `row.layer_kv`, `row.canon`).
pub(super) struct LayerRow<'a> {
    pub(super) layer: &'a LayerSpec,
    skipped: bool,
    /// The checkpoint field that set the cache dtype (`--kv-cache-dtype auto` with a quantized-KV checkpoint).
    from_checkpoint: Option<(&'static str, &'static source::Cite)>,
    selected: Rc<Selected>,
    /// The selector's cache missed for this layer (`_cached_get_attn_backend` ran): the lines it logs with
    /// `logger.info` / `logger.warning` (not `_once`) are printed again.
    new_query: bool,
}

impl std::ops::Deref for LayerRow<'_> {
    type Target = Selected;
    fn deref(&self) -> &Selected {
        &self.selected
    }
}

/// Per layer, in order (`Attention.__init__` / `MLAAttention.__init__`): the skip-adjusted cache dtype, then
/// `get_attn_backend`, which is cached on its arguments (`functools.cache`), so equal queries get one selection. An
/// MLA layer's cache dtype is `cache_config.cache_dtype` as the layers before it left it: FLASHMLA_SPARSE and
/// FLASHINFER_MLA_SPARSE_SM120 rewrite it after selection ([`source::MLA_SEL_CANON_WRITEBACK`]); an MLA layer reads
/// `--kv-cache-dtype-skip-layers` from 0.26.0 only, by index ([`source::MLA_SEL_LAYER_SKIP_LAYERS`]), and asks without
/// sinks, windows, multimodal prefix or per-head scales ([`source::MLA_SEL_LAYER_GET_BACKEND`]).
pub(super) fn select_layers<'a>(
    p: &Platform,
    forced: Option<Backend>,
    cmd: &ServeCommand,
    spec: &'a ModelSpec,
    checkpoint_set: bool,
) -> Result<Vec<LayerRow<'a>>, ScenarioError> {
    let r = p.release;
    let skip = SkipList::new(&cmd.kv_cache_dtype_skip_layers);
    let tp = cmd.tensor_parallel_size.max(1);
    // A model has a handful of distinct queries (one per skip / window / head layout): a short list of them, each
    // selected once; a layer whose query is in it shares its record (no string built or cloned per layer).
    let mut cache: Vec<Rc<Selected>> = Vec::new();
    let mut rows = Vec::with_capacity(spec.layers.len());
    let from_checkpoint = spec
        .checkpoint_kv
        .as_ref()
        .filter(|kv| kv.cache_dtype.as_deref() == Some(cmd.kv_cache_dtype.as_str()) && checkpoint_set)
        .map(|kv| {
            let cite = match kv.scheme {
                model::KvScheme::CompressedTensors(_) => &source::CHECKPOINT_KV_SCHEME,
                _ => &source::CHECKPOINT_KV_MODELOPT,
            };
            (kv.field(), cite)
        });
    let use_mm_prefix = spec.layers_use_mm_prefix(r);
    let per_head_scales = spec.checkpoint_kv.as_ref().is_some_and(|kv| kv.per_head_scales());
    // `use_non_causal`: 0.20.x `get_attn_backend` sets it for every layer, the target's too, when the speculative
    // method is dflash ([`source::SELECTOR_DFLASH_NON_CAUSAL`], selector.py:85@0.20.0; qpath reads the method as
    // written, not the drafter name's "dflash" detection); from 0.21.0 it reads `attention_config.use_non_causal`
    // (selector.py:94@0.21.0), which only the DFlash drafter's own config sets (dflash.py:78@0.21.0).
    let use_non_causal = if r < Release::V0_21_0 {
        cmd.speculative_config
            .as_ref()
            .is_some_and(|s| s.method.as_deref() == Some("dflash"))
    } else {
        cmd.attention_config.use_non_causal
    };
    // `cache_config.cache_dtype`, as the layers built so far left it.
    let mut global: &str = cmd.kv_cache_dtype.as_str();
    // A hybrid model's recurrent layers are not `Attention` layers: they never reach get_attn_backend.
    for l in spec.layers.iter().filter(|l| l.kind.is_attention()) {
        let mla = l.mla.is_some();
        let skipped = if mla {
            r >= Release::V0_26_0 && skip.skips(l.index, false)
        } else {
            skip.skips(l.index, l.sliding_window.is_some())
        };
        // The query without its cache dtype (compared apart, so that a known query allocates nothing).
        let kv = if skipped { "auto" } else { global };
        let mut query = LayerQuery {
            head_size: l.head_dim,
            kv_cache_dtype: String::new(),
            has_sinks: l.has_sinks && !mla,
            sliding_window: l.sliding_window.is_some() && !mla,
            q_heads: l.num_q_heads / tp,
            kv_heads: (l.num_kv_heads / tp).max(1),
            block_size: cmd.block_size,
            use_mm_prefix: use_mm_prefix && !mla,
            use_per_head_quant_scales: !mla && per_head_scales,
            use_non_causal,
            use_dcp: cmd.decode_context_parallel_size > 1,
            mla: l.mla,
        };
        heads_divide(r, spec.vllm_model, l, tp)?;
        let known = cache
            .iter()
            .find(|c| c.query.same_but_cache_dtype(&query) && c.query.kv_cache_dtype == kv);
        let (selected, new_query) = match known {
            Some(c) => (Rc::clone(c), false),
            None => {
                query.kv_cache_dtype = kv.to_string();
                let selection = selection::select(p, forced, &query).map_err(|e| {
                    let (kind, cite) = match e.unmodelled {
                        Some(cite) => (ScenarioErrorKind::InputError, cite),
                        None if e.forced => (ScenarioErrorKind::ValueError, &source::CUDA_FORCED_INVALID),
                        None => (ScenarioErrorKind::ValueError, &source::CUDA_NONE_VALID),
                    };
                    scenario_error(kind, e.message, Some(cite), r)
                })?;
                let canon = if mla {
                    crate::backends::mla::selection::canonical_kv(r, selection.backend, &query.kv_cache_dtype)
                } else {
                    None
                };
                let layer_kv = canon.map_or_else(|| query.kv_cache_dtype.clone(), str::to_string);
                // Its checks depend on the layer's cache dtype only: once per distinct query.
                checkpoint_layer_errors(r, spec, &layer_kv)?;
                let c = Rc::new(Selected {
                    query,
                    selection,
                    layer_kv,
                    canon,
                });
                cache.push(Rc::clone(&c));
                (c, true)
            }
        };
        if let Some(c) = selected.canon {
            global = c;
        }
        rows.push(LayerRow {
            layer: l,
            skipped,
            from_checkpoint,
            selected,
            new_query,
        });
    }
    Ok(rows)
}

/// `cache_config.cache_dtype` after every layer is built, when an MLA layer's backend rewrote it (the last rewrite).
pub(super) fn rewritten_cache_dtype(rows: &[LayerRow]) -> Option<&'static str> {
    rows.iter().rev().find_map(|row| row.canon)
}

/// A layer's head checks at engine start, in vLLM's order, before `get_attn_backend`: the model file's bare asserts
/// ([`model::VllmModel::kv_tp_asserts`]), `QKVParallelLinear`'s `divide` of KV heads and ranks
/// ([`source::ENSURE_DIVISIBILITY`]), then `Attention.__init__`'s `num_heads % num_kv_heads`
/// ([`source::ATTENTION_HEADS_DIVISIBLE`]) on the rank's heads: heads / tp and max(1, KV heads / tp), except
/// `gpt_oss.py`'s plain KV heads // tp, which is 0 (a `ZeroDivisionError`) with fewer KV heads than ranks.
pub(super) fn heads_divide(r: Release, rule: model::VllmModel, l: &model::LayerSpec, tp: u32) -> Result<(), ScenarioError> {
    let kv = l.num_kv_heads;
    let raise = |kind, message: String, cite| Err(scenario_error(kind, message, Some(cite), r));
    if let Some((kv_split, tp_split)) = rule.kv_tp_asserts() {
        if kv >= tp && kv % tp != 0 {
            return raise(ScenarioErrorKind::AssertionError, String::new(), kv_split);
        }
        if kv < tp && tp % kv != 0 {
            return raise(ScenarioErrorKind::AssertionError, String::new(), tp_split);
        }
    }
    let (n, d) = if tp >= kv { (tp, kv) } else { (kv, tp) };
    if n % d != 0 {
        let m = format!("{n} is not divisible by {d}");
        return raise(ScenarioErrorKind::AssertionError, m, &source::ENSURE_DIVISIBILITY);
    }
    let q = l.num_q_heads / tp;
    let kv_rank = if rule == model::VllmModel::GptOss {
        kv / tp
    } else {
        (kv / tp).max(1)
    };
    let at = &source::ATTENTION_HEADS_DIVISIBLE;
    if kv_rank == 0 {
        return raise(ScenarioErrorKind::ZeroDivisionError, "integer modulo by zero".into(), at);
    }
    if q % kv_rank != 0 {
        let m = format!("num_heads ({q}) is not divisible by num_kv_heads ({kv_rank})");
        return raise(ScenarioErrorKind::AssertionError, m, at);
    }
    Ok(())
}

/// After a layer's backend is selected, `Attention.__init__` sets up its KV-cache quantization
/// (`_init_kv_cache_quant`): with a checkpoint whose attention layers load k/v scales, a layer whose cache dtype is
/// `fp8_e5m2` raises ([`source::CHECKPOINT_KV_E5M2`]), and compressed-tensors validates its `kv_cache_scheme`
/// ([`source::CT_VALIDATE_KV_SCHEME`], `NotImplementedError`).
pub(super) fn checkpoint_layer_errors(r: Release, spec: &ModelSpec, kv_cache_dtype: &str) -> Result<(), ScenarioError> {
    let Some(kv) = &spec.checkpoint_kv else { return Ok(()) };
    // Before 0.24.0 a compressed-tensors checkpoint without a `kv_cache_scheme` raises too: its config gives every
    // Attention layer a `CompressedTensorsKVCacheMethod` (compressed_tensors.py:206@0.23.0) and `_init_kv_cache_quant`
    // raises for any such method (attention.py:168@0.23.0); 0.24.0 exempts it (attention.py:177-181@0.24.0).
    let loads = kv.loads_kv_scales() || (r < Release::V0_24_0 && kv.method == "compressed-tensors");
    if loads && kv_cache_dtype == "fp8_e5m2" {
        return Err(scenario_error(
            ScenarioErrorKind::ValueError,
            "fp8_e5m2 kv-cache is not supported with fp8 checkpoints.",
            Some(&source::CHECKPOINT_KV_E5M2),
            r,
        ));
    }
    if let Some(m) = kv.scheme_error(r) {
        let (kind, cite) = if m.starts_with("qpath cannot model this") {
            (ScenarioErrorKind::InputError, None)
        } else {
            (ScenarioErrorKind::NotImplementedError, Some(&source::CT_VALIDATE_KV_SCHEME))
        };
        return Err(scenario_error(kind, m, cite, r));
    }
    Ok(())
}

/// The log lines of each layer's selection, in order: `get_attn_backend_cls`'s `--block-size` warning (per selector
/// cache miss) and its chosen-backend line (`info_once`); 0.24.0 – 0.28.0 the selector's KV-cache layout line for a
/// backend that requires one (FLASHINFER_MLA, FLASHINFER_MLA_SPARSE, TOKENSPEED_MLA: HND; `logger.info` per cache miss
/// before 0.27.0, `info_once` after, [`source::MLA_SEL_KV_LAYOUT_LOG`]); then an MLA layer's cache-format lines
/// (`info_once`): the dtype its sparse backend serves the cache as ([`source::MLA_SEL_CANON_LOG`]) and
/// FLASHINFER_MLA_SPARSE's standard-fp8 hint ([`source::MLA_SEL_FI_SPARSE_STD_FP8_LOG`]).
pub(super) fn selection_logs(r: Release, rows: &[LayerRow]) -> Vec<LogRecord> {
    let at = (r, r.flashinfer_pin());
    let mut seen: Vec<LogRecord> = Vec::new();
    let once = |seen: &mut Vec<LogRecord>, level, cite: &source::Cite, text: String| {
        if !seen.iter().any(|l| l.text == text) {
            seen.push(LogRecord::new(level, cite, at, text));
        }
    };
    // Every line below depends on the row's query and selection only, and the `_once` lines are deduplicated by
    // text: a row that shares an earlier row's query adds nothing, so only the first row of each query is read.
    for row in rows.iter().filter(|row| row.new_query) {
        let sel = &row.selection;
        {
            if let Some(w) = sel.precluded_warning(row.query.block_size) {
                seen.push(LogRecord::new(
                    LogLevel::Warning,
                    &source::MLA_SEL_BLOCK_SIZE_PRECLUDED_LOG,
                    at,
                    w,
                ));
            }
        }
        let (call, line) = if sel.forced {
            let text = format!("Using AttentionBackendEnum.{} backend.", sel.backend.name());
            (&source::CUDA_FORCED_LOG, text)
        } else {
            let names: Vec<String> = sel.valid.iter().map(|b| format!("'{}'", b.name())).collect();
            let text = format!(
                "Using {} attention backend out of potential backends: [{}].",
                sel.backend.name(),
                names.join(", ")
            );
            (&source::CUDA_CHOSEN_LOG, text)
        };
        once(&mut seen, LogLevel::Info, call, line);
        if let Some(text) = crate::backends::mla::selection::kv_layout_log(r, sel.backend) {
            if r < Release::V0_27_0 {
                if row.new_query {
                    seen.push(LogRecord::new(LogLevel::Info, &source::MLA_SEL_KV_LAYOUT_LOG, at, text));
                }
            } else {
                once(&mut seen, LogLevel::Info, &source::MLA_SEL_KV_LAYOUT_LOG, text);
            }
        }
        if let Some(c) = row.canon {
            let text = crate::backends::mla::selection::canon_log(r, sel.backend, c);
            once(&mut seen, LogLevel::Info, &source::MLA_SEL_CANON_LOG, text);
        }
        if row.layer.mla.is_some()
            && sel.backend == Backend::FlashInferMlaSparse
            && row.layer_kv != "fp8_ds_mla"
            && crate::backends::is_quantized_kv_cache(r, &row.layer_kv)
        {
            let text = "Using standard fp8 KV cache format. To use DeepSeek's fp8_ds_mla KV cache format, please set \
                        `--attention-backend FLASHMLA_SPARSE`"
                .to_string();
            once(&mut seen, LogLevel::Info, &source::MLA_SEL_FI_SPARSE_STD_FP8_LOG, text);
        }
    }
    seen
}

/// The checkpoint's warning (`checkpoint_cache_dtype`'s log lines) as records of `get_kv_cache_quant_algo_string`'s
/// `logger.warning(` (whose text itself starts with "WARNING: ").
pub(super) fn checkpoint_records(r: Release, logs: &[String]) -> Vec<LogRecord> {
    let call = &source::CHECKPOINT_KV_UNKNOWN_ALGO_LOG;
    logs.iter()
        .map(|l| LogRecord::new(LogLevel::Warning, call, (r, r.flashinfer_pin()), l.clone()))
        .collect()
}

/// Each attention group's report, in the order of its first layer ([`group_layers`]): its selection trace and
/// `align_steps` (a hybrid model's block-size alignment), then what its backend decides (crate::backends). The
/// target's groups and the drafter's are built here alike.
pub(super) fn attention_groups(
    p: &Platform,
    cmd: &ServeCommand,
    engine: &Engine,
    rows: &[LayerRow],
    align_steps: &[crate::report::TraceStep],
) -> Vec<GroupReport> {
    let mut groups = Vec::new();
    for (key, layers) in group_layers(rows) {
        let Some(row) = rows.iter().find(|row| row.layer.index == layers[0]) else {
            continue;
        };
        let mut g = group_report(p, cmd, key, layers, row, align_steps);
        let cx = GroupContext {
            engine,
            query: Some(&row.query),
            recurrent: None,
        };
        crate::backends::rules(g.backend).resolve_group(p, &cx, &mut g);
        groups.push(g);
    }
    groups
}

/// Attention groups (the KV-cache groups, one metadata builder each): layers sharing backend, per-layer KV spec and
/// per-rank heads, in the order of their first layer.
pub(super) fn group_layers<'r>(rows: &'r [LayerRow<'_>]) -> Vec<(GroupKey<'r>, Vec<u32>)> {
    let mut groups: Vec<(GroupKey, Vec<u32>)> = Vec::new();
    for row in rows {
        let (l, q) = (row.layer, &row.query);
        let key = GroupKey {
            backend: row.selection.backend,
            kind: l.kind,
            window: l.sliding_window,
            kv: &row.layer_kv,
            head_dim: l.head_dim,
            q_heads: q.q_heads,
            kv_heads: q.kv_heads,
            sinks: l.has_sinks,
            mla: l.mla,
        };
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, layers)) => layers.push(l.index),
            None => groups.push((key, vec![l.index])),
        }
    }
    groups
}

/// The "layer cache dtype" step of a group: which of its layers `--kv-cache-dtype-skip-layers` names (exactly those),
/// and, when the cache dtype is "auto" anyway, that skipping them changes nothing (skipped and other layers then share
/// a group).
pub(super) fn layer_cache_dtype_text(r: Release, cmd: &ServeCommand, layers: &[u32], row: &LayerRow) -> String {
    let tokens = &cmd.kv_cache_dtype_skip_layers;
    let q = &row.query;
    let skip = SkipList::new(tokens);
    let sliding = row.layer.sliding_window.is_some();
    let (skipped, kept): (Vec<u32>, Vec<u32>) = layers.iter().partition(|&&i| skip.skips(i, sliding));
    let named = |l: &[u32]| {
        if l.len() == 1 {
            format!("layer {} is", l[0])
        } else {
            format!("layers {} are", short_list(l))
        }
    };
    if !skipped.is_empty() && q.kv_cache_dtype == "auto" && cmd.kv_cache_dtype == "auto" {
        let rest = if kept.is_empty() {
            String::new()
        } else {
            format!("; {} not in it", named(&kept))
        };
        return format!(
            "{} in --kv-cache-dtype-skip-layers, which changes nothing: the cache dtype is \"auto\" already \
             (--kv-cache-dtype auto){rest}: kv_cache_dtype \"auto\"",
            named(&skipped)
        );
    }
    if row.skipped {
        format!("{} in --kv-cache-dtype-skip-layers: kv_cache_dtype \"auto\"", named(&skipped))
    } else if let Some((field, _)) = row.from_checkpoint {
        // 0.20.0-0.21.0 apply a compressed-tensors scheme over any --kv-cache-dtype (resolve's checkpoint_cache_dtype).
        let given = if r < Release::V0_22_0 && field == "quantization_config.kv_cache_scheme" {
            "any --kv-cache-dtype before 0.22.0"
        } else {
            "--kv-cache-dtype auto"
        };
        format!(
            "kv_cache_dtype {:?}, from the checkpoint's {field} ({given}){}",
            q.kv_cache_dtype,
            if tokens.is_empty() { "" } else { "; not in the skip list" }
        )
    } else if tokens.is_empty() {
        format!("kv_cache_dtype {:?} (no skip list)", q.kv_cache_dtype)
    } else {
        format!(
            "not in the skip list [{}]: kv_cache_dtype {:?}",
            skip_tokens_shown(tokens),
            q.kv_cache_dtype
        )
    }
}

/// The skip tokens as the trace showed them (`"0", "2"`), at most [`serve::limits::MAX_LISTED`].
pub(super) fn skip_tokens_shown(tokens: &[String]) -> String {
    let quoted: Vec<String> = tokens
        .iter()
        .take(serve::limits::MAX_LISTED + 1)
        .map(|t| format!("{t:?}"))
        .collect();
    let mut shown = serve::limits::capped_list(&quoted[..quoted.len().min(serve::limits::MAX_LISTED)]);
    if tokens.len() > serve::limits::MAX_LISTED {
        shown.push_str(&format!(", … and {} more", tokens.len() - serve::limits::MAX_LISTED));
    }
    shown
}

/// The trace steps every group starts with: its layers' cache dtype (`Attention.__init__`'s skip-layer check) and how
/// their backend was selected (`get_attn_backend_cls`).
pub(super) fn selection_trace(p: &Platform, cmd: &ServeCommand, layers: &[u32], row: &LayerRow) -> Trace {
    let sel = &row.selection;
    let mut head = Trace::new(p.release);
    let cite = match row.from_checkpoint {
        Some((_, cite)) if !row.skipped => cite,
        _ if row.layer.mla.is_some() && row.skipped => &source::MLA_SEL_LAYER_SKIP_LAYERS,
        _ => &source::ATTN_SKIP_LAYERS,
    };
    if row.layer.mla.is_some() && p.release < Release::V0_26_0 && !cmd.kv_cache_dtype_skip_layers.is_empty() {
        head.step(
            Some(&source::MLA_SEL_LAYER_GET_BACKEND),
            "layer cache dtype",
            format!(
                "MLAAttention reads --kv-cache-dtype-skip-layers from 0.26.0 only: kv_cache_dtype {:?} \
                 (cache_config.cache_dtype)",
                row.query.kv_cache_dtype
            ),
        );
    } else {
        head.step(
            Some(cite),
            "layer cache dtype",
            layer_cache_dtype_text(p.release, cmd, layers, row),
        );
    }
    let mla = row.query.mla.is_some() || sel.backend.is_mla();
    if let Some(m) = row.query.mla {
        head.step(
            Some(&source::MLA_SEL_LAYER_GET_BACKEND),
            "MLA layer asks the selector",
            format!(
                "MLAAttention: get_attn_backend(head_size={} (kv_lora_rank {} + qk_rope_head_dim {}), kv_cache_dtype={}, \
                 use_mla=True, use_sparse={}, num_heads={} per rank)",
                row.query.head_size,
                m.kv_lora_rank,
                m.qk_rope_head_dim,
                row.query.kv_cache_dtype,
                if m.sparse() { "True" } else { "False" },
                row.query.q_heads
            ),
        );
    }
    if mla && !sel.forced {
        crate::backends::mla::selection::selection_steps(p, &row.query, (sel.backend, false), &mut head);
    }
    if sel.forced {
        head.step(
            Some(&source::CUDA_FORCED_INVALID),
            "attention backend",
            format!("forced {}: valid for these layers", sel.backend.name()),
        );
        if mla {
            crate::backends::mla::selection::selection_steps(p, &row.query, (sel.backend, true), &mut head);
        }
    } else {
        for (b, why) in &sel.rejected {
            head.step(
                Some(&source::CUDA_NONE_VALID),
                format!("backend {} (priority order)", b.name()),
                format!("rejected: {}", why.join(", ")),
            );
        }
        head.step(
            Some(&source::CUDA_CHOSEN_LOG),
            format!("backend {}", sel.backend.name()),
            "first valid backend in priority order",
        );
    }
    if let Some(c) = row.canon {
        head.step(
            Some(&source::MLA_SEL_CANON_FN),
            "sparse MLA cache format",
            format!(
                "{}: kv_cache_dtype {} is served as {c}",
                sel.backend.name(),
                row.query.kv_cache_dtype
            ),
        );
        head.step(
            Some(&source::MLA_SEL_CANON_WRITEBACK),
            "cache_config.cache_dtype",
            format!("cache_config.cache_dtype = {c}: every later layer asks the selector with {c}"),
        );
    } else if sel.backend == Backend::FlashMlaSparse
        && p.release >= Release::V0_30_0
        && row.query.kv_cache_dtype == "nvfp4_ds_mla"
    {
        head.step(
            Some(&source::MLA_SEL_CANON_NVFP4_KEEP),
            "sparse MLA cache format",
            "FLASHMLA_SPARSE: nvfp4_ds_mla is used as it is",
        );
    }
    if sel.backend.is_mla() && row.layer.mla.is_some() && row.canon.is_none() && row.layer_kv == "fp8_ds_mla" {
        head.step(
            Some(&source::MLA_SEL_CANON_FN),
            "sparse MLA cache format",
            format!("{}: fp8_ds_mla is the format it serves", sel.backend.name()),
        );
    }
    head
}

/// One group's report before its backend's rules run: its shape, cache dtype and selection steps.
pub(super) fn group_report(
    p: &Platform,
    cmd: &ServeCommand,
    key: GroupKey<'_>,
    layers: Vec<u32>,
    row: &LayerRow,
    align_steps: &[crate::report::TraceStep],
) -> GroupReport {
    let mut head = selection_trace(p, cmd, &layers, row);
    head.steps.extend(align_steps.iter().cloned());
    let cache_dtype = if is_quantized(key.kv) {
        key.kv.to_string()
    } else {
        "auto".to_string()
    };
    GroupReport {
        sliding_window: key.window,
        head_dim: key.head_dim,
        num_q_heads: key.q_heads,
        num_kv_heads: key.kv_heads,
        has_sinks: key.sinks,
        mla: row.layer.mla,
        ..GroupReport::unresolved(layers, key.kind, key.backend, cache_dtype, head.steps)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub(super) struct GroupKey<'a> {
    backend: Backend,
    kind: AttentionKind,
    window: Option<u32>,
    /// The layer's own cache dtype, borrowed from its row (`LayerRow::layer_kv`).
    kv: &'a str,
    head_dim: u32,
    q_heads: u32,
    kv_heads: u32,
    sinks: bool,
    mla: Option<crate::model::MlaDims>,
}

/// `update_block_size_for_backend` (after the model is loaded, every release) for a model with MLA layers, when
/// `--block-size` is not given: the block size the backends prefer (phase 1,
/// [`crate::backends::mla::selection::preferred_block_size`]) becomes the group's page ([`Platform::page_size`]), with
/// vLLM's log line when it is not 16. The backends are those of the model's attention layers in registration order: a
/// sparse layer's indexer cache (`DeepseekV32IndexerCache`, DEEPSEEK_V32_INDEXER) registers before its MLA layer
/// ([`source::MLA_SEL_V32_INDEXER_CACHE_REGISTER`]), so 0.24.0 – 0.30.0 ask the indexer alone for a sparse model.
/// Returns the trace steps every group shows. Models without MLA layers keep qpath's page size ([`page_size`]).
pub(super) fn mla_block_size(
    p: &mut Platform,
    cmd: &ServeCommand,
    rows: &[LayerRow],
    report: &mut Report,
) -> Result<Vec<crate::report::TraceStep>, ScenarioError> {
    let r = p.release;
    if cmd.block_size.is_some() || !rows.iter().any(|row| row.layer.mla.is_some()) {
        return Ok(Vec::new());
    }
    let mut backends: Vec<Backend> = Vec::new();
    for row in rows {
        if row.layer.mla.is_some_and(|m| m.sparse()) && !backends.contains(&Backend::DeepseekV32Indexer) {
            backends.push(Backend::DeepseekV32Indexer);
        }
        if !backends.contains(&row.selection.backend) {
            backends.push(row.selection.backend);
        }
    }
    let mut t = Trace::new(r);
    if backends.first() == Some(&Backend::DeepseekV32Indexer) {
        t.step(
            Some(&source::MLA_SEL_V32_INDEXER_CACHE_REGISTER),
            "first attention layer",
            format!(
                "layer {}'s indexer cache (DeepseekV32IndexerCache, backend DEEPSEEK_V32_INDEXER) registers before \
                 its MLA layer",
                rows[0].layer.index
            ),
        );
    }
    let sizes_of = |b: Backend| crate::backends::mla::selection::sizes(b, r).map(|(s, _)| s);
    match crate::backends::mla::selection::preferred_block_size(r, &backends, &sizes_of, &mut t) {
        Ok((block, log)) => {
            p.page_size = block;
            if let Some(text) = log {
                report.logs.push(text.clone());
                report.log_records.push(LogRecord::new(
                    LogLevel::Info,
                    &source::MLA_SEL_BLOCK_SIZE_LOG,
                    (r, r.flashinfer_pin()),
                    text,
                ));
            }
        }
        Err(m) if m.starts_with(crate::attention::QPATH_LIMIT) => report.notes.push(Note::limit(m)),
        Err(m) => {
            return Err(scenario_error(
                ScenarioErrorKind::ValueError,
                m,
                Some(&source::MLA_SEL_NO_SHARED_BLOCK_SIZE_RAISE),
                r,
            ))
        }
    }
    if r >= Release::V0_25_0Prefix
        && !cmd.kv_cache_dtype_skip_layers.is_empty()
        && crate::backends::is_quantized_kv_cache(r, &p.global_kv)
    {
        report.notes.push(Note::limit(format!(
            "{}: the block size vLLM {r} aligns for an MLA model whose quantized cache shares the pool with \
             --kv-cache-dtype-skip-layers layers (_align_heterogeneous_kv_block_size); qpath shows the backend's \
             preferred block size",
            crate::attention::QPATH_LIMIT
        )));
    }
    Ok(t.steps)
}

/// The FlashInfer page size: `--block-size`, else 16 (FlashInfer's smallest kernel block). From 0.25.0, with skip
/// layers and a quantized primary dtype, vLLM raises the block size so the quantized page covers the 16-bit page
/// (`_align_heterogeneous_kv_block_size`): 32 for an FP8 primary on a 16-bit model.
pub(super) fn page_size(r: Release, cmd: &ServeCommand) -> u32 {
    if let Some(b) = cmd.block_size {
        return b;
    }
    let fp8 = cmd.kv_cache_dtype.starts_with("fp8");
    if r >= Release::V0_25_0Prefix && !cmd.kv_cache_dtype_skip_layers.is_empty() && fp8 {
        32
    } else {
        16
    }
}

/// A sparse MLA model's indexer caches (`DeepseekV32IndexerCache`, one beside each layer that builds an indexer): an
/// attention group of their own on the fixed backend DEEPSEEK_V32_INDEXER, after the MLA groups. Only when the MLA
/// layers were selected (the indexer is built beside each MLA layer, [`source::MLA_MODEL_INDEXER_CACHE`]).
pub(super) fn indexer_group(p: &Platform, engine: &Engine, spec: &ModelSpec, rows: &[LayerRow]) -> Option<GroupReport> {
    let ix = spec.mla.as_ref()?.indexer.as_ref()?;
    if ix.layers.is_empty() || !rows.iter().any(|r| r.layer.mla.is_some()) {
        return None;
    }
    let mut t = Trace::new(p.release);
    t.step(
        Some(&source::MLA_MODEL_INDEXER_CACHE),
        "indexer cache layers",
        format!(
            "{} layer(s) build a lightning indexer with its own cache layer (model.layers.{{i}}.self_attn.indexer.k_cache): \
             {} heads of {} (replicated on every rank), {} bytes per token; its backend is DEEPSEEK_V32_INDEXER, never \
             selected, so --attention-backend does not apply",
            ix.layers.len(),
            ix.index_n_heads,
            ix.index_head_dim,
            ix.cache_head_size
        ),
    );
    let mut g = GroupReport {
        head_dim: ix.index_head_dim,
        num_q_heads: ix.index_n_heads,
        num_kv_heads: 1,
        ..GroupReport::unresolved(
            ix.layers.clone(),
            AttentionKind::Indexer,
            Backend::DeepseekV32Indexer,
            "fp8 (indexer keys)".to_string(),
            t.steps,
        )
    };
    let cx = GroupContext {
        engine,
        query: None,
        recurrent: None,
    };
    crate::backends::rules(Backend::DeepseekV32Indexer).resolve_group(p, &cx, &mut g);
    Some(g)
}

#[cfg(test)]
mod mla_tests {
    //! MLA layers through selection: the cache format a sparse backend writes back and the later layers' selection
    //! with it, the log lines in order, the skip list, the groups, and the block size (the models land separately, so
    //! the layers are built here from a preset's, with DeepSeek's MLA dims).
    use super::*;
    use crate::model::MlaDims;

    const V3: MlaDims = MlaDims {
        kv_lora_rank: 512,
        q_lora_rank: Some(1536),
        qk_nope_head_dim: 128,
        qk_rope_head_dim: 64,
        v_head_dim: 128,
        index_topk: None,
    };
    const V32: MlaDims = MlaDims {
        index_topk: Some(2048),
        ..V3
    };

    /// A 4-layer model whose layers are MLA layers with `dims` and 128 heads (DeepSeek-V3's shape).
    fn spec(r: Release, dims: MlaDims) -> ModelSpec {
        let mut s = model::resolve_model_at(r, "meta-llama/Llama-3.1-8B-Instruct", None).unwrap();
        s.layers.truncate(4);
        for l in &mut s.layers {
            l.head_dim = dims.head_size();
            l.num_q_heads = 128;
            l.num_kv_heads = 1;
            l.mla = Some(dims);
        }
        s
    }

    fn run(r: Release, cc: (u8, u8), dims: MlaDims, flags: &str) -> (Platform, ServeCommand, ModelSpec) {
        let cmd = serve::parse(r, &format!("vllm serve m {flags}")).unwrap();
        let mut p = Platform::for_tests(r, cc);
        p.global_kv = cmd.kv_cache_dtype.clone();
        (p, cmd, spec(r, dims))
    }

    fn texts(records: &[LogRecord]) -> Vec<String> {
        records.iter().map(|l| format!("{} {}", l.location(), l.text)).collect()
    }

    #[test]
    fn flashmla_sparse_writes_fp8_ds_mla_back_and_later_layers_select_with_it() {
        let r = Release::V0_30_0;
        let (p, cmd, spec) = run(r, (9, 0), V32, "--kv-cache-dtype fp8");
        let rows = select_layers(&p, None, &cmd, &spec, false).unwrap();
        assert_eq!(rows[0].query.kv_cache_dtype, "fp8");
        assert_eq!(rows[0].canon, Some("fp8_ds_mla"));
        assert_eq!(
            rows[0].selection.valid,
            [Backend::FlashMlaSparse, Backend::FlashInferMlaSparseSm90]
        );
        for row in &rows[1..] {
            assert_eq!(row.query.kv_cache_dtype, "fp8_ds_mla");
            assert_eq!(row.canon, None);
            assert_eq!(row.selection.valid, [Backend::FlashMlaSparse]);
        }
        assert!(rows.iter().all(|row| row.layer_kv == "fp8_ds_mla"));
        assert_eq!(rewritten_cache_dtype(&rows), Some("fp8_ds_mla"));
        assert_eq!(
            texts(&selection_logs(r, &rows)),
            [
                "cuda.py:538 Using FLASHMLA_SPARSE attention backend out of potential backends: ['FLASHMLA_SPARSE', \
                 'FLASHINFER_MLA_SPARSE_SM90'].",
                "mla_attention.py:512 Using fp8_ds_mla KV cache format for FLASHMLA_SPARSE backend.",
                "cuda.py:538 Using FLASHMLA_SPARSE attention backend out of potential backends: ['FLASHMLA_SPARSE']."
            ]
        );
        // One group: every layer's own cache dtype is fp8_ds_mla.
        let groups = group_layers(&rows);
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].1, [0, 1, 2, 3]);
        let g = group_report(&p, &cmd, groups[0].0.clone(), groups[0].1.clone(), &rows[0], &[]);
        assert_eq!(g.cache_dtype, "fp8_ds_mla");
        let rules: Vec<&str> = g.trace.iter().map(|s| &*s.rule).collect();
        assert!(rules.contains(&"MLA priority list"), "{rules:?}");
        let step = g.trace.iter().find(|s| s.rule == "cache_config.cache_dtype").unwrap();
        assert_eq!(
            step.source().as_deref(),
            Some("vllm/model_executor/layers/attention/mla_attention.py:510")
        );
        assert_eq!(
            step.outcome,
            "cache_config.cache_dtype = fp8_ds_mla: every later layer asks the selector with fp8_ds_mla"
        );
        let prio = g.trace.iter().find(|s| s.rule == "MLA priority list").unwrap();
        assert_eq!(prio.source().as_deref(), Some("vllm/platforms/cuda.py:147"));
        assert!(prio.outcome.ends_with(
            "[FLASH_ATTN_MLA, FLASHMLA, FLASHINFER_MLA, TRITON_MLA, FLASH_ATTN_MLA_SPARSE, FLASHMLA_SPARSE, \
             FLASHINFER_MLA_SPARSE_SM90]"
        ));
        let install = g.trace.iter().find(|s| s.rule == "FLASHMLA install check").unwrap();
        assert_eq!(install.source().as_deref(), Some("vllm/v1/attention/ops/flashmla.py:33"));
    }

    #[test]
    fn sm120_serves_auto_as_fp8_ds_mla() {
        for r in [Release::V0_24_0, Release::V0_33_0] {
            let (p, cmd, spec) = run(r, (12, 0), V32, "");
            let rows = select_layers(&p, None, &cmd, &spec, false).unwrap();
            assert_eq!(rows[0].selection.backend, Backend::FlashInferMlaSparseSm120);
            assert_eq!(rows[0].canon, Some("fp8_ds_mla"));
            assert_eq!(rows[1].query.kv_cache_dtype, "fp8_ds_mla");
            let logs = texts(&selection_logs(r, &rows));
            assert_eq!(logs.len(), 2, "{logs:?}");
            assert!(logs[1].ends_with("Using fp8_ds_mla KV cache format for FLASHINFER_MLA_SPARSE_SM120 backend."));
        }
    }

    #[test]
    fn flashinfer_mla_sparse_keeps_standard_fp8_and_logs_hnd_before_0_29() {
        let r = Release::V0_24_0;
        let (p, cmd, spec) = run(r, (10, 0), V32, "--kv-cache-dtype fp8_e4m3");
        let rows = select_layers(&p, None, &cmd, &spec, false).unwrap();
        assert!(rows.iter().all(|row| row.canon.is_none() && row.layer_kv == "fp8_e4m3"));
        assert_eq!(
            texts(&selection_logs(r, &rows)),
            [
                "cuda.py:480 Using FLASHINFER_MLA_SPARSE attention backend out of potential backends: \
                 ['FLASHINFER_MLA_SPARSE'].",
                "selector.py:138 Using HND KV cache layout for FLASHINFER_MLA_SPARSE backend.",
                "mla_attention.py:431 Using standard fp8 KV cache format. To use DeepSeek's fp8_ds_mla KV cache \
                 format, please set `--attention-backend FLASHMLA_SPARSE`"
            ]
        );
        let r = Release::V0_29_0;
        let (p, cmd, spec) = run(r, (10, 0), V32, "--kv-cache-dtype fp8_e4m3");
        let rows = select_layers(&p, None, &cmd, &spec, false).unwrap();
        assert_eq!(selection_logs(r, &rows).len(), 2, "no layout line from 0.29.0");
    }

    #[test]
    fn mla_layers_read_the_skip_list_from_0_26() {
        for (r, skipped) in [(Release::V0_25_0, false), (Release::V0_26_0, true)] {
            let (p, cmd, spec) = run(r, (9, 0), V3, "--kv-cache-dtype fp8 --kv-cache-dtype-skip-layers 1");
            let rows = select_layers(&p, None, &cmd, &spec, false).unwrap();
            assert_eq!(rows[1].skipped, skipped, "{r}");
            let want = if skipped { "auto" } else { "fp8" };
            assert_eq!(rows[1].query.kv_cache_dtype, want, "{r}");
            let backend = if skipped { Backend::FlashAttnMla } else { Backend::FlashMla };
            assert_eq!(rows[1].selection.backend, backend, "{r}");
            let groups = group_layers(&rows);
            let g = group_report(&p, &cmd, groups[0].0.clone(), groups[0].1.clone(), &rows[0], &[]);
            let step = &g.trace[0];
            if skipped {
                assert_eq!(groups.len(), 2, "{r}");
                assert!(step.outcome.starts_with("not in the skip list"), "{r}: {}", step.outcome);
            } else {
                assert_eq!(groups.len(), 1, "{r}");
                assert_eq!(
                    step.outcome,
                    "MLAAttention reads --kv-cache-dtype-skip-layers from 0.26.0 only: kv_cache_dtype \"fp8\" \
                     (cache_config.cache_dtype)"
                );
            }
        }
    }

    fn report_for(r: Release) -> Report {
        let s = Scenario::new(
            Hardware::Capability(ComputeCapability::new(9, 0)),
            r,
            "vllm serve meta-llama/Llama-3.1-8B-Instruct",
        );
        let mut rep = resolve(&s);
        rep.logs.clear();
        rep.log_records.clear();
        rep.notes.clear();
        rep
    }

    #[test]
    fn block_size_without_block_size_flag() {
        // Sparse: the indexer cache registers first; 0.24.0 – 0.30.0 ask it alone, 0.31.0+ every backend.
        for (r, log) in [
            (
                Release::V0_24_0,
                "interface.py:620 Setting kv cache block size to 64 for DEEPSEEK_V32_INDEXER backend.",
            ),
            (
                Release::V0_33_0,
                "interface.py:776 Setting kv cache block size to 64 for DEEPSEEK_V32_INDEXER/FLASHMLA_SPARSE \
                 backend(s).",
            ),
        ] {
            let (mut p, cmd, spec) = run(r, (9, 0), V32, "--kv-cache-dtype fp8_ds_mla");
            let rows = select_layers(&p, None, &cmd, &spec, false).unwrap();
            let mut rep = report_for(r);
            let steps = mla_block_size(&mut p, &cmd, &rows, &mut rep).unwrap();
            assert_eq!(p.page_size, 64, "{r}");
            assert_eq!(texts(&rep.log_records), [log], "{r}");
            assert_eq!(rep.logs.len(), 1);
            assert_eq!(steps[0].rule, "first attention layer", "{r}");
        }
        // Dense on B200: FLASHINFER_MLA, 32; on H200: FLASH_ATTN_MLA, 16 and no line.
        let r = Release::V0_24_0;
        let (mut p, cmd, spec) = run(r, (10, 0), V3, "");
        let rows = select_layers(&p, None, &cmd, &spec, false).unwrap();
        let mut rep = report_for(r);
        mla_block_size(&mut p, &cmd, &rows, &mut rep).unwrap();
        assert_eq!(p.page_size, 32);
        assert_eq!(rep.logs, ["Setting kv cache block size to 32 for FLASHINFER_MLA backend."]);
        let (mut p, cmd, spec) = run(r, (9, 0), V3, "");
        let rows = select_layers(&p, None, &cmd, &spec, false).unwrap();
        let mut rep = report_for(r);
        mla_block_size(&mut p, &cmd, &rows, &mut rep).unwrap();
        assert_eq!(p.page_size, 16);
        assert!(rep.logs.is_empty());
        // --block-size: nothing picked (the user's size is the selector's).
        let (mut p, cmd, spec) = run(r, (10, 0), V3, "--block-size 64");
        p.page_size = 64;
        let rows = select_layers(&p, None, &cmd, &spec, false).unwrap();
        let mut rep = report_for(r);
        assert!(mla_block_size(&mut p, &cmd, &rows, &mut rep).unwrap().is_empty());
        assert_eq!(p.page_size, 64);
    }

    #[test]
    fn block_size_precluded_warning_before_the_chosen_line() {
        let r = Release::V0_33_0;
        let (p, cmd, spec) = run(r, (10, 0), V3, "--block-size 16");
        let rows = select_layers(&p, None, &cmd, &spec, false).unwrap();
        let logs = selection_logs(r, &rows);
        assert_eq!(logs[0].level, LogLevel::Warning);
        assert_eq!(logs[0].location(), "cuda.py:498");
        assert!(logs[0]
            .text
            .starts_with("--block-size 16 precluded higher-priority backend(s) FLASHINFER_MLA, CUTLASS_MLA."));
        assert!(logs[1].text.starts_with("Using TRITON_MLA attention backend"));
        assert_eq!(logs.len(), 2, "once per selector cache miss");
    }
}
