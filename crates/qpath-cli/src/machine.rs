//! `--gpu auto` and `qpath doctor`: the machine qpath runs on, read piece by piece, each with where it came from.
//!
//! - The GPUs: `nvidia-smi --query-gpu=name,compute_cap --format=csv,noheader`, found on `PATH` (as the environment
//!   closure gives it), stopped after [`PROBE_TIMEOUT`], its output read up to [`OUTPUT_CAP`]. The first GPU is used
//!   (`--gpu-index N` another); a GPU qpath's table does not know runs with its compute capability.
//! - The active Python environment's site-packages, without importing anything: `--site-packages DIR`, else
//!   `$VIRTUAL_ENV`, else `$CONDA_PREFIX`, else `python3 -c "import sysconfig; …"` (purelib and platlib). In it,
//!   `vllm-*.dist-info/METADATA`, `flashinfer_python-*.dist-info/METADATA` and `torch-*.dist-info/METADATA` (their
//!   `Version:`), and torch's CUDA from `torch/version.py` (`cuda = '12.9'`, read as text).
//! - The environment's variables of [`ENV_NAMES`] (the `VLLM_*` / `FLASHINFER_*` the core reads): set before the
//!   command line as its own `NAME=value` would be; the command line's own assignment wins.
//!
//! A flag the user gave wins over what was read; a piece that could not be read falls back to the flag or qpath's
//! default, and the block says so with the flag that passes it. Nothing read here is ever an error of the run (exit
//! 1); a `--gpu-index` or `--site-packages` that names nothing is the user's error (exit 2).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use qpath_core::capability::ComputeCapability;
use qpath_core::gpu::{self, Lookup};
use qpath_core::options::{self, OptionKey, ScenarioOptions};

use crate::args::{Args, UsageError};

/// How long `nvidia-smi` or `python3` may take before qpath stops it.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// The most bytes of a probe's output (each of standard output and error) qpath reads.
pub const OUTPUT_CAP: u64 = 64 * 1024;

/// The most bytes of a `METADATA` or `torch/version.py` qpath reads (their headers come first).
pub const FILE_PREFIX: u64 = 64 * 1024;

/// The most GPUs qpath lists from `nvidia-smi` (a box has 8 or 16).
pub const MAX_GPUS: usize = 64;

/// The environment variables the core reads (`env_flag` / `env_value` in qpath-core, and the retired ones it names;
/// tests/machine.rs checks the list against the core's sources), taken from the environment with `--gpu auto`.
pub const ENV_NAMES: [&str; 10] = [
    "VLLM_BATCH_INVARIANT",
    "VLLM_HAS_FLASHINFER_CUBIN",
    "VLLM_KV_CACHE_LAYOUT",
    "VLLM_MLA_DISABLE",
    "VLLM_USE_V2_MODEL_RUNNER",
    "VLLM_ENABLE_FLA_PACKED_RECURRENT_DECODE",
    "VLLM_GDN_DECODE_KERNEL",
    "VLLM_ATTENTION_BACKEND",
    "VLLM_USE_TRTLLM_ATTENTION",
    "VLLM_FLASHINFER_DISABLE_Q_QUANTIZATION",
];

/// What a command line asks of the machine: `--gpu auto` or `qpath doctor`, `--gpu-index`, `--site-packages`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ask {
    /// `qpath doctor`: the command line is optional, the block is the answer.
    pub doctor: bool,
    pub gpu_index: Option<usize>,
    pub site_packages: Option<String>,
}

/// One GPU as `nvidia-smi` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SmiGpu {
    pub name: String,
    pub capability: ComputeCapability,
}

/// Why a probe gave no output to read.
#[derive(Debug, PartialEq, Eq)]
pub enum ProbeError {
    Spawn(String),
    Timeout,
    /// The exit code (`None`: a signal) and the first line it printed.
    Exit(Option<i32>, String),
}

/// `program` on `path` (a `PATH` value): the first executable regular file of that name.
pub fn find_on_path(program: &str, path: Option<&str>) -> Option<PathBuf> {
    let path = path?;
    std::env::split_paths(path)
        .filter(|d| !d.as_os_str().is_empty())
        .map(|d| d.join(program))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(p) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// Runs `program args` with standard input closed: its standard output (at most [`OUTPUT_CAP`] bytes, lossy UTF-8)
/// when it exits 0 within `timeout`; else why not (stopped at the timeout; a non-zero exit with its first line).
pub fn run_bounded(program: &Path, args: &[&str], timeout: Duration) -> Result<String, ProbeError> {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| ProbeError::Spawn(e.to_string()))?;
    let (tx, rx) = std::sync::mpsc::channel::<(usize, Vec<u8>)>();
    let pipes: [Option<Box<dyn Read + Send>>; 2] = [
        child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>),
        child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>),
    ];
    for (i, pipe) in pipes.into_iter().enumerate() {
        let tx = tx.clone();
        if let Some(pipe) = pipe {
            // Detached: a grandchild that keeps the pipe open must not hold qpath up.
            std::thread::spawn(move || {
                let mut data = Vec::new();
                let _ = pipe.take(OUTPUT_CAP).read_to_end(&mut data);
                let _ = tx.send((i, data));
            });
        }
    }
    drop(tx);
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(ProbeError::Timeout);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(ProbeError::Spawn(e.to_string())),
        }
    };
    let mut out = [Vec::new(), Vec::new()];
    for _ in 0..2 {
        let left = deadline
            .saturating_duration_since(Instant::now())
            .max(Duration::from_millis(200));
        match rx.recv_timeout(left) {
            Ok((i, data)) => out[i] = data,
            Err(_) => break,
        }
    }
    let [stdout, stderr] = out.map(|d| String::from_utf8_lossy(&d).into_owned());
    if status.success() {
        return Ok(stdout);
    }
    let first = stderr
        .lines()
        .chain(stdout.lines())
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default()
        .to_string();
    Err(ProbeError::Exit(status.code(), first))
}

/// `nvidia-smi`'s lines `NAME, COMPUTE_CAP` as GPUs; the first line that is not one is the error.
pub fn parse_smi(output: &str) -> Result<Vec<SmiGpu>, String> {
    let mut gpus = Vec::new();
    for (n, line) in output.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let parsed = line.rsplit_once(',').and_then(|(name, cc)| {
            let name = name.trim();
            let cc = options::parse_compute_capability(cc.trim()).ok()?;
            (!name.is_empty()).then(|| SmiGpu {
                name: name.to_string(),
                capability: cc,
            })
        });
        match parsed {
            Some(g) if gpus.len() < MAX_GPUS => gpus.push(g),
            Some(_) => break,
            None => {
                return Err(format!(
                    "printed `{}` (line {}), not `NAME, COMPUTE_CAP`",
                    options::echo(line.trim()),
                    n + 1
                ))
            }
        }
    }
    if gpus.is_empty() {
        return Err("listed no GPU".to_string());
    }
    Ok(gpus)
}

/// The GPUs `nvidia-smi` lists, and where it was; else what went wrong, ending with the flag to pass.
pub fn read_gpus(env: &dyn Fn(&str) -> Option<String>, timeout: Duration) -> Result<(PathBuf, Vec<SmiGpu>), String> {
    let pass = "pass --gpu ID (or --compute-capability X.Y)";
    let Some(smi) = find_on_path("nvidia-smi", env("PATH").as_deref()) else {
        return Err(format!("no nvidia-smi on PATH: {pass}"));
    };
    let at = format!("nvidia-smi ({})", smi.display());
    let output = match run_bounded(&smi, &["--query-gpu=name,compute_cap", "--format=csv,noheader"], timeout) {
        Ok(o) => o,
        Err(ProbeError::Spawn(e)) => return Err(format!("{at} could not be run: {e}: {pass}")),
        Err(ProbeError::Timeout) => {
            return Err(format!(
                "{at} did not answer within {} s (qpath stopped it): {pass}",
                timeout.as_secs_f32()
            ))
        }
        Err(ProbeError::Exit(code, first)) => {
            let code = code.map_or("a signal".to_string(), |c| format!("code {c}"));
            let said = if first.is_empty() {
                String::new()
            } else {
                format!(": `{}`", options::echo(&first))
            };
            return Err(format!("{at} exited with {code}{said}: {pass}"));
        }
    };
    parse_smi(&output).map(|g| (smi, g)).map_err(|e| format!("{at} {e}: {pass}"))
}

/// Where the active Python environment's packages are, and how qpath found them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    pub dirs: Vec<PathBuf>,
    pub how: String,
}

/// `prefix`'s site-packages folders (`lib/python3.X/site-packages`, `lib64/…`, Windows' `Lib/site-packages`).
fn prefix_sites(prefix: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for lib in ["lib", "lib64"] {
        let Ok(entries) = std::fs::read_dir(prefix.join(lib)) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .flatten()
            .take(10_000)
            .filter(|e| e.file_name().to_string_lossy().starts_with("python"))
            .map(|e| e.path().join("site-packages"))
            .filter(|p| p.is_dir())
            .collect();
        found.sort();
        dirs.extend(found);
    }
    let windows = prefix.join("Lib").join("site-packages");
    if windows.is_dir() {
        dirs.push(windows);
    }
    dirs
}

/// The site-packages to read: `--site-packages DIR` (an error when it is not a folder), `$VIRTUAL_ENV`,
/// `$CONDA_PREFIX`, then `python3`'s sysconfig; `Ok(Err(why))` when none was found (the flag to pass at its end).
pub fn find_site(ask: &Ask, env: &dyn Fn(&str) -> Option<String>, timeout: Duration) -> Result<Result<Site, String>, UsageError> {
    if let Some(dir) = &ask.site_packages {
        let p = std::fs::canonicalize(dir).unwrap_or_else(|_| PathBuf::from(dir));
        if !p.is_dir() {
            return Err(UsageError {
                message: format!("--site-packages `{}`: not a folder", options::echo(dir)),
                show_usage: false,
            });
        }
        return Ok(Ok(Site {
            dirs: vec![p],
            how: "--site-packages".into(),
        }));
    }
    let mut tried = Vec::new();
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        let Some(prefix) = env(var).filter(|v| !v.is_empty()) else {
            continue;
        };
        let dirs = prefix_sites(Path::new(&prefix));
        if !dirs.is_empty() {
            return Ok(Ok(Site {
                dirs,
                how: format!("${var}"),
            }));
        }
        tried.push(format!(
            "${var} ({}) has no lib/python*/site-packages",
            options::echo(&prefix)
        ));
    }
    let pass = "pass --site-packages DIR, or --vllm, --flashinfer and --cuda";
    let Some(python) = find_on_path("python3", env("PATH").as_deref()) else {
        tried.push("no python3 on PATH".into());
        return Ok(Err(format!(
            "{}: {pass}",
            sentence(&tried, "no $VIRTUAL_ENV or $CONDA_PREFIX")
        )));
    };
    let code = "import sysconfig; p = sysconfig.get_paths(); print(p['purelib']); print(p['platlib'])";
    let at = format!("python3 ({})", python.display());
    match run_bounded(&python, &["-c", code], timeout) {
        Ok(out) => {
            let mut dirs: Vec<PathBuf> = vec![];
            for line in out.lines().map(str::trim).filter(|l| !l.is_empty()).take(4) {
                let p = PathBuf::from(line);
                if p.is_dir() && !dirs.contains(&p) {
                    dirs.push(p);
                }
            }
            if dirs.is_empty() {
                tried.push(format!("{at} names no site-packages folder that exists"));
                return Ok(Err(format!("{}: {pass}", tried.join("; "))));
            }
            Ok(Ok(Site {
                dirs,
                how: format!("{at} sysconfig"),
            }))
        }
        Err(e) => {
            tried.push(match e {
                ProbeError::Spawn(e) => format!("{at} could not be run: {e}"),
                ProbeError::Timeout => format!("{at} did not answer within {} s", timeout.as_secs_f32()),
                ProbeError::Exit(c, first) => format!(
                    "{at} exited with {}: `{}`",
                    c.map_or("a signal".into(), |c| format!("code {c}")),
                    options::echo(&first)
                ),
            });
            Ok(Err(format!("{}: {pass}", tried.join("; "))))
        }
    }
}

fn sentence(tried: &[String], none: &str) -> String {
    if tried.len() <= 1 {
        let mut all = vec![none.to_string()];
        all.extend(tried.iter().cloned());
        all.join(", ")
    } else {
        tried.join("; ")
    }
}

/// A package's version as its dist-info says it, and the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dist {
    pub version: String,
    pub metadata: PathBuf,
    /// The site-packages folder holding it.
    pub site: PathBuf,
}

/// A dist-info folder's project name, normalized (`flashinfer_python-0.6.13.dist-info` → `flashinfer_python`).
fn dist_name(file: &str) -> Option<String> {
    let stem = file.strip_suffix(".dist-info")?;
    let (name, _) = stem.split_once('-')?;
    Some(name.to_ascii_lowercase().replace(['-', '.'], "_"))
}

/// `Version:` of a METADATA's headers (before its first blank line).
fn metadata_version(text: &str) -> Option<String> {
    text.lines()
        .take_while(|l| !l.trim().is_empty())
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim().eq_ignore_ascii_case("version").then(|| v.trim().to_string())
        })
        .filter(|v| !v.is_empty())
}

/// The package `name` (normalized, `flashinfer_python`) in `site`: its version, or why not (the flag to pass at its
/// end).
pub fn read_dist(site: &Site, name: &str, flag: &str) -> Result<Dist, String> {
    let mut found: Vec<(PathBuf, PathBuf)> = vec![];
    for dir in &site.dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for e in entries.flatten().take(100_000) {
            let file = e.file_name().to_string_lossy().into_owned();
            if dist_name(&file).as_deref() == Some(name) && !found.iter().any(|(p, _)| *p == e.path()) {
                found.push((e.path(), dir.clone()));
            }
        }
    }
    let where_ = site
        .dirs
        .iter()
        .map(|d| d.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let (info, dir) = match found.as_slice() {
        [] => {
            return Err(format!(
                "no {name}-*.dist-info in {where_} (found by {}): pass {flag}",
                site.how
            ))
        }
        [one] => one.clone(),
        many => {
            let names: Vec<String> = many.iter().map(|(p, _)| p.display().to_string()).collect();
            return Err(format!(
                "{} {name} dist-info folders ({}): pass {flag}",
                many.len(),
                names.join(", ")
            ));
        }
    };
    let metadata = info.join("METADATA");
    let text = match crate::read::read_prefix(&metadata, FILE_PREFIX, None) {
        Ok((bytes, _)) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => return Err(format!("{}: {e}: pass {flag}", metadata.display())),
    };
    match metadata_version(&text) {
        Some(version) => Ok(Dist {
            version,
            metadata,
            site: dir,
        }),
        None => Err(format!("{} has no `Version:` header: pass {flag}", metadata.display())),
    }
}

/// torch's CUDA version from `torch/version.py` (`cuda = '12.9'`, `cuda: Optional[str] = '12.9'`), as text; `Ok(None)`
/// for a build without CUDA (`cuda = None`).
pub fn torch_cuda(site: &Path) -> Result<(Option<String>, PathBuf), String> {
    let file = site.join("torch").join("version.py");
    let text = match crate::read::read_prefix(&file, FILE_PREFIX, None) {
        Ok((bytes, _)) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => return Err(format!("{}: {e}: pass --cuda X.Y", file.display())),
    };
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("cuda") else {
            continue;
        };
        let rest = rest.trim_start();
        if !(rest.starts_with('=') || rest.starts_with(':')) {
            continue;
        }
        let Some((_, value)) = rest.split_once('=') else {
            continue;
        };
        let value = value.trim();
        if value == "None" {
            return Ok((None, file));
        }
        let unquoted = value
            .strip_prefix('\'')
            .and_then(|v| v.strip_suffix('\''))
            .or_else(|| value.strip_prefix('"').and_then(|v| v.strip_suffix('"')));
        return match unquoted {
            Some(v) => Ok((Some(v.to_string()), file)),
            None => Err(format!(
                "{}: `cuda = {}` is not a quoted version: pass --cuda X.Y",
                file.display(),
                options::echo(value)
            )),
        };
    }
    Err(format!("{} has no `cuda = …` line: pass --cuda X.Y", file.display()))
}

/// One piece of the machine: what was read and from where, what the answer used, and what could not be read (with
/// the flag that passes it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub what: String,
    pub read: Option<String>,
    pub from: Option<String>,
    pub used: Option<String>,
    pub problem: Option<String>,
}

impl Item {
    fn new(what: &str) -> Item {
        Item {
            what: what.to_string(),
            read: None,
            from: None,
            used: None,
            problem: None,
        }
    }

    /// The item's line: `vLLM: 0.25.0 (from …); used 0.25.0`, `GPU: not read: no nvidia-smi on PATH: pass --gpu
    /// ID; used h100-sxm (qpath's default)`.
    pub fn line(&self) -> String {
        let mut s = format!("{}: ", self.what);
        match &self.read {
            Some(r) => s.push_str(r),
            None => s.push_str("not read"),
        }
        if let Some(f) = &self.from {
            s.push_str(&format!(" (from {f})"));
        }
        if let Some(p) = &self.problem {
            s.push_str(&format!(": {p}"));
        }
        if let Some(u) = &self.used {
            s.push_str(&format!("; used {u}"));
        }
        s
    }

    fn json(&self) -> serde_json::Value {
        serde_json::json!({"what": self.what, "read": self.read, "from": self.from, "used": self.used,
            "problem": self.problem})
    }
}

/// What was read, and what the answer used.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Machine {
    pub gpus: Vec<SmiGpu>,
    pub items: Vec<Item>,
    pub site_packages: Vec<PathBuf>,
}

impl Machine {
    /// The text block: what was read, then what was not (with the flag to pass), wrapped at `width` columns
    /// (`None`: `--wide`, a line per item).
    pub fn text(&self, width: Option<usize>) -> String {
        let wrap = |line: &str| match width {
            Some(w) => qpath_core::columns::wrap_hanging(line, w, "  ", "    ", &[]),
            None => format!("  {line}\n"),
        };
        let mut out = String::from("read from this machine:\n");
        let (bad, good): (Vec<&Item>, Vec<&Item>) = self.items.iter().partition(|i| i.problem.is_some());
        if good.is_empty() {
            out.push_str("  nothing\n");
        }
        for i in good {
            out.push_str(&wrap(&i.line()));
        }
        if !bad.is_empty() {
            out.push_str("could not read (pass the flag named):\n");
            for i in bad {
                out.push_str(&wrap(&i.line()));
            }
        }
        out
    }

    /// The Markdown block: the same lines as a list.
    pub fn markdown(&self) -> String {
        let mut out = String::from("**read from this machine:**\n\n");
        for i in &self.items {
            out.push_str(&format!("- {}\n", i.line()));
        }
        out + "\n"
    }

    /// The `machine` object of the JSON answer.
    pub fn json(&self) -> serde_json::Value {
        let gpus: Vec<serde_json::Value> = self
            .gpus
            .iter()
            .enumerate()
            .map(|(n, g)| {
                let id = match gpu::lookup(&g.name) {
                    Lookup::Found(row) => Some(row.id),
                    _ => None,
                };
                serde_json::json!({"index": n, "name": g.name, "compute_capability": g.capability.to_string(),
                    "id": id})
            })
            .collect();
        serde_json::json!({
            "gpus": gpus,
            "site_packages": self.site_packages.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
            "items": self.items.iter().map(Item::json).collect::<Vec<_>>(),
        })
    }
}

/// Reads the machine and applies what it read to `a`'s options and command line (a flag the user gave wins): what
/// was read and used. An `--gpu-index` past the GPUs listed, or a `--site-packages` that is not a folder, is a
/// [`UsageError`].
pub fn apply(a: &mut Args, ask: &Ask, env: &dyn Fn(&str) -> Option<String>) -> Result<Machine, UsageError> {
    apply_with(a, ask, env, PROBE_TIMEOUT)
}

/// [`apply`] with the probes' timeout.
pub fn apply_with(
    a: &mut Args,
    ask: &Ask,
    env: &dyn Fn(&str) -> Option<String>,
    timeout: Duration,
) -> Result<Machine, UsageError> {
    let mut m = Machine::default();
    gpu_items(a, ask, env, timeout, &mut m)?;
    let site = find_site(ask, env, timeout)?;
    package_items(a, &site, &mut m);
    env_items(a, env, &mut m);
    Ok(m)
}

fn given(a: &Args, key: OptionKey) -> bool {
    a.given.contains(&key)
}

fn gpu_items(
    a: &mut Args,
    ask: &Ask,
    env: &dyn Fn(&str) -> Option<String>,
    timeout: Duration,
    m: &mut Machine,
) -> Result<(), UsageError> {
    let mut item = Item::new("GPU");
    let flag = [OptionKey::Gpu, OptionKey::ComputeCapability]
        .into_iter()
        .find(|k| given(a, *k));
    let flag_used = |a: &Args, k: OptionKey| match k {
        OptionKey::Gpu => format!("{} {} (given)", k.flag(), a.options.gpu_or_default().id),
        _ => format!(
            "{} {} (given)",
            k.flag(),
            a.options.compute_capability.map(|c| c.to_string()).unwrap_or_default()
        ),
    };
    match read_gpus(env, timeout) {
        Err(problem) => {
            item.problem = Some(problem);
            item.used = Some(match flag {
                Some(k) => flag_used(a, k),
                None => format!("{} (qpath's default)", options::DEFAULT_GPU),
            });
            if let Some(n) = ask.gpu_index {
                item.problem = item.problem.map(|p| format!("{p} (--gpu-index {n} not used)"));
            }
            m.items.push(item);
        }
        Ok((smi, gpus)) => {
            let n = ask.gpu_index.unwrap_or(0);
            let Some(g) = gpus.get(n) else {
                return Err(UsageError {
                    message: format!(
                        "--gpu-index {n}: nvidia-smi ({}) lists {} GPU{} (0 to {})",
                        smi.display(),
                        gpus.len(),
                        if gpus.len() == 1 { "" } else { "s" },
                        gpus.len() - 1
                    ),
                    show_usage: false,
                });
            };
            item.read = Some(format!(
                "{}, compute capability {} (GPU {n} of {})",
                g.name,
                g.capability,
                gpus.len()
            ));
            item.from = Some(format!("nvidia-smi ({})", smi.display()));
            let used = match (flag, gpu::lookup(&g.name)) {
                (Some(k), _) => flag_used(a, k),
                (None, Lookup::Found(row)) => {
                    a.options.gpu = Some(row);
                    a.given.push(OptionKey::Gpu);
                    format!("{} ({})", row.id, row.name)
                }
                (None, found) => {
                    a.options.compute_capability = Some(g.capability);
                    let why = match found {
                        Lookup::Ambiguous(rows) => format!(
                            "`{}` could be {}: pass --gpu ID to pick",
                            g.name,
                            options::or_list(&rows.iter().map(|r| r.id).collect::<Vec<_>>())
                        ),
                        _ => "not in qpath's GPU table (`qpath gpus`)".to_string(),
                    };
                    format!("compute capability {} (as --compute-capability {0}; {why})", g.capability)
                }
            };
            item.used = Some(used);
            m.items.push(item);
            for (i, other) in gpus.iter().enumerate().filter(|(i, _)| *i != n) {
                let mut it = Item::new(&format!("GPU {i}"));
                it.read = Some(format!(
                    "{}, compute capability {} (not used: --gpu-index {i} picks it)",
                    other.name, other.capability
                ));
                m.items.push(it);
            }
            m.gpus = gpus;
        }
    }
    Ok(())
}

/// What the answer uses for `key` when nothing was read: the flag, or qpath's default.
fn fallback(a: &Args, key: OptionKey) -> String {
    let o = &a.options;
    if given(a, key) {
        let v = match key {
            OptionKey::Vllm => o.vllm_version.clone().unwrap_or_else(|| o.release_or_default().name().into()),
            OptionKey::FlashInfer => o
                .flashinfer_version
                .clone()
                .unwrap_or_else(|| o.flashinfer_or_pin().name().into()),
            _ => o.cuda_or_default().to_string(),
        };
        return format!("{} {v} (given)", key.flag());
    }
    match key {
        OptionKey::Vllm => format!("{} (qpath's default, the newest release)", o.release_or_default().name()),
        OptionKey::FlashInfer => format!("{} (the release's pin)", o.flashinfer_or_pin().name()),
        _ => format!("{} (qpath's default)", o.cuda_or_default()),
    }
}

/// Sets `key` to `value` read from the machine unless the user gave it: what the answer used, or why the value
/// cannot be used.
fn take(a: &mut Args, key: OptionKey, value: &str) -> Result<String, String> {
    let mut trial: ScenarioOptions = a.options.clone();
    trial
        .set(key, value)
        .map_err(|e| format!("{} {}", key.flag(), strip_key(&e)))?;
    if given(a, key) {
        return Ok(format!("{} (the flag given wins)", fallback(a, key)));
    }
    a.options.take(&trial, key);
    Ok(match key {
        OptionKey::Vllm if trial.vllm_version.is_some() => format!(
            "{value}, run as release {} (the last release qpath models at or before it)",
            trial.release_or_default()
        ),
        OptionKey::FlashInfer if trial.flashinfer_version.is_some() => {
            format!("{value}, run as {}", trial.flashinfer_or_pin())
        }
        _ => value.to_string(),
    })
}

fn strip_key(e: &options::OptionError) -> String {
    format!("`{}` {}", options::echo(&e.value), e.reason)
}

fn package_items(a: &mut Args, site: &Result<Site, String>, m: &mut Machine) {
    let site = match site {
        Ok(s) => s,
        Err(problem) => {
            for (what, key) in [
                ("vLLM", OptionKey::Vllm),
                ("FlashInfer", OptionKey::FlashInfer),
                ("CUDA", OptionKey::Cuda),
            ] {
                let mut it = Item::new(what);
                it.problem = Some(format!("no site-packages found: {problem}"));
                it.used = Some(fallback(a, key));
                m.items.push(it);
            }
            return;
        }
    };
    m.site_packages = site.dirs.clone();
    for (what, name, key) in [
        ("vLLM", "vllm", OptionKey::Vllm),
        ("FlashInfer", "flashinfer_python", OptionKey::FlashInfer),
    ] {
        let mut it = Item::new(what);
        match read_dist(site, name, &format!("{} VERSION", key.flag())) {
            Ok(d) => {
                it.read = Some(d.version.clone());
                it.from = Some(format!("{}, found by {}", d.metadata.display(), site.how));
                match take(a, key, &d.version) {
                    Ok(used) => it.used = Some(used),
                    Err(problem) => {
                        it.problem = Some(format!("{problem}: pass {} VERSION", key.flag()));
                        it.used = Some(fallback(a, key));
                    }
                }
            }
            Err(problem) => {
                it.problem = Some(problem);
                it.used = Some(fallback(a, key));
            }
        }
        m.items.push(it);
    }
    // torch: its version (shown) and its CUDA (used).
    let mut cuda = Item::new("CUDA");
    match read_dist(site, "torch", "--cuda X.Y") {
        Err(problem) => cuda.problem = Some(problem),
        Ok(d) => {
            let mut torch = Item::new("torch");
            torch.read = Some(d.version.clone());
            torch.from = Some(d.metadata.display().to_string());
            m.items.push(torch);
            match torch_cuda(&d.site) {
                Err(problem) => cuda.problem = Some(problem),
                Ok((None, file)) => {
                    cuda.read = Some("None".into());
                    cuda.from = Some(file.display().to_string());
                    cuda.problem = Some(format!("torch {} is a build without CUDA: pass --cuda X.Y", d.version));
                }
                Ok((Some(v), file)) => {
                    cuda.read = Some(v.clone());
                    cuda.from = Some(file.display().to_string());
                    match take(a, OptionKey::Cuda, &v) {
                        Ok(used) => cuda.used = Some(used),
                        Err(problem) => cuda.problem = Some(format!("{problem}: pass --cuda X.Y")),
                    }
                }
            }
        }
    }
    if cuda.used.is_none() {
        cuda.used = Some(fallback(a, OptionKey::Cuda));
    }
    m.items.push(cuda);
}

/// The environment's [`ENV_NAMES`], set before the command line unless it assigns them itself.
fn env_items(a: &mut Args, env: &dyn Fn(&str) -> Option<String>, m: &mut Machine) {
    let line = crate::line::command_line(&a.command);
    let mut prefix = String::new();
    for name in ENV_NAMES {
        let Some(value) = env(name) else {
            continue;
        };
        let mut it = Item::new(name);
        it.read = Some(options::echo(&value));
        it.from = Some("the environment".into());
        let assigned = line
            .split_whitespace()
            .any(|w| w.strip_prefix(name).is_some_and(|rest| rest.starts_with('=')));
        if assigned {
            it.used = Some("the command line's own value (it wins over the environment's)".into());
        } else {
            it.used = Some(format!("{name}={} before the command line", crate::line::shell_quote(&value)));
            prefix.push_str(&format!("{name}={} ", crate::line::shell_quote(&value)));
        }
        m.items.push(it);
    }
    if !prefix.is_empty() && !a.command.is_empty() {
        a.command = vec![format!("{prefix}{line}")];
    }
}

/// `--gpu auto` (any case).
pub fn is_auto(gpu: &str) -> bool {
    gpu.trim().eq_ignore_ascii_case("auto")
}

/// What a command's matches ask of the machine: `Some` for `qpath doctor` and `--gpu auto`; `--gpu-index` and
/// `--site-packages` without either, or `--gpu auto` with `explain-log` (whose GPU is the log's), are usage errors.
pub fn ask_of(m: &clap::ArgMatches, doctor: bool, explain_log: bool) -> Result<Option<Ask>, UsageError> {
    let auto = m.get_one::<String>(OptionKey::Gpu.name()).is_some_and(|g| is_auto(g));
    let gpu_index = m.get_one::<u16>("gpu-index").map(|n| usize::from(*n));
    let site_packages = m.get_one::<String>("site-packages").cloned();
    let usage = |message: String| UsageError {
        message,
        show_usage: true,
    };
    if auto && explain_log {
        return Err(usage(
            "`--gpu auto` reads this machine; `explain-log` reads the log's GPU: give --gpu ID to override it".into(),
        ));
    }
    if !(auto || doctor) {
        for (flag, set) in [
            ("--gpu-index", gpu_index.is_some()),
            ("--site-packages", site_packages.is_some()),
        ] {
            if set {
                return Err(usage(format!(
                    "`{flag}` is read with `--gpu auto` (or `qpath doctor`): add --gpu auto"
                )));
            }
        }
        return Ok(None);
    }
    Ok(Some(Ask {
        doctor,
        gpu_index,
        site_packages,
    }))
}
