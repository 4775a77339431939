//! Where the model's config.json comes from, as vLLM would find it without the network: `--model-config FILE`, MODEL
//! as a local directory holding config.json, MODEL as a Hugging Face id in the local cache (`$HF_HUB_CACHE`, else
//! `$HF_HOME/hub`, else `~/.cache/huggingface/hub`; the command line's own `HF_HOME=…` assignments win over the
//! process's environment, as they do for `vllm serve`).

use std::path::{Path, PathBuf};

use qpath_core::resolve::Scenario;

use crate::read;

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

/// A config.json given by the option `flag`.
fn given_file(flag: &str, file: &str) -> Result<FoundConfig, String> {
    let origin = format!("{flag} {file}");
    let text = read_config(Path::new(file), &origin)?;
    Ok(FoundConfig { text, origin })
}

/// The text of a config.json (`label` names it in messages): a regular file of at most
/// [`read::CONFIG_JSON`] bytes, UTF-8 and JSON (checked here, once, so that a file that is not JSON is named as the file
/// read, and a command that resolves many scenarios does not fail the same way in each).
fn read_config(path: &Path, label: &str) -> Result<String, String> {
    let text = read::read_text(path, read::CONFIG_JSON).map_err(|p| format!("{label}: {p}"))?;
    // The core parses it with serde_json's defaults too (the same grammar and nesting limit), so what passes here is
    // what the core reads.
    serde_json::from_str::<serde::de::IgnoredAny>(&text).map_err(|e| format!("{label}: not valid JSON: {e}"))?;
    Ok(text)
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
        let origin = file.display().to_string();
        let text = read_config(&file, &origin)?;
        return Ok(Some(FoundConfig { text, origin }));
    }
    if let Some(file) = hf_cache_config(model, env)? {
        let text = read_config(&file, &file.display().to_string())?;
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
    // A cache this user cannot look into (`HOME=/root` in a container run as another user) holds nothing for qpath:
    // the preset, or the core's "not a preset", applies. A folder it can see is read, and its problems are said.
    match read::exists(&folder) {
        Ok(Some(m)) if m.is_dir() => {}
        _ => return Ok(None),
    }
    let snapshots = folder.join("snapshots");
    let refs_main = folder.join("refs").join("main");
    if read::exists(&refs_main).map_err(at(&refs_main))?.is_some() {
        let rev = revision(&refs_main)?;
        let file = snapshots.join(&rev).join("config.json");
        let hash = if is_commit_hash(&rev) {
            ""
        } else {
            " (not a commit hash: 40 hex digits)"
        };
        return match read::exists(&file).map_err(at(&file))? {
            Some(_) => Ok(Some(file)),
            None => Err(format!(
                "{}: refs/main names revision {rev}{hash}, but {} does not exist",
                folder.display(),
                file.display()
            )),
        };
    }
    let mut newest: Option<(std::time::SystemTime, PathBuf)> = None;
    let mut unreadable: Option<String> = None;
    let entries = match std::fs::read_dir(&snapshots) {
        Ok(entries) => Some(entries),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(at(&snapshots)(read::Problem::of_io(e))),
    };
    for entry in entries.into_iter().flatten().flatten() {
        let file = entry.path().join("config.json");
        match read::exists(&file) {
            Ok(Some(m)) if !m.is_dir() => {}
            Ok(_) => continue,
            Err(e) => {
                unreadable.get_or_insert_with(|| format!("{}: {e}", file.display()));
                continue;
            }
        }
        let time = entry
            .metadata()
            .and_then(|m| m.modified())
            .unwrap_or(std::time::SystemTime::UNIX_EPOCH);
        if newest.as_ref().is_none_or(|(t, p)| time > *t || (time == *t && file > *p)) {
            newest = Some((time, file));
        }
    }
    match (newest, unreadable) {
        (Some((_, file)), _) => Ok(Some(file)),
        (None, Some(e)) => Err(e),
        (None, None) => Err(format!(
            "{}: the Hugging Face cache folder of {model} has no snapshot holding config.json (snapshots/*/config.json)",
            folder.display()
        )),
    }
}

/// A reading problem of `path`, naming it.
fn at(path: &Path) -> impl Fn(read::Problem) -> String + '_ {
    move |e| format!("{}: {e}", path.display())
}

/// Whether `rev` is what Hugging Face writes in `refs/main`: a commit hash, 40 hex digits.
fn is_commit_hash(rev: &str) -> bool {
    rev.len() == 40 && rev.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The revision `refs_main` names (its text, trimmed): read within [`read::REF`], and refused unless it is one name a
/// snapshot folder can have (no blank, no `/`, not `.` or `..`; Hugging Face writes a 40-hex commit hash). Quoted in
/// messages only when short and printable.
fn revision(refs_main: &Path) -> Result<String, String> {
    let not_a_hash = "a ref holds a commit hash (40 hex digits)";
    let text = read::read_text(refs_main, read::REF).map_err(|e| match e {
        read::Problem::TooBig { .. } | read::Problem::NotUtf8 { .. } => {
            format!("{}: {e}; {not_a_hash}", refs_main.display())
        }
        e => format!("{}: {e}", refs_main.display()),
    })?;
    let rev = text.trim();
    let one_name =
        !rev.is_empty() && rev != "." && rev != ".." && rev.chars().all(|c| c.is_ascii_graphic() && c != '/' && c != '\\');
    if one_name && rev.len() <= 64 {
        return Ok(rev.to_string());
    }
    let what = if rev.is_empty() {
        "nothing".to_string()
    } else if rev.len() <= 64 && rev.chars().all(|c| c.is_ascii_graphic() || c == ' ') {
        format!("`{rev}`")
    } else {
        format!("{} bytes", text.len())
    };
    Err(format!(
        "{}: holds {what}, not a commit hash (40 hex digits)",
        refs_main.display()
    ))
}
