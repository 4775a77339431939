//! Step 4, the checks `EngineArgs.create_engine_config` (engine/arg_utils.py L2245 in 0.33.0) makes on the fields
//! qpath keeps, in its order, and the [`ServeCommand`] built from what argparse left.

use super::argparse::{Conv, Ns, Role};
use super::bounds;
use super::enums::Enums;
use super::json::{int_value, to_serde_map, Obj, Value};
use super::pydantic::{backend_member, pyd, pydantic_message, pydantic_or_list, PydErr};
use super::python::{py_float, py_int, py_json_dumps, py_lower, py_str_repr, py_upper};
use super::table::FlagRow;
use super::{err, qpath_u32, ParseError, ServeCommand, SpeculativeConfig, CANNOT_MODEL, DEFAULT_MODEL};
use crate::release::Release;

/// What the command line made of one kept option, after argparse.
fn int_of(v: Option<&Conv>) -> Option<Option<i128>> {
    match v {
        Some(Conv::Int(n)) => Some(*n),
        _ => None,
    }
}

fn str_of(v: Option<&Conv>) -> Option<String> {
    match v {
        Some(Conv::Str(s)) => Some(s.clone()),
        _ => None,
    }
}

/// The as-written tokens of a kept option's last occurrence, for error messages.
fn tok(ns: &Ns, r: Role) -> Option<&str> {
    ns.tokens.get(&r).map(String::as_str)
}

/// The checks `EngineArgs.create_engine_config` (engine/arg_utils.py) makes on the kept fields, in its order:
/// ModelConfig (`hf_overrides`), CacheConfig (`block_size` gt=0, 0.33.0's `_validate_cache_dtype`), ParallelConfig
/// (`tensor_parallel_size`, `decode_context_parallel_size` ge=1), `create_speculative_config`, then the attention
/// backend (mutual exclusion, then `validate_backend_before`), then the Mamba config.
pub(super) fn build(
    release: Release,
    rows: &[FlagRow],
    enums: &Enums,
    env: Vec<(String, String)>,
    ns: Ns,
) -> Result<ServeCommand, ParseError> {
    reject_empty_values(&ns)?;
    let mut cmd = kept_fields(env, &ns);
    check_model_config(&mut cmd, &ns)?;
    check_bounds(release, rows, enums, &ns, "ModelConfig", Vec::new())?;
    check_cache_config(release, rows, enums, &mut cmd, &ns)?;
    check_parallel_config(release, rows, enums, &mut cmd, &ns)?;
    cmd.speculative_config = speculative(release, rows, enums, &ns)?;
    check_bounds(release, rows, enums, &ns, "SchedulerConfig", Vec::new())?;
    // `LoRAConfig(...) if self.enable_lora else None` (engine/arg_utils.py L2691 in 0.33.0).
    if lora_enabled(release, &cmd) {
        check_bounds(release, rows, enums, &ns, "LoRAConfig", Vec::new())?;
    }
    check_attention_backend(release, enums, &cmd, &ns)?;
    check_mamba_config(release, &cmd)?;
    // create_load_config, create_observability_config, then OffloadConfig(uva=UVAOffloadConfig(...),
    // prefetch=PrefetchOffloadConfig(...)) (engine/arg_utils.py L2825-2858 in 0.33.0).
    for class in [
        "LoadConfig",
        "ObservabilityConfig",
        "UVAOffloadConfig",
        "PrefetchOffloadConfig",
    ] {
        check_bounds(release, rows, enums, &ns, class, Vec::new())?;
    }
    Ok(cmd)
}

/// `--flag=--` on a single-value option: argparse drops the `--` and stores `[]`, which no config accepts.
fn reject_empty_values(ns: &Ns) -> Result<(), ParseError> {
    let roles = [
        Role::Model,
        Role::Dtype,
        Role::KvCacheDtype,
        Role::AttentionBackend,
        Role::AttentionCfg,
        Role::BlockSize,
        Role::Tp,
        Role::Dcp,
        Role::SpecConfig,
        Role::SpecMethod,
        Role::SpecModel,
        Role::SpecTokens,
        Role::HfOverrides,
    ];
    for role in roles {
        if matches!(ns.values.get(&role), Some(Conv::Empty)) {
            return Err(err(
                "`=--` as the value: argparse drops the `--` and stores an empty list as the option's value, which \
                 vLLM's configuration then rejects",
                tok(ns, role),
            ));
        }
    }
    Ok(())
}

/// The fields argparse already settled: the environment, the model (`model_tag`, else `--model`, else vLLM's
/// default), `--dtype`, `--kv-cache-dtype`, the skip layers, `--attention-backend`, `--attention-config`, and the
/// unused options as written.
fn kept_fields(env: Vec<(String, String)>, ns: &Ns) -> ServeCommand {
    let v = &ns.values;
    let mut cmd = ServeCommand {
        env,
        unused: ns.unused.clone(),
        ..ServeCommand::default()
    };
    cmd.model = ns
        .model_tag
        .clone()
        .or_else(|| str_of(v.get(&Role::Model)))
        .unwrap_or_else(|| DEFAULT_MODEL.to_string());
    if let Some(s) = str_of(v.get(&Role::Dtype)) {
        cmd.dtype = s;
    }
    if let Some(s) = str_of(v.get(&Role::KvCacheDtype)) {
        cmd.kv_cache_dtype = s;
    }
    if let Some(Conv::List(items)) = v.get(&Role::SkipLayers) {
        cmd.kv_cache_dtype_skip_layers = items
            .iter()
            .filter_map(|c| if let Conv::Str(s) = c { Some(s.clone()) } else { None })
            .collect();
    }
    cmd.attention_backend = str_of(v.get(&Role::AttentionBackend));
    if let Some(Conv::Attn(cfg)) = v.get(&Role::AttentionCfg) {
        cmd.attention_config = (**cfg).clone();
    }
    cmd
}

/// `create_model_config` (`ModelConfig(...)`, engine/arg_utils.py L1994 in 0.33.0): `hf_overrides` must be a dict (or
/// a callable); an empty dict is vLLM's default.
fn check_model_config(cmd: &mut ServeCommand, ns: &Ns) -> Result<(), ParseError> {
    match ns.values.get(&Role::HfOverrides) {
        Some(Conv::Json(Value::Object(m))) => cmd.hf_overrides = if m.is_empty() { None } else { Some(to_serde_map(m)) },
        Some(Conv::Json(other)) => {
            return Err(err(
                format!(
                    "--hf-overrides {}: not a JSON object; ModelConfig requires a dict",
                    py_json_dumps(other)
                ),
                tok(ns, Role::HfOverrides),
            ))
        }
        Some(Conv::Str(s)) => {
            return Err(err(
                format!(
                    "--hf-overrides {}: not a JSON object. vLLM's `union_dict_and_str` keeps text that is not `{{…}}` \
                     as a string, and ModelConfig rejects it (hf_overrides must be a dict or a callable)",
                    py_str_repr(s)
                ),
                tok(ns, Role::HfOverrides),
            ))
        }
        _ => {}
    }
    Ok(())
}

/// `CacheConfig(...)` (engine/arg_utils.py L2307 in 0.33.0): `block_size` gt=0, and, in the releases whose
/// `--kv-cache-dtype` has no argparse choices (0.33.0), `_validate_cache_dtype` against the `CacheDType` literal.
fn check_cache_config(
    release: Release,
    rows: &[FlagRow],
    enums: &Enums,
    cmd: &mut ServeCommand,
    ns: &Ns,
) -> Result<(), ParseError> {
    let mut errs = Vec::new();
    let block = int_of(ns.values.get(&Role::BlockSize));
    let at = |f: &str| bounds::position(release, "CacheConfig", f).unwrap_or(0);
    if let Some(Some(n)) = block {
        if n <= 0 {
            unbounded(
                release,
                "CacheConfig",
                "block_size",
                "--block-size",
                n,
                tok(ns, Role::BlockSize),
            )?;
            errs.push((
                (at("block_size"), 0),
                pyd("block_size", "Input should be greater than 0", "greater_than", int_value(n)),
                tok(ns, Role::BlockSize).map(str::to_string),
            ));
        }
    }
    let kv_row = rows.iter().find(|r| r.flag == "--kv-cache-dtype" && r.covers(release));
    if kv_row.is_some_and(|r| r.choices.is_none()) {
        let valid = enums.cache_dtypes(release);
        if !valid.contains(&cmd.kv_cache_dtype.as_str()) {
            let list: Vec<String> = valid.iter().map(|s| py_str_repr(s)).collect();
            // `cache_dtype` is declared after `gpu_memory_utilization` (config/cache.py L235 in 0.33.0).
            errs.push((
                (at("gpu_memory_utilization"), 1),
                pyd(
                    "cache_dtype",
                    format!(
                        "Value error, Invalid kv_cache_dtype: {}. Valid values are: [{}]",
                        py_str_repr(&cmd.kv_cache_dtype),
                        list.join(", ")
                    ),
                    "value_error",
                    Value::String(cmd.kv_cache_dtype.clone()),
                ),
                tok(ns, Role::KvCacheDtype).map(str::to_string),
            ));
        }
    }
    check_bounds(release, rows, enums, ns, "CacheConfig", errs)?;
    if let Some(n) = block {
        cmd.block_size = Some(qpath_u32(n, "--block-size", "block sizes", tok(ns, Role::BlockSize))?);
    }
    Ok(())
}

/// `ParallelConfig(...)` (engine/arg_utils.py L2569 in 0.33.0): `tensor_parallel_size` and
/// `decode_context_parallel_size` ge=1, with the table's bounds of the other flags.
fn check_parallel_config(
    release: Release,
    rows: &[FlagRow],
    enums: &Enums,
    cmd: &mut ServeCommand,
    ns: &Ns,
) -> Result<(), ParseError> {
    let mut errs = Vec::new();
    let mut sizes = [1u32; 2];
    for (k, (role, field, flag)) in [
        (Role::Tp, "tensor_parallel_size", "--tensor-parallel-size"),
        (Role::Dcp, "decode_context_parallel_size", "--decode-context-parallel-size"),
    ]
    .into_iter()
    .enumerate()
    {
        match int_of(ns.values.get(&role)) {
            Some(Some(n)) if n < 1 => errs.push((
                (unbounded(release, "ParallelConfig", field, flag, n, tok(ns, role))?, 0),
                pyd(
                    field,
                    "Input should be greater than or equal to 1",
                    "greater_than_equal",
                    int_value(n),
                ),
                tok(ns, role).map(str::to_string),
            )),
            Some(n) => sizes[k] = qpath_u32(n, field, "sizes", tok(ns, role))?,
            None => {}
        }
    }
    check_bounds(release, rows, enums, ns, "ParallelConfig", errs)?;
    [cmd.tensor_parallel_size, cmd.decode_context_parallel_size] = sizes;
    Ok(())
}

/// The place in pydantic's order of a field qpath keeps whose value is out of range, when the release declares the
/// bound (`data/vllm-field-bounds.tsv`). Before 0.23.0 `tensor_parallel_size`, `decode_context_parallel_size`
/// (config/parallel.py L113, L314 in 0.22.1) and `block_size` (config/cache.py L47 in 0.22.1, `SkipValidation`) have
/// none: the value passes the config and fails later, where qpath does not follow it.
fn unbounded(release: Release, class: &str, field: &str, flag: &str, n: i128, token: Option<&str>) -> Result<usize, ParseError> {
    bounds::position(release, class, field).ok_or_else(|| {
        err(
            format!(
                "{CANNOT_MODEL}: {flag} {n}: vLLM {release} declares {class}.{field} without a bound, so the value \
                 passes start-up validation and fails later, where qpath does not follow it"
            ),
            token,
        )
    })
}

/// One failing field of a config class: its place in pydantic's order, the error line, the entry as written.
type Failing = ((usize, u8), PydErr, Option<String>);

/// `Class(...)`'s pydantic validation: the failures `pre` qpath found on its kept fields plus the range checks of
/// `data/vllm-field-bounds.tsv` (serve/bounds.rs) on the flags it does not keep, all in one `ValidationError` in
/// field order; the token is the first failing entry's.
fn check_bounds(
    release: Release,
    rows: &[FlagRow],
    enums: &Enums,
    ns: &Ns,
    class: &str,
    mut errs: Vec<Failing>,
) -> Result<(), ParseError> {
    for f in bounds::failures(release, rows, enums, ns, class) {
        errs.push(((f.pos, 0), f.err, Some(f.token)));
    }
    if errs.is_empty() {
        return Ok(());
    }
    // pydantic's field order: each failure moved to its place, a stable insertion (a handful of fields; no slice
    // sort instantiated in the page's wasm for it).
    for i in 1..errs.len() {
        let key = errs[i].0;
        let place = errs[..i].partition_point(|e| e.0 <= key);
        errs[place..=i].rotate_right(1);
    }
    let token = errs[0].2.clone();
    let lines: Vec<PydErr> = errs.into_iter().map(|e| e.1).collect();
    Err(err(
        format!(
            "pydantic_core._pydantic_core.ValidationError: {}",
            pydantic_message(class, &lines)
        ),
        token.as_deref(),
    ))
}

/// `--enable-lora` as argparse left it (a `BooleanOptionalAction`: the last of `--enable-lora` / `--no-enable-lora`
/// / 0.33.0's `--disable-lora`).
fn lora_enabled(release: Release, cmd: &ServeCommand) -> bool {
    cmd.unused
        .iter()
        .rev()
        .filter_map(|e| super::unused_option_of(release, e, &["--enable-lora"]))
        .find(|o| o.flag == "--enable-lora")
        .is_some_and(|o| !o.option.starts_with("--no-") && !o.option.starts_with("--disable-"))
}

/// The attention backend (engine/arg_utils.py L2727–2737 in 0.33.0): `--attention-backend` and
/// `attention_config.backend` exclude each other; then `validate_backend_before` checks the name (`"auto"` passes,
/// converted only after the exclusion test).
fn check_attention_backend(release: Release, enums: &Enums, cmd: &ServeCommand, ns: &Ns) -> Result<(), ParseError> {
    if let Some(name) = &cmd.attention_backend {
        if cmd.attention_config.backend.is_some() {
            return Err(err(
                "ValueError: attention_backend and attention_config.backend are mutually exclusive",
                tok(ns, Role::AttentionBackend),
            ));
        }
        if py_lower(name) != "auto" {
            if let Err(msg) = backend_member(release, enums, name) {
                return Err(err(format!("ValueError: {msg}"), tok(ns, Role::AttentionBackend)));
            }
        }
    }
    Ok(())
}

/// `create_engine_config`'s Mamba config, after the attention backend (engine/arg_utils.py L2770 in 0.33.0, every
/// release): a `--mamba-backend` string becomes `MambaBackendEnum[value.upper()]`, whose metaclass raises `ValueError`
/// for a name that is not a member (`TRITON`, `FLASHINFER`; 0.27.0+ also `CPU`; config/mamba.py); then (0.27.0+)
/// `validate_ssu_algorithm`: a `--mamba-ssu-algorithm` needs the FlashInfer backend (`RECURRENT_MAMBA_SSU_ALGO_RAISE`).
/// The options are read from the unused entries (qpath keeps no field for them).
fn check_mamba_config(release: Release, cmd: &ServeCommand) -> Result<(), ParseError> {
    let (mut backend, mut algorithm) = (None, None);
    for entry in &cmd.unused {
        match super::unused_option_of(release, entry, &["--mamba-backend", "--mamba-ssu-algorithm"]) {
            Some(o) if o.flag == "--mamba-backend" => backend = Some((o.value.unwrap_or_default(), entry)),
            Some(o) if o.flag == "--mamba-ssu-algorithm" => {
                algorithm = Some((o.value.filter(|v| !v.is_empty() && v != "None"), entry))
            }
            _ => {}
        }
    }
    let members: &[&str] = if release >= Release::V0_27_0 {
        &["TRITON", "FLASHINFER", "CPU"]
    } else {
        &["TRITON", "FLASHINFER"]
    };
    let upper = backend.as_ref().map(|(v, _)| py_upper(v));
    if let (Some(name), Some((_, entry))) = (&upper, &backend) {
        if !members.contains(&name.as_str()) {
            return Err(err(
                format!(
                    "ValueError: Unknown Mamba SSU backend: '{name}'. Valid options are: {}",
                    members.join(", ")
                ),
                Some(entry),
            ));
        }
    }
    if let Some((Some(_), entry)) = &algorithm {
        if release >= Release::V0_27_0 && upper.as_deref() != Some("FLASHINFER") {
            return Err(err(
                "ValueError: Mamba SSU algorithm selection is only supported with the FlashInfer backend. Please set \
                 `--mamba-backend flashinfer`, or omit `--mamba-ssu-algorithm`.",
                Some(entry),
            ));
        }
    }
    Ok(())
}

/// `EngineArgs.create_speculative_config` (engine/arg_utils.py L2100 in 0.33.0): `--spec-method/--spec-model/
/// --spec-tokens` fill the `--speculative-config` dict (a key given both ways is an error), keys have `-` → `_`, then
/// `SpeculativeConfig(**dict)` validates `num_speculative_tokens` (int, gt=0), `model` (str | None), `method` (the
/// release's `SpeculativeMethod` literal, the choices of `--spec-method`). Other keys are not checked by qpath.
pub(super) fn speculative(
    release: Release,
    rows: &[FlagRow],
    enums: &Enums,
    ns: &Ns,
) -> Result<Option<SpeculativeConfig>, ParseError> {
    let Some(spec) = speculative_dict(ns)? else {
        return Ok(None);
    };
    let Value::Object(raw) = spec else {
        return Err(err(
            format!(
                "TypeError: --speculative-config {}: vLLM builds SpeculativeConfig(**value), which needs a JSON object",
                py_json_dumps(&spec)
            ),
            tok(ns, Role::SpecConfig),
        ));
    };
    let mut m = Obj::new();
    for (k, val) in raw {
        m.insert(k.replace('-', "_"), val);
    }
    let mut out = SpeculativeConfig::default();
    let mut errs = Vec::new();
    if let Some(val) = m.get("num_speculative_tokens") {
        let f = "num_speculative_tokens";
        match pydantic_int(f, val) {
            Ok(Some(k)) if k <= 0 => errs.push(pyd(f, "Input should be greater than 0", "greater_than", val.clone())),
            Ok(k) => out.num_speculative_tokens = Some(qpath_u32(k, f, "counts", tok(ns, Role::SpecConfig))?),
            Err(e) => errs.push(e),
        }
    }
    match m.get("model") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => out.model = Some(s.clone()),
        Some(other) => errs.push(pyd("model", "Input should be a valid string", "string_type", other.clone())),
    }
    match speculative_method(release, rows, m.get("method")) {
        Ok(method) => out.method = method,
        Err(e) => errs.push(e),
    }
    // 0.20.x: SpeculativeConfig has no `attention_backend` field (added in 0.21.0), and its dataclass forbids extras.
    match m.get("attention_backend") {
        Some(v) if release < Release::V0_21_0 => errs.push(pyd(
            "attention_backend",
            "Extra inputs are not permitted",
            "extra_forbidden",
            v.clone(),
        )),
        v => out.attention_backend = speculative_backend(release, enums, v, ns)?,
    }
    match (m.get("kv_cache_dtype"), release >= Release::V0_26_0) {
        (None | Some(Value::Null), _) => {}
        (Some(v), false) => errs.push(pyd(
            "kv_cache_dtype",
            "Extra inputs are not permitted",
            "extra_forbidden",
            v.clone(),
        )),
        (Some(Value::String(s)), true) if enums.cache_dtypes(release).contains(&s.as_str()) => {
            out.kv_cache_dtype = Some(s.clone())
        }
        (Some(v), true) => errs.push(pyd(
            "kv_cache_dtype",
            format!("Input should be {}", pydantic_or_list(&enums.cache_dtypes(release))),
            "literal_error",
            v.clone(),
        )),
    }
    if !errs.is_empty() {
        return Err(err(
            format!(
                "pydantic_core._pydantic_core.ValidationError: {}",
                pydantic_message("SpeculativeConfig", &errs)
            ),
            tok(ns, Role::SpecConfig)
                .or(tok(ns, Role::SpecMethod))
                .or(tok(ns, Role::SpecTokens)),
        ));
    }
    Ok(Some(out))
}

/// `SpeculativeConfig.attention_backend` (`_parse_attention_backend`, a `mode="before"` validator): `"auto"` is
/// none, any other string is looked up as `AttentionBackendEnum[value.upper()]`, whose `KeyError` pydantic does not
/// catch. Kept as written.
fn speculative_backend(release: Release, enums: &Enums, value: Option<&Value>, ns: &Ns) -> Result<Option<String>, ParseError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if py_lower(s) == "auto" => Ok(Some(s.clone())),
        Some(Value::String(s)) => {
            let upper = py_upper(s);
            if enums.backends(release).contains(&upper.as_str()) {
                Ok(Some(s.clone()))
            } else {
                Err(err(format!("KeyError: {}", py_str_repr(&upper)), tok(ns, Role::SpecConfig)))
            }
        }
        Some(other) => Err(err(
            format!(
                "qpath cannot model this: --speculative-config attention_backend {}: qpath reads a backend name or null",
                py_json_dumps(other)
            ),
            tok(ns, Role::SpecConfig),
        )),
    }
}

/// The first half of `create_speculative_config`: the `--speculative-config` value, with `--spec-method`,
/// `--spec-model` and `--spec-tokens` written into it (a key set both ways is vLLM's ValueError); `None` when none
/// of them is given.
fn speculative_dict(ns: &Ns) -> Result<Option<Value>, ParseError> {
    let v = &ns.values;
    let mut spec: Option<Value> = match v.get(&Role::SpecConfig) {
        Some(Conv::Json(j)) => Some(j.clone()),
        _ => None,
    };
    for (flag, key, role) in [
        ("--spec-method", "method", Role::SpecMethod),
        ("--spec-model", "model", Role::SpecModel),
        ("--spec-tokens", "num_speculative_tokens", Role::SpecTokens),
    ] {
        let value = match v.get(&role) {
            Some(Conv::Str(s)) => Value::String(s.clone()),
            Some(Conv::Int(Some(n))) => int_value(*n),
            _ => continue,
        };
        match spec.get_or_insert_with(|| Value::Object(Obj::new())) {
            Value::Object(m) => {
                if m.contains_key(key) {
                    return Err(err(
                        format!("ValueError: {flag} and --speculative-config['{key}'] are mutually exclusive"),
                        tok(ns, role),
                    ));
                }
                m.insert(key.to_string(), value);
            }
            _ => break,
        }
    }
    Ok(spec)
}

/// pydantic's lax `int` for field `f`: booleans, integers, integral floats, and strings Python's `int()` (or an
/// integral `float()`) reads; `Ok(None)` for a valid integer beyond `i128`.
fn pydantic_int(f: &str, val: &Value) -> Result<Option<i128>, PydErr> {
    match val {
        Value::Bool(b) => Ok(Some(i128::from(*b))),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => Ok(Some(i128::from(i))),
            (_, Some(u), _) => Ok(Some(i128::from(u))),
            (_, _, Some(x)) if x.fract() == 0.0 && x.abs() < 1e30 => Ok(Some(x as i128)),
            _ => Err(pyd(
                f,
                "Input should be a valid integer, got a number with a fractional part",
                "int_from_float",
                val.clone(),
            )),
        },
        // pydantic-core's float_as_int: nan and inf are not finite numbers (NaN, Infinity, 1e309 from json.loads).
        Value::Float(_) => Err(pyd(f, "Input should be a finite number", "finite_number", val.clone())),
        Value::String(s) => match py_int(s) {
            Ok(n) => Ok(n),
            Err(()) => match py_float(s).filter(|x| x.fract() == 0.0 && x.abs() < 1e30) {
                Some(x) => Ok(Some(x as i128)),
                None => Err(pyd(
                    f,
                    "Input should be a valid integer, unable to parse string as an integer",
                    "int_parsing",
                    val.clone(),
                )),
            },
        },
        _ => Err(pyd(f, "Input should be a valid integer", "int_type", val.clone())),
    }
}

/// `SpeculativeConfig.method`: the release's `SpeculativeMethod` literal (the choices of `--spec-method`, without
/// `None`), or null.
fn speculative_method(release: Release, rows: &[FlagRow], method: Option<&Value>) -> Result<Option<String>, PydErr> {
    match method {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => {
            let choices: Vec<&str> = rows
                .iter()
                .find(|r| r.flag == "--spec-method" && r.covers(release))
                .and_then(|r| r.choices.as_ref())
                .map(|c| c.iter().map(String::as_str).filter(|c| *c != "None").collect())
                .unwrap_or_default();
            if choices.is_empty() || choices.contains(&s.as_str()) {
                Ok(Some(s.clone()))
            } else {
                Err(pyd(
                    "method",
                    format!("Input should be {}", pydantic_or_list(&choices)),
                    "literal_error",
                    Value::String(s.clone()),
                ))
            }
        }
        Some(other) => Err(pyd(
            "method",
            "Input should be a valid string",
            "literal_error",
            other.clone(),
        )),
    }
}
