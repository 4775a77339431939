//! qpath's caps on the lists and nesting it reads: vLLM has no such bound (its limits are memory and Python's
//! recursion limit), qpath keeps every input's cost linear and bounded. Past a cap the report says "qpath cannot model
//! this: more than N …", naming the cap. `model::MAX_LAYERS` (4096 layers) and the other override bounds are in
//! `model/overrides.rs`.

/// Tokens of `--kv-cache-dtype-skip-layers` (after splitting on commas).
pub const MAX_SKIP_LAYER_TOKENS: usize = 100_000;
/// Unrecognized arguments and dotted keys qpath reads on one command line (each is one argv token).
pub const MAX_ARGUMENTS: usize = 200_000;
/// Nesting of a JSON value (`--hf-overrides`, `--speculative-config`, `--attention-config`, `--compilation-config`,
/// a dotted key's value, a model's config.json). Python's `json.loads` raises `RecursionError` near its recursion
/// limit (1000 frames by default, less the frames already on the stack: at 1000 nested arrays in CPython 3.11), which
/// argparse does not catch; qpath stops earlier.
pub const MAX_JSON_DEPTH: usize = 900;
/// Bytes of a model's config.json.
pub const MAX_CONFIG_JSON_BYTES: usize = 16 << 20;
/// Bytes of a command line the page reads (its command box, and a command line pasted anywhere on it). A real `vllm
/// serve` command fits easily: Linux refuses a single argument over 128 KiB (`MAX_ARG_STRLEN`), and a command line of
/// flags and a few JSON configs is a few KiB. The page parses the command line on every keystroke and shares it with
/// each scenario of its multi-scenario views, so it stops here rather than at the CLI's bounds (the CLI reads the
/// argv the shell gives it; `MAX_ARGUMENTS` bounds its tokens).
pub const MAX_COMMAND_LINE_BYTES: usize = 256 << 10;
/// Items qpath lists in one note or message (unmatched skip tokens, unknown flags); the rest is "… and N more".
pub const MAX_LISTED: usize = 20;
/// Did-you-mean suggestions qpath computes for unknown flags (each costs a scan of the release's option table).
pub const MAX_SUGGESTED: usize = 20;

/// `a, b, c, … and N more`: at most [`MAX_LISTED`] items, in order.
pub fn capped_list<T: AsRef<str>>(items: &[T]) -> String {
    let shown: Vec<&str> = items.iter().take(MAX_LISTED).map(AsRef::as_ref).collect();
    let mut out = shown.join(", ");
    if items.len() > MAX_LISTED {
        out.push_str(&format!(", … and {} more", items.len() - MAX_LISTED));
    }
    out
}
