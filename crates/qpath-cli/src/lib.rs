//! `qpath`: what vLLM's FlashInfer backend decides for a GPU, a release and a `vllm serve` command line. The binary
//! (`src/main.rs`) only hands `argv` to [`run`] and prints; everything else is here, so tests (the crate's own and
//! the page's JS API tests, which compare the API with this CLI) call the real parser.
//!
//! ```text
//! qpath [--gpu ID | --compute-capability X.Y] [--vllm VERSION] [--cuda X.Y] [--trtllm-cubins yes|no]
//!       [--flashinfer VERSION] [--model-config FILE] [--format table|json|markdown] -- [ENV=VAL ...] vllm serve MODEL [FLAGS...]
//! ```
//!
//! The model's config.json is read as vLLM would find it, without the network: `--model-config FILE`; else MODEL as
//! a local directory holding config.json; else MODEL as a Hugging Face id in the local HF cache (`$HF_HUB_CACHE`,
//! else `$HF_HOME/hub`, else `~/.cache/huggingface/hub`: `models--ORG--NAME/snapshots/<refs/main or the newest>/
//! config.json`); else a qpath preset of that id. The report says which (`model.config`).
//!
//! ```text
//! qpath matrix [same options; --format markdown|json] -- [ENV=VAL ...] vllm serve MODEL [FLAGS...]
//! qpath gpus | releases
//! ```

use std::path::{Path, PathBuf};

use qpath_core::gpu::GPUS;
use qpath_core::options::{self, OptionKey, ScenarioOptions};
use qpath_core::release::{FlashInfer, Release};
use qpath_core::resolve::{resolve, Scenario, DEFAULT_CUDA};
use qpath_core::{matrix, render};

/// The usage text; its release range and defaults come from the core's data.
pub fn usage() -> String {
    format!(
        "usage:
  qpath [--gpu ID | --compute-capability X.Y] [--vllm VERSION] [--cuda X.Y] [--trtllm-cubins yes|no]
        [--flashinfer VERSION] [--model-config FILE] [--format table|json|markdown] -- [ENV=VAL ...] vllm serve MODEL [FLAGS...]
  qpath matrix [the same options, --format markdown|json] -- [ENV=VAL ...] vllm serve MODEL [FLAGS...]
  qpath gpus        list the GPU table's ids
  qpath releases    list the vLLM releases ({range}) and the FlashInfer each pins
defaults: --gpu {gpu} --vllm {latest} --cuda {cuda}, TRTLLM cubins available in every release (flashinfer-cubin
  installed or NVIDIA's artifactory reachable); --trtllm-cubins no: offline without flashinfer-cubin
--vllm: a release ({range}) or any vLLM version (a nightly such as 0.27.2rc1.dev77+g1234abc, a patch): it runs as
  the last release at or before it, and the report says so
--flashinfer: the installed flashinfer-python when it is not the release's pin ({fis}); FlashInfer's rules follow it
MODEL's config.json: --model-config FILE, else MODEL as a directory with config.json, else MODEL in the local Hugging Face
  cache ($HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub), else qpath's preset of that id",
        fis = FlashInfer::list_text(),
        range = Release::range_text(),
        gpu = options::DEFAULT_GPU,
        latest = Release::LATEST.name(),
        cuda = DEFAULT_CUDA,
    )
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Format {
    Table,
    Json,
    Markdown,
}

/// What the command line asks for.
#[derive(Debug)]
pub struct Args {
    pub matrix: bool,
    pub options: ScenarioOptions,
    pub format: Option<Format>,
    /// `--model-config FILE`: the model's config.json.
    pub model_config: Option<String>,
    /// The vLLM command line's words, after `--`.
    pub command: Vec<String>,
}

impl Args {
    /// The scenario: the options (the core's defaults where absent) and the words joined back into one line.
    pub fn scenario(&self) -> Result<Scenario, String> {
        let line: Vec<String> = self.command.iter().map(|s| shell_quote(s)).collect();
        self.options.scenario(line.join(" ")).map_err(|e| option_message(&e))
    }
}

/// An option error as the CLI says it: `--gpu `h900` is not in qpath's GPU table (see `qpath gpus`)`.
fn option_message(e: &options::OptionError) -> String {
    let hint = if e.key == OptionKey::Gpu { " (see `qpath gpus`)" } else { "" };
    format!("{} `{}` {}{hint}", e.key.flag(), options::echo(&e.value), e.reason)
}

/// Quotes one argument for a POSIX shell when it needs it, so the core parses the joined line back to the same tokens.
fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:=,@%+".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Reads qpath's own options and the vLLM command line after `--`.
pub fn parse_args(argv: &[String]) -> Result<Args, String> {
    let mut a = Args {
        matrix: false,
        options: ScenarioOptions::default(),
        format: None,
        model_config: None,
        command: vec![],
    };
    let mut i = 0;
    if argv.first().map(String::as_str) == Some("matrix") {
        a.matrix = true;
        i = 1;
    }
    while i < argv.len() {
        let arg = argv[i].as_str();
        if arg == "--" {
            a.command = argv[i + 1..].to_vec();
            break;
        }
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (arg, None),
        };
        let key = OptionKey::ALL.into_iter().find(|k| k.flag() == name);
        if key.is_none() && name != "--format" && name != "--model-config" {
            return Err(format!("unknown option `{arg}`"));
        }
        let value = match inline {
            Some(v) => v,
            None => {
                i += 1;
                argv.get(i).cloned().ok_or_else(|| format!("`{name}` needs a value"))?
            }
        };
        match key {
            Some(key) => a.options.set(key, &value).map_err(|e| option_message(&e))?,
            None if name == "--model-config" => a.model_config = Some(value),
            None => {
                a.format = Some(match value.as_str() {
                    "table" => Format::Table,
                    "json" => Format::Json,
                    "markdown" | "md" => Format::Markdown,
                    _ => return Err(format!("--format `{value}`: table, json or markdown")),
                })
            }
        }
        i += 1;
    }
    if a.command.is_empty() {
        return Err("give the vLLM command line after `--`, e.g. `qpath --gpu l4 -- vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8`".into());
    }
    Ok(a)
}

/// Runs `qpath ARGS…` and returns what it prints on success; an error is the message for standard error.
/// The arguments as text: each must be valid UTF-8 (a file name or a word in another encoding is named by its position,
/// counted from 1 after the program name, its bytes shown with `\xNN` escapes), else the message to print.
pub fn utf8_args<I: IntoIterator<Item = std::ffi::OsString>>(args: I) -> Result<Vec<String>, String> {
    args.into_iter()
        .enumerate()
        .map(|(i, a)| {
            a.into_string().map_err(|bad| {
                format!(
                    "argument {} is not valid UTF-8: {}",
                    i + 1,
                    bad.as_encoded_bytes().escape_ascii()
                )
            })
        })
        .collect()
}

/// What writing the answer came to.
#[derive(Debug, PartialEq, Eq)]
pub enum Written {
    /// All of it.
    Done,
    /// The reader went away (`qpath … | head -c1`): nothing more to say.
    ReaderGone,
    /// Another failure (a full disk, `> /dev/full`): the message to print.
    Failed(String),
}

/// Writes `text` to `out` and flushes it, without a panic on any failure.
pub fn write_answer(out: &mut dyn std::io::Write, text: &str) -> Written {
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Written::Done,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Written::ReaderGone,
        Err(e) => Written::Failed(format!("cannot write the answer to standard output: {e}")),
    }
}

pub fn run(argv: &[String]) -> Result<String, String> {
    run_with_env(argv, &|name| std::env::var(name).ok())
}

/// [`run`] with the environment read through `env` (the HF cache variables and `HOME`), so tests need not change the
/// process's environment.
pub fn run_with_env(argv: &[String], env: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    match argv.first().map(String::as_str) {
        Some("gpus") => {
            return Ok(GPUS
                .iter()
                .map(|g| format!("{:<24} {:<5} {}\n", g.id, g.capability.to_string(), g.name))
                .collect());
        }
        Some("releases") => {
            return Ok(Release::ALL
                .iter()
                .map(|r| match r.note() {
                    Some(note) => format!("{:<14} flashinfer {:<13} {note}\n", r.name(), r.flashinfer()),
                    None => format!("{:<14} flashinfer {}\n", r.name(), r.flashinfer()),
                })
                .collect());
        }
        Some("-h" | "--help" | "help") | None => return Ok(format!("{}\n", usage())),
        _ => {}
    }
    let a = parse_args(argv)?;
    let mut scenario = a.scenario()?;
    let found = find_model_config(&a, &scenario, env)?;
    if let Some(f) = &found {
        scenario.model_config = Some(f.text.clone());
    }
    if a.matrix {
        let m = matrix::matrix(&scenario)?;
        return Ok(match a.format {
            Some(Format::Json) => serde_json::to_string_pretty(&m).map_err(|e| e.to_string())? + "\n",
            _ => matrix::markdown(&m),
        });
    }
    let mut report = resolve(&scenario);
    if let (Some(f), Some(m)) = (&found, report.model.as_mut()) {
        m.config = Some(f.origin.clone());
    }
    Ok(match a.format.unwrap_or(Format::Table) {
        Format::Json => serde_json::to_string_pretty(&report).map_err(|e| e.to_string())? + "\n",
        Format::Markdown => render::markdown(&report, &scenario.command_line, None),
        Format::Table => render::text(&report),
    })
}

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
    a: &Args,
    scenario: &Scenario,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<FoundConfig>, String> {
    if let Some(file) = &a.model_config {
        let text = std::fs::read_to_string(file).map_err(|e| format!("--model-config {file}: {e}"))?;
        return Ok(Some(FoundConfig {
            text,
            origin: format!("--model-config {file}"),
        }));
    }
    let Ok(cmd) = qpath_core::serve::parse(scenario.release, &scenario.command_line) else {
        return Ok(None);
    };
    let model = cmd.model.as_str();
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

#[cfg(test)]
mod tests {
    #[test]
    fn arguments_must_be_utf8_and_a_bad_one_is_named() {
        use std::ffi::OsString;
        assert_eq!(
            utf8_args(["a", "b"].map(OsString::from)),
            Ok(vec!["a".to_string(), "b".to_string()])
        );
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStringExt;
            let args = vec![OsString::from("--"), OsString::from_vec(vec![0xff, b'x'])];
            assert_eq!(utf8_args(args), Err("argument 2 is not valid UTF-8: \\xffx".to_string()));
        }
    }

    /// A writer that fails with `kind`.
    struct Failing(std::io::ErrorKind);

    impl std::io::Write for Failing {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::from(self.0))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn writing_the_answer_never_panics() {
        let mut ok = Vec::new();
        assert_eq!(write_answer(&mut ok, "x\n"), Written::Done);
        assert_eq!(ok, b"x\n");
        assert_eq!(
            write_answer(&mut Failing(std::io::ErrorKind::BrokenPipe), "x"),
            Written::ReaderGone
        );
        let Written::Failed(e) = write_answer(&mut Failing(std::io::ErrorKind::StorageFull), "x") else {
            panic!("a full disk is a failure")
        };
        assert!(e.starts_with("cannot write the answer to standard output: "), "{e}");
    }

    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn options_and_command_line() {
        let a = parse_args(&args(
            "--gpu l4 --vllm 0.25.0 --cuda 12.8 --trtllm-cubins no --format json -- vllm serve m --kv-cache-dtype fp8",
        ))
        .unwrap();
        let s = a.scenario().unwrap();
        assert!(matches!(s.hardware, qpath_core::resolve::Hardware::Gpu(g) if g.id == "l4"));
        assert_eq!(s.release, Release::V0_25_0);
        assert_eq!(s.cuda, qpath_core::capability::CudaVersion::new(12, 8));
        assert_eq!(s.trtllm_cubins, Some(false));
        assert_eq!(a.command, args("vllm serve m --kv-cache-dtype fp8"));
        assert!(parse_args(&args("--gpu h900 -- vllm serve m"))
            .unwrap_err()
            .contains("`h900`"));
        assert!(parse_args(&args("--bogus 1 -- vllm serve m"))
            .unwrap_err()
            .contains("`--bogus`"));
        assert!(parse_args(&args("--gpu l4")).unwrap_err().contains("after `--`"));
        // A 1 MB input is echoed shortened, in the option error and in vLLM's error text.
        let big = "x".repeat(1_000_000);
        let e = parse_args(&args(&format!("--gpu {big} -- vllm serve m"))).unwrap_err();
        assert!(e.len() < 300 && e.contains("… (1000000 characters)"), "{}", e.len());
        for cmd in [format!("vllm serve m --{big}"), format!("vllm serve {big}"), big.clone()] {
            let out = run(&args(&format!("--gpu l4 -- {cmd}"))).unwrap_or_else(|e| e);
            assert!(out.len() < 2_000 && out.contains(" characters) …"), "{}", out.len());
        }
        let e = parse_args(&args("--gpu l4 --compute-capability 9.0 -- vllm serve m"))
            .unwrap()
            .scenario()
            .unwrap_err();
        assert!(e.contains("exclude each other"), "{e}");
        let s = parse_args(&args(
            "--vllm 0.27.2rc1.dev77+g1234abc --flashinfer 0.7.2.post1 -- vllm serve m",
        ))
        .unwrap()
        .scenario()
        .unwrap();
        assert_eq!(s.release, Release::V0_27_1);
        assert_eq!(s.vllm_version.as_deref(), Some("0.27.2rc1.dev77+g1234abc"));
        assert_eq!(s.flashinfer, Some(FlashInfer::F0_7_2Post1));
        let e = parse_args(&args("--vllm 0.20.1 -- vllm serve m")).unwrap_err();
        assert_eq!(
            e,
            "--vllm `0.20.1` is before the first vLLM release qpath knows (0.24.0 to 0.33.0)"
        );
        let e = parse_args(&args("--flashinfer 0.6.15 -- vllm serve m")).unwrap_err();
        assert!(e.starts_with("--flashinfer `0.6.15` is not a FlashInfer release"), "{e}");
    }

    #[test]
    fn usage_and_releases_come_from_the_data() {
        let u = usage();
        assert!(
            u.contains(&format!("--vllm {}", Release::LATEST.name())) && u.contains(&Release::range_text()),
            "{u}"
        );
        assert!(u.contains("TRTLLM cubins available in every release"), "{u}");
        assert!(u.contains("0.6.12, 0.6.13, 0.6.14, 0.6.16.post3"), "{u}");
        let listed = run(&args("releases")).unwrap();
        assert!(
            listed.lines().any(|l| l.starts_with("0.27.1 ") && l.contains("0.6.16.post3")),
            "{listed}"
        );
        assert_eq!(listed.lines().count(), Release::ALL.len());
    }

    /// A temporary directory removed on drop (no extra dependency).
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(tag: &str) -> TempDir {
            let d = std::env::temp_dir().join(format!("qpath-cli-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&d);
            std::fs::create_dir_all(&d).unwrap();
            TempDir(d)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// Qwen/Qwen3-0.6B's config.json (https://huggingface.co/Qwen/Qwen3-0.6B/blob/main/config.json, as the preset's
    /// sources restate it: 28 layers, 16 heads, 8 KV heads, head_dim 128, hidden 1024, sliding_window null,
    /// use_sliding_window false, max_window_layers 28, torch_dtype bfloat16).
    const QWEN3_06B: &str = r#"{"architectures": ["Qwen3ForCausalLM"], "head_dim": 128, "hidden_size": 1024,
        "max_window_layers": 28, "model_type": "qwen3", "num_attention_heads": 16, "num_hidden_layers": 28,
        "num_key_value_heads": 8, "sliding_window": null, "torch_dtype": "bfloat16", "use_sliding_window": false}"#;

    fn json_of(out: &str) -> serde_json::Value {
        serde_json::from_str(out).unwrap()
    }

    #[test]
    fn vllm_serve_a_local_directory_reads_its_config_json() {
        let dir = TempDir::new("dir");
        std::fs::write(dir.0.join("config.json"), QWEN3_06B).unwrap();
        let d = dir.0.display().to_string();
        let no_env = |_: &str| None;
        let out = run_with_env(&args(&format!("--gpu l4 --format json -- vllm serve {d}")), &no_env).unwrap();
        let j = json_of(&out);
        assert_eq!(j["model"]["config"], format!("{d}/config.json"), "{out}");
        assert_eq!(j["model"]["num_layers"], 28);
        assert_eq!(j["model"]["preset"], false);
        // Its answer is the preset's.
        let preset = json_of(&run_with_env(&args("--gpu l4 --format json -- vllm serve Qwen/Qwen3-0.6B"), &no_env).unwrap());
        assert_eq!(j["groups"], preset["groups"]);
        // The table says where the config came from.
        let table = run_with_env(&args(&format!("--gpu l4 -- vllm serve {d}")), &no_env).unwrap();
        assert!(table.contains(&format!("config {d}/config.json")), "{table}");
        // --model-config FILE wins and is named.
        let file = dir.0.join("other.json");
        std::fs::write(
            &file,
            QWEN3_06B.replace("\"num_hidden_layers\": 28", "\"num_hidden_layers\": 2"),
        )
        .unwrap();
        let f = file.display().to_string();
        let j = json_of(
            &run_with_env(
                &args(&format!("--gpu l4 --model-config {f} --format json -- vllm serve {d}")),
                &no_env,
            )
            .unwrap(),
        );
        assert_eq!(
            (j["model"]["config"].clone(), j["model"]["num_layers"].clone()),
            (format!("--model-config {f}").into(), 2.into())
        );
        // A malformed config.json is named, never a panic.
        std::fs::write(
            dir.0.join("config.json"),
            "{\"architectures\": [\"Qwen3ForCausalLM\"], \"num_hidden_layers\": ",
        )
        .unwrap();
        let j = json_of(&run_with_env(&args(&format!("--gpu l4 --format json -- vllm serve {d}")), &no_env).unwrap());
        let m = j["error"]["message"].as_str().unwrap();
        assert!(m.contains(&format!("config.json of {d} is not valid JSON")), "{m}");
        // A directory without config.json, a --model-config that does not exist: errors naming the file.
        std::fs::remove_file(dir.0.join("config.json")).unwrap();
        let e = run_with_env(&args(&format!("--gpu l4 -- vllm serve {d}")), &no_env).unwrap_err();
        assert!(e.contains(&format!("{d}/config.json")), "{e}");
        let e = run_with_env(&args("--model-config /nonexistent/qpath.json -- vllm serve m"), &no_env).unwrap_err();
        assert!(e.starts_with("--model-config /nonexistent/qpath.json: "), "{e}");
    }

    #[test]
    fn vllm_serve_an_hf_id_reads_the_local_hf_cache() {
        let cache = TempDir::new("hub");
        let folder = cache.0.join("models--acme--tiny-qwen3");
        let old = folder.join("snapshots").join("1111");
        let main = folder.join("snapshots").join("2222");
        std::fs::create_dir_all(&old).unwrap();
        std::fs::create_dir_all(&main).unwrap();
        std::fs::write(
            old.join("config.json"),
            QWEN3_06B.replace("\"num_hidden_layers\": 28", "\"num_hidden_layers\": 3"),
        )
        .unwrap();
        std::fs::write(main.join("config.json"), QWEN3_06B).unwrap();
        std::fs::create_dir_all(folder.join("refs")).unwrap();
        std::fs::write(folder.join("refs").join("main"), "2222").unwrap();
        let hub = cache.0.display().to_string();
        let env = |name: &str| (name == "HF_HUB_CACHE").then(|| hub.clone());
        let j = json_of(&run_with_env(&args("--gpu h100-sxm --format json -- vllm serve acme/tiny-qwen3"), &env).unwrap());
        assert_eq!(j["model"]["num_layers"], 28, "refs/main names 2222");
        let origin = j["model"]["config"].as_str().unwrap();
        assert!(
            origin.ends_with("snapshots/2222/config.json (Hugging Face cache)"),
            "{origin}"
        );
        // $HF_HOME/hub when HF_HUB_CACHE is unset; without refs/main the newest snapshot.
        std::fs::remove_file(folder.join("refs").join("main")).unwrap();
        let home = cache.0.join("home");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::rename(&folder, home.join("hub-placeholder")).unwrap();
        std::fs::create_dir_all(home.join("hub")).unwrap();
        std::fs::rename(
            home.join("hub-placeholder"),
            home.join("hub").join("models--acme--tiny-qwen3"),
        )
        .unwrap();
        let h = home.display().to_string();
        let env = |name: &str| (name == "HF_HOME").then(|| h.clone());
        let out = run_with_env(&args("--gpu h100-sxm --format json -- vllm serve acme/tiny-qwen3"), &env).unwrap();
        assert!(json_of(&out)["model"]["config"]
            .as_str()
            .unwrap()
            .contains("/hub/models--acme--tiny-qwen3/snapshots/"));
        // A cache folder without a snapshot: named.
        let empty = home.join("hub").join("models--acme--empty");
        std::fs::create_dir_all(empty.join("snapshots")).unwrap();
        let e = run_with_env(&args("-- vllm serve acme/empty"), &env).unwrap_err();
        assert!(
            e.contains("models--acme--empty") && e.contains("no snapshot holding config.json"),
            "{e}"
        );
        // A preset id with no local config still uses the preset.
        let j = json_of(&run_with_env(&args("--format json -- vllm serve Qwen/Qwen3-8B"), &env).unwrap());
        assert_eq!(
            (j["model"]["preset"].clone(), j["model"].get("config").cloned()),
            (true.into(), None)
        );
    }

    #[test]
    fn the_process_environment_names_the_hf_cache() {
        // The one test that sets the real variables: HF_HUB_CACHE for this process, pointing at a cache only it uses.
        let cache = TempDir::new("env");
        let snap = cache.0.join("models--envorg--envmodel").join("snapshots").join("abc");
        std::fs::create_dir_all(&snap).unwrap();
        std::fs::write(snap.join("config.json"), QWEN3_06B).unwrap();
        std::env::set_var("HF_HUB_CACHE", &cache.0);
        let out = run(&args("--format json -- vllm serve envorg/envmodel"));
        std::env::remove_var("HF_HUB_CACHE");
        let j = json_of(&out.unwrap());
        assert!(j["model"]["config"]
            .as_str()
            .unwrap()
            .contains("models--envorg--envmodel/snapshots/abc/config.json"));
    }

    #[test]
    fn quoting_keeps_json_arguments_whole() {
        assert_eq!(shell_quote("fp8"), "fp8");
        assert_eq!(
            shell_quote(r#"{"use_trtllm_attention": false}"#),
            r#"'{"use_trtllm_attention": false}'"#
        );
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }
}
