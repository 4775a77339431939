//! Where the model's config.json comes from, as vLLM would find it without the network: `--model-config FILE`, MODEL
//! as a local directory holding config.json, MODEL as a Hugging Face id in the local cache (`$HF_HUB_CACHE`, else
//! `$HF_HOME/hub`, else `~/.cache/huggingface/hub`; the command line's own `HF_HOME=…` assignments win over the
//! process's environment, as they do for `vllm serve`).

use std::path::{Path, PathBuf};

use qpath_core::resolve::Scenario;

/// A config.json the CLI found, and where (for the report).
#[derive(Debug)]
pub struct FoundConfig {
    pub text: String,
    pub origin: String,
}

/// The model's config.json as vLLM would find it without the network: `--model-config FILE`, MODEL as a local
/// directory with config.json, MODEL as a Hugging Face id in the local cache; None when none applies (a preset, or a
/// model `--hf-overrides` describes). A command line that does not parse is left to the core to report.
pub fn find_model_config(
    model_config: Option<&str>,
    scenario: &Scenario,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<FoundConfig>, String> {
    if let Some(file) = model_config {
        return given_file("--model-config", file).map(Some);
    }
    let Ok(cmd) = qpath_core::serve::parse(scenario.release, &scenario.command_line) else {
        return Ok(None);
    };
    let env = command_env(&cmd, env);
    config_of_model(&cmd.model, &env)
}

/// A config.json given by the option `flag`, read whole.
fn given_file(flag: &str, file: &str) -> Result<FoundConfig, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{flag} {file}: {e}"))?;
    Ok(FoundConfig {
        text,
        origin: format!("{flag} {file}"),
    })
}

/// `HF_HOME=/x vllm serve …`: the command's own assignments (the last of a name wins) before the process's.
fn command_env<'a>(
    cmd: &'a qpath_core::serve::ServeCommand,
    env: &'a dyn Fn(&str) -> Option<String>,
) -> impl Fn(&str) -> Option<String> + 'a {
    move |name: &str| {
        let own = cmd.env.iter().rev().find(|(k, _)| k == name);
        own.map(|(_, v)| v.clone()).or_else(|| env(name))
    }
}

/// The speculative drafter's config.json, found as the target's is: `--draft-model-config FILE`, else the speculative
/// config's `"model"` as a local folder holding config.json or a Hugging Face id in the local cache; None when none
/// applies (no drafter, a preset, the target's own checkpoint for MTP).
pub fn find_draft_config(
    draft_config: Option<&str>,
    scenario: &Scenario,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<FoundConfig>, String> {
    if let Some(file) = draft_config {
        return given_file("--draft-model-config", file).map(Some);
    }
    let Ok(cmd) = qpath_core::serve::parse(scenario.release, &scenario.command_line) else {
        return Ok(None);
    };
    let Some(model) = cmd.speculative_config.as_ref().and_then(|sc| sc.model.clone()) else {
        return Ok(None);
    };
    if model == cmd.model {
        return Ok(None);
    }
    let env = command_env(&cmd, env);
    config_of_model(&model, &env)
}

/// A model string's config.json: a local folder holding one, or a Hugging Face id in the local cache.
fn config_of_model(model: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<Option<FoundConfig>, String> {
    let dir = Path::new(model);
    if dir.is_dir() {
        let file = dir.join("config.json");
        let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        return Ok(Some(FoundConfig {
            text,
            origin: file.display().to_string(),
        }));
    }
    if let Some(file) = hf_cache_config(model, env)? {
        let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        return Ok(Some(FoundConfig {
            text,
            origin: format!("{} (Hugging Face cache)", file.display()),
        }));
    }
    Ok(None)
}

/// The HF hub cache directory: `$HF_HUB_CACHE`, else `$HF_HOME/hub`, else `~/.cache/huggingface/hub`.
pub fn hf_hub_cache(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let set = |name: &str| env(name).filter(|v| !v.is_empty());
    if let Some(c) = set("HF_HUB_CACHE") {
        return Some(PathBuf::from(c));
    }
    if let Some(h) = set("HF_HOME") {
        return Some(Path::new(&h).join("hub"));
    }
    set("HOME").map(|h| Path::new(&h).join(".cache").join("huggingface").join("hub"))
}

/// `models--ORG--NAME/snapshots/<rev>/config.json` for an `ORG/NAME` id: the revision `refs/main` names when it
/// exists, else the newest snapshot (by modification time) holding config.json. None when the cache has no folder for
/// the id; an error naming the folder when it has one without a usable snapshot.
pub fn hf_cache_config(model: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<Option<PathBuf>, String> {
    let Some((org, name)) = model.split_once('/') else {
        return Ok(None);
    };
    if org.is_empty() || name.is_empty() || name.contains('/') || model.starts_with('.') {
        return Ok(None);
    }
    let Some(cache) = hf_hub_cache(env) else { return Ok(None) };
    let folder = cache.join(format!("models--{org}--{name}"));
    if !folder.is_dir() {
        return Ok(None);
    }
    let snapshots = folder.join("snapshots");
    let refs_main = folder.join("refs").join("main");
    if let Ok(rev) = std::fs::read_to_string(&refs_main) {
        let rev = rev.trim();
        let file = snapshots.join(rev).join("config.json");
        if file.is_file() {
            return Ok(Some(file));
        }
        return Err(format!(
            "{}: refs/main names revision {rev}, but {} does not exist",
            folder.display(),
            file.display()
        ));
    }
    let mut newest: Option<(std::time::SystemTime, PathBuf)> = None;
    if let Ok(entries) = std::fs::read_dir(&snapshots) {
        for entry in entries.flatten() {
            let file = entry.path().join("config.json");
            if !file.is_file() {
                continue;
            }
            let time = entry
                .metadata()
                .and_then(|m| m.modified())
                .unwrap_or(std::time::SystemTime::UNIX_EPOCH);
            if newest.as_ref().is_none_or(|(t, p)| time > *t || (time == *t && file > *p)) {
                newest = Some((time, file));
            }
        }
    }
    match newest {
        Some((_, file)) => Ok(Some(file)),
        None => Err(format!(
            "{}: the Hugging Face cache folder of {model} has no snapshot holding config.json (snapshots/*/config.json)",
            folder.display()
        )),
    }
}
