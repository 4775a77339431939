//! A model's config.json read once for every scenario that shares it (issue 25: `qpath matrix` resolves ~240 cells,
//! the timeline one scenario per release, the fix finder a neighbourhood): the JSON is parsed on first use, and the
//! model spec built from it is kept per release, environment, id, file name and `--hf-overrides` (the config class a
//! release constructs can differ, so the spec is per release; the parsed JSON is not).

use std::cell::Cell;
use std::fmt;
use std::sync::{Mutex, OnceLock};

use serde_json::{Map, Value};

use super::{config_json, from_read, ModelEnv, ModelError, ModelSpec};
use crate::release::Release;

/// The most specs one config keeps (a timeline needs one per release; a fix search a few more). Past it, a spec is
/// built and not kept.
const MAX_KEPT_SPECS: usize = 64;

thread_local! {
    static PARSES: Cell<u64> = const { Cell::new(0) };
    static BUILDS: Cell<u64> = const { Cell::new(0) };
}

/// How many times this thread has parsed config.json text into JSON, and built a model spec from a config.json
/// (for the tests that check a multi-scenario command reads its model once).
#[doc(hidden)]
pub fn config_json_reads_on_this_thread() -> (u64, u64) {
    (PARSES.with(Cell::get), BUILDS.with(Cell::get))
}

pub(super) fn count_parse() {
    PARSES.with(|c| c.set(c.get() + 1));
}

pub(super) fn count_build() {
    BUILDS.with(|c| c.set(c.get() + 1));
}

/// What a built spec depends on besides the JSON.
#[derive(PartialEq)]
struct Key {
    release: Release,
    env: ModelEnv,
    id: String,
    file: String,
    hf_overrides: Option<Map<String, Value>>,
    /// The EAGLE method a drafter's config is read as (EAGLEConfig), `None` for a target or a draft model.
    eagle: Option<&'static str>,
}

/// config.json text, parsed at most once, with the specs built from it.
pub struct ParsedConfig {
    text: String,
    /// The JSON, or serde's error (the message naming the file is made per use, as [`config_json::read_as`] does).
    root: OnceLock<Result<Value, String>>,
    specs: Mutex<Vec<(Key, Result<ModelSpec, ModelError>)>>,
}

impl fmt::Debug for ParsedConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ParsedConfig({} bytes)", self.text.len())
    }
}

impl ParsedConfig {
    /// Keeps `text`; nothing is parsed until a spec is asked for.
    pub fn new(text: &str) -> ParsedConfig {
        ParsedConfig {
            text: text.to_string(),
            root: OnceLock::new(),
            specs: Mutex::new(Vec::new()),
        }
    }

    /// The config.json text.
    pub fn text(&self) -> &str {
        &self.text
    }

    fn root(&self) -> &Result<Value, String> {
        self.root.get_or_init(|| {
            count_parse();
            serde_json::from_str(&self.text).map_err(|e| e.to_string())
        })
    }

    /// [`super::resolve_model_from_config_in`] on this text: the same spec or error, the JSON parsed once and the spec
    /// built once per release, environment, id, file and overrides.
    pub fn resolve_model_in(
        &self,
        release: Release,
        env: ModelEnv,
        id: &str,
        file: &str,
        hf_overrides: Option<&Map<String, Value>>,
    ) -> Result<ModelSpec, ModelError> {
        self.resolve_in(release, env, (id, file), hf_overrides, None)
    }

    /// [`super::resolve_drafter_from_config`] on this text: the same spec or error, parsed once and built once per
    /// release, EAGLE method, id and file.
    pub fn resolve_drafter_in(
        &self,
        release: Release,
        eagle: Option<&'static str>,
        id: &str,
        file: &str,
    ) -> Result<ModelSpec, ModelError> {
        self.resolve_in(release, ModelEnv::default(), (id, file), None, eagle)
    }

    fn resolve_in(
        &self,
        release: Release,
        env: ModelEnv,
        (id, file): (&str, &str),
        hf_overrides: Option<&Map<String, Value>>,
        eagle: Option<&'static str>,
    ) -> Result<ModelSpec, ModelError> {
        let key = Key {
            release,
            env,
            id: id.to_string(),
            file: file.to_string(),
            hf_overrides: hf_overrides.cloned(),
            eagle,
        };
        if let Ok(specs) = self.specs.lock() {
            if let Some((_, spec)) = specs.iter().find(|(k, _)| *k == key) {
                return spec.clone();
            }
        }
        let spec = match self.root() {
            Ok(root) => config_json::read_value_as(release, file, root, eagle)
                .and_then(|read| from_read(release, env, (id, file), read, hf_overrides, eagle)),
            Err(e) => Err(ModelError {
                message: format!("{file} is not valid JSON: {e}"),
            }),
        };
        if let Ok(mut specs) = self.specs.lock() {
            if specs.len() < MAX_KEPT_SPECS {
                specs.push((key, spec.clone()));
            }
        }
        spec
    }
}
