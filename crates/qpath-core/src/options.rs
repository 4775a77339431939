//! The one reader of a scenario's options: the GPU (or a raw compute capability), the vLLM release (or any vLLM version:
//! a nightly or a patch runs as the last known release at or before it), the CUDA version of the torch build, whether
//! TRTLLM cubins are available and the installed FlashInfer. The CLI (`--gpu l4`), the JS API (`{gpu: "l4"}`), the
//! page's URL hash (`#gpu=l4`) and the `<qpath-explainer gpu="l4">` element all read them here, with the same rules
//! and the same defaults; each front end only says how it names a key and what it does with an error (the CLI stops,
//! the page keeps the rest of the state and shows a notice).

use std::fmt;

use crate::capability::{ComputeCapability, CudaVersion};
use crate::gpu::{self, Gpu};
use crate::release::{self, FlashInfer, Release};
use crate::resolve::{default_cubins, Hardware, Scenario, DEFAULT_CUDA};

/// The GPU a scenario uses when no option names one.
pub const DEFAULT_GPU: &str = "h100-sxm";

/// The GPU of [`DEFAULT_GPU`] (a test checks that the table has it).
pub fn default_gpu() -> &'static Gpu {
    gpu::find(DEFAULT_GPU).unwrap_or(&gpu::GPUS[0])
}

/// One option of a scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKey {
    Gpu,
    ComputeCapability,
    Vllm,
    Cuda,
    Cubins,
    FlashInfer,
}

impl OptionKey {
    pub const ALL: [OptionKey; 6] = [
        OptionKey::Gpu,
        OptionKey::ComputeCapability,
        OptionKey::Vllm,
        OptionKey::Cuda,
        OptionKey::Cubins,
        OptionKey::FlashInfer,
    ];

    /// The key as the URL hash and the element spell it (`gpu`, `compute-capability`, `vllm`, `cuda`, `cubins`).
    pub fn name(self) -> &'static str {
        match self {
            OptionKey::Gpu => "gpu",
            OptionKey::ComputeCapability => "compute-capability",
            OptionKey::Vllm => "vllm",
            OptionKey::Cuda => "cuda",
            OptionKey::Cubins => "cubins",
            OptionKey::FlashInfer => "flashinfer",
        }
    }

    /// The CLI's option (`--gpu`, `--compute-capability`, `--vllm`, `--cuda`, `--trtllm-cubins`).
    pub fn flag(self) -> &'static str {
        match self {
            OptionKey::Gpu => "--gpu",
            OptionKey::ComputeCapability => "--compute-capability",
            OptionKey::Vllm => "--vllm",
            OptionKey::Cuda => "--cuda",
            OptionKey::Cubins => "--trtllm-cubins",
            OptionKey::FlashInfer => "--flashinfer",
        }
    }

    /// The JS API's key (`gpu`, `computeCapability`, `vllm`, `cuda`, `trtllmCubins`).
    pub fn js_name(self) -> &'static str {
        match self {
            OptionKey::ComputeCapability => "computeCapability",
            OptionKey::Cubins => "trtllmCubins",
            k => k.name(),
        }
    }

    /// A key in any of the spellings above (and `compute_capability`, `trtllm_cubins`, `trtllm-cubins`).
    pub fn parse(name: &str) -> Option<OptionKey> {
        let bare = name.trim_start_matches('-');
        OptionKey::ALL.into_iter().find(|k| {
            bare == k.name()
                || bare == k.js_name()
                || bare == k.flag().trim_start_matches('-')
                || bare == k.name().replace('-', "_")
                || bare == k.flag().trim_start_matches('-').replace('-', "_")
        })
    }
}

/// An option value qpath cannot use: which key, the value as given, and why (a reason that does not repeat the value,
/// so each front end can show the value its own way).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionError {
    pub key: OptionKey,
    pub value: String,
    pub reason: String,
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} `{}` {}", self.key.name(), echo(&self.value), self.reason)
    }
}

/// The most characters of a user's value a message repeats (a message never echoes a whole 1 MB input).
pub const ECHO_LIMIT: usize = 80;

/// The longest run of non-blank characters [`echo_words`] leaves whole in a message.
pub const WORD_LIMIT: usize = 200;

/// A whole message (vLLM's text included, which repeats the user's values) as the page and the CLI's text show it:
/// every run of non-blank characters longer than [`WORD_LIMIT`] keeps its first [`ECHO_LIMIT`] and last 3 characters
/// around `… (N characters) …`. Shorter words and all blanks stay as written; the JSON keeps the full text.
pub fn echo_words(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(4 * WORD_LIMIT));
    let mut rest = text;
    while !rest.is_empty() {
        let blank = rest.find(|c: char| !c.is_whitespace()).unwrap_or(rest.len());
        out.push_str(&rest[..blank]);
        rest = &rest[blank..];
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let word = &rest[..end];
        let n = word.chars().count();
        if n > WORD_LIMIT {
            let head: String = word.chars().take(ECHO_LIMIT).collect();
            let tail: String = word.chars().skip(n - 3).collect();
            out.push_str(&format!("{head}… ({n} characters) …{tail}"));
        } else {
            out.push_str(word);
        }
        rest = &rest[end..];
    }
    out
}

/// A user's value as a message repeats it: whole up to [`ECHO_LIMIT`] characters, else its first [`ECHO_LIMIT`]
/// characters and `… (N characters)`.
pub fn echo(value: &str) -> String {
    match value.char_indices().nth(ECHO_LIMIT) {
        Some((i, _)) => format!("{}… ({} characters)", &value[..i], value.chars().count()),
        None => value.to_string(),
    }
}

/// One entry of a list of options with their values (`ServeCommand::unused`) as a message repeats it: whole up to
/// [`WORD_LIMIT`] characters, else [`echo`]ed, blanks in a quoted value or not (the page repeats the list on every
/// key typed in its command box: a 100 KB value laid out whole each time made typing slow).
pub fn echo_entry(entry: &str) -> String {
    if entry.chars().nth(WORD_LIMIT).is_some() {
        echo(entry)
    } else {
        entry.to_string()
    }
}

/// A list of options with their values (`ServeCommand::unused`) as a message repeats it: each [`echo_entry`], joined
/// by blanks (the CLI's text answer and the page's hint under its command box).
pub fn echo_entries(entries: &[String]) -> String {
    entries.iter().map(|e| echo_entry(e)).collect::<Vec<_>>().join(" ")
}

impl std::error::Error for OptionError {}

/// What the options of a scenario set; `None` is "not given" (the default applies).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScenarioOptions {
    pub gpu: Option<&'static Gpu>,
    pub compute_capability: Option<ComputeCapability>,
    pub release: Option<Release>,
    pub cuda: Option<CudaVersion>,
    /// `Some(true)` / `Some(false)`: TRTLLM cubins available or not; `None`: the default (available).
    pub cubins: Option<bool>,
    /// The installed flashinfer-python; `None`: the release's pin.
    pub flashinfer: Option<FlashInfer>,
    /// The flashinfer-python version as given when qpath does not model it (`flashinfer` is then the newest modelled
    /// release at or below it).
    pub flashinfer_version: Option<String>,
    /// The vLLM version as given when it is not a release qpath knows (`release` is then the one it runs as).
    pub vllm_version: Option<String>,
}

/// "`a`", "`a` or `b`", "`a`, `b` or `c`".
pub fn or_list(items: &[&str]) -> String {
    let quoted: Vec<String> = items.iter().map(|i| format!("`{i}`")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => quoted.concat(),
    }
}

/// A compute capability as users write it: `9.0`, `90`, `sm_90`, `sm90`, `compute_90` (case-insensitive; an
/// architecture-specific suffix `a` / `f` as in `sm_90a`, `9.0a`, `sm_100f` names the same capability). The digits
/// form is the major version followed by one minor digit (`86` = 8.6, `100` = 10.0, `121` = 12.1), as nvcc's `sm_XY`
/// names it. Anything else (`8.10`, `9`, `sm_9`) is an error whose reason says the accepted forms.
pub fn parse_compute_capability(text: &str) -> Result<ComputeCapability, String> {
    let forms = "expected X.Y, XY or sm_XY, for example 9.0, 90 or sm_90";
    let lower = text.trim().to_ascii_lowercase();
    let mut body = lower.as_str();
    let mut prefixed = false;
    for prefix in ["sm_", "sm", "compute_", "compute"] {
        if let Some(rest) = body.strip_prefix(prefix) {
            body = rest;
            prefixed = true;
            break;
        }
    }
    let body = body.strip_suffix(['a', 'f']).unwrap_or(body);
    if body.contains('.') {
        if prefixed {
            return Err(format!("is not a compute capability: {forms}"));
        }
        return body
            .parse::<ComputeCapability>()
            .map_err(|e| format!("is not a compute capability: {}", e.reason));
    }
    let digits = body.len() >= 2 && body.len() <= 3 && body.bytes().all(|c| c.is_ascii_digit()) && !body.starts_with('0');
    if !digits {
        return Err(format!("is not a compute capability: {forms}"));
    }
    let (major, minor) = body.split_at(body.len() - 1);
    match (major.parse::<u8>(), minor.parse::<u8>()) {
        (Ok(major), Ok(minor)) => Ok(ComputeCapability::new(major, minor)),
        _ => Err(format!("is not a compute capability: {forms}")),
    }
}

/// How a cubins value reads: `yes`/`true`/`1`, `no`/`false`/`0`, `default` or empty (the release's default).
pub fn parse_cubins(value: &str) -> Result<Option<bool>, String> {
    match value.trim().to_ascii_lowercase().as_str() {
        "yes" | "true" | "1" => Ok(Some(true)),
        "no" | "false" | "0" => Ok(Some(false)),
        "default" | "" => Ok(None),
        _ => Err("is not yes, no or default".to_string()),
    }
}

/// The cubins value as a link writes it.
pub fn cubins_name(cubins: Option<bool>) -> &'static str {
    match cubins {
        Some(true) => "yes",
        Some(false) => "no",
        None => "default",
    }
}

impl ScenarioOptions {
    /// Sets one option from its text (surrounding whitespace ignored). On an error the option keeps its value.
    pub fn set(&mut self, key: OptionKey, value: &str) -> Result<(), OptionError> {
        let v = value.trim();
        let error = |reason: String| OptionError {
            key,
            value: value.to_string(),
            reason,
        };
        match key {
            OptionKey::Gpu => {
                self.gpu = Some(match gpu::lookup(v) {
                    gpu::Lookup::Found(g) => g,
                    gpu::Lookup::Ambiguous(rows) => {
                        return Err(error(format!(
                            "is not in qpath's GPU table; did you mean {}?",
                            or_list(&rows.iter().map(|g| g.id).collect::<Vec<_>>())
                        )))
                    }
                    gpu::Lookup::NotFound => return Err(error("is not in qpath's GPU table".to_string())),
                });
            }
            OptionKey::ComputeCapability => {
                self.compute_capability = Some(parse_compute_capability(v).map_err(error)?);
            }
            OptionKey::Vllm => match v.parse::<Release>() {
                Ok(r) => {
                    self.release = Some(r);
                    self.vllm_version = None;
                }
                Err(_) => {
                    // A nightly or patch version runs as the last known release at or before it.
                    self.release = Some(release::release_for_version(v).map_err(error)?);
                    self.vllm_version = Some(v.to_string());
                }
            },
            OptionKey::Cuda => {
                self.cuda =
                    Some(v.parse().map_err(|e: crate::capability::ParseVersionError| {
                        error(format!("is not a CUDA version: {}", e.reason))
                    })?);
            }
            OptionKey::Cubins => self.cubins = parse_cubins(v).map_err(error)?,
            OptionKey::FlashInfer => match v {
                "" | "default" | "pinned" => {
                    self.flashinfer = None;
                    self.flashinfer_version = None;
                }
                _ => match v.parse::<FlashInfer>() {
                    Ok(f) => {
                        self.flashinfer = Some(f);
                        self.flashinfer_version = None;
                    }
                    // Any other flashinfer-python from the first modelled one on runs as the newest modelled release at
                    // or below it, and the report says so.
                    Err(_) => {
                        self.flashinfer = Some(release::flashinfer_for_version(v).map_err(error)?);
                        self.flashinfer_version = Some(v.to_string());
                    }
                },
            },
        }
        Ok(())
    }

    /// Takes option `key` as `other` has it (what a user passed over what a log said): the field or fields that
    /// [`ScenarioOptions::set`] of that key writes; the GPU and a raw capability replace each other.
    pub fn take(&mut self, other: &ScenarioOptions, key: OptionKey) {
        match key {
            OptionKey::Gpu => {
                self.gpu = other.gpu;
                self.compute_capability = None;
            }
            OptionKey::ComputeCapability => {
                self.compute_capability = other.compute_capability;
                self.gpu = None;
            }
            OptionKey::Vllm => {
                self.release = other.release;
                self.vllm_version = other.vllm_version.clone();
            }
            OptionKey::Cuda => self.cuda = other.cuda,
            OptionKey::Cubins => self.cubins = other.cubins,
            OptionKey::FlashInfer => {
                self.flashinfer = other.flashinfer;
                self.flashinfer_version = other.flashinfer_version.clone();
            }
        }
    }

    /// The hardware: the GPU, or the raw capability, or the default GPU. Naming both is an error.
    pub fn hardware(&self) -> Result<Hardware, OptionError> {
        match (self.gpu, self.compute_capability) {
            (Some(g), Some(cc)) => Err(OptionError {
                key: OptionKey::ComputeCapability,
                value: cc.to_string(),
                reason: format!("and gpu `{}` exclude each other: give one", g.id),
            }),
            (None, Some(cc)) => Ok(Hardware::Capability(cc)),
            (g, None) => Ok(Hardware::Gpu(g.unwrap_or_else(default_gpu))),
        }
    }

    /// The GPU, or the default GPU (for a raw capability too: the page always shows a GPU).
    pub fn gpu_or_default(&self) -> &'static Gpu {
        self.gpu.unwrap_or_else(default_gpu)
    }

    pub fn release_or_default(&self) -> Release {
        self.release.unwrap_or(Release::LATEST)
    }

    pub fn cuda_or_default(&self) -> CudaVersion {
        self.cuda.unwrap_or(DEFAULT_CUDA)
    }

    /// The FlashInfer in effect: the option, or the release's pin.
    pub fn flashinfer_or_pin(&self) -> FlashInfer {
        self.flashinfer.unwrap_or_else(|| self.release_or_default().flashinfer_pin())
    }

    /// Whether cubins are available in the scenario: the option, or the default (available).
    pub fn cubins_or_default(&self) -> bool {
        self.cubins.unwrap_or_else(|| default_cubins(self.release_or_default()))
    }

    /// The scenario of these options and a command line.
    pub fn scenario(&self, command_line: impl Into<String>) -> Result<Scenario, OptionError> {
        Ok(Scenario {
            hardware: self.hardware()?,
            release: self.release_or_default(),
            cuda: self.cuda_or_default(),
            trtllm_cubins: self.cubins,
            command_line: command_line.into(),
            model_config: None,
            draft_model_config: None,
            flashinfer: self.flashinfer,
            flashinfer_version: self.flashinfer_version.clone(),
            vllm_version: self.vllm_version.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_keys() {
        assert_eq!(default_gpu().id, DEFAULT_GPU);
        let o = ScenarioOptions::default();
        let s = o.scenario("vllm serve m").unwrap();
        assert_eq!(s.hardware, Hardware::Gpu(gpu::find("h100-sxm").unwrap()));
        assert_eq!((s.release, s.cuda, s.trtllm_cubins), (Release::LATEST, DEFAULT_CUDA, None));
        for k in OptionKey::ALL {
            for spelling in [k.name(), k.js_name(), k.flag()] {
                assert_eq!(OptionKey::parse(spelling), Some(k), "{spelling}");
            }
        }
        assert_eq!(OptionKey::parse("trtllm_cubins"), Some(OptionKey::Cubins));
        assert_eq!(OptionKey::parse("theme"), None);
    }

    #[test]
    fn messages_shorten_only_long_words() {
        let text = "vllm: error: unrecognized arguments: --x";
        assert_eq!(echo_words(text), text);
        let word = format!("`{}`:", "y".repeat(1_000_000));
        let shown = echo_words(&format!("found  {word}\nqpath reads"));
        assert_eq!(
            shown,
            format!(
                "found  `{}… (1000003 characters) …y`:\nqpath reads",
                "y".repeat(ECHO_LIMIT - 1)
            ),
        );
        let edge = "z".repeat(WORD_LIMIT);
        assert_eq!(echo_words(&edge), edge);
    }

    #[test]
    fn an_entry_is_shortened_as_a_whole() {
        let edge = format!("--x {}", "é".repeat(WORD_LIMIT - 4));
        assert_eq!(echo_entry(&edge), edge);
        let quoted = format!("--served-model-name '{}'", "q ".repeat(50_000).trim_end());
        assert_eq!(echo_entry(&quoted), format!("{}… (100021 characters)", &quoted[..ECHO_LIMIT]));
    }

    #[test]
    fn errors_echo_long_values_shortened() {
        assert_eq!(echo("l4"), "l4");
        let exact = "é".repeat(ECHO_LIMIT);
        assert_eq!(echo(&exact), exact);
        let long = "x".repeat(1_000_000);
        assert_eq!(echo(&long), format!("{}… (1000000 characters)", "x".repeat(ECHO_LIMIT)));
        for key in OptionKey::ALL {
            let e = ScenarioOptions::default().set(key, &long).unwrap_err();
            let text = e.to_string();
            assert!(text.len() < 400, "{key:?}: {} characters", text.len());
            assert!(text.contains("… (1000000 characters)"), "{text}");
        }
    }

    #[test]
    fn values_are_read_once_with_named_errors() {
        let mut o = ScenarioOptions::default();
        o.set(OptionKey::Gpu, " l4 ").unwrap();
        o.set(OptionKey::Vllm, "v0.25.0").unwrap();
        o.set(OptionKey::Cuda, "12.8").unwrap();
        o.set(OptionKey::Cubins, "no").unwrap();
        assert_eq!(o.gpu.map(|g| g.id), Some("l4"));
        assert_eq!(o.release, Some(Release::V0_25_0));
        assert_eq!(o.cuda, Some(CudaVersion::new(12, 8)));
        assert_eq!(o.cubins, Some(false));
        let e = o.set(OptionKey::Gpu, "h900").unwrap_err();
        assert_eq!(e.to_string(), "gpu `h900` is not in qpath's GPU table");
        assert_eq!(o.gpu.map(|g| g.id), Some("l4"), "a bad value keeps the option");
        o.set(OptionKey::Vllm, "0.99.0").unwrap();
        assert_eq!(
            (o.release, o.vllm_version.as_deref()),
            (Some(Release::LATEST), Some("0.99.0"))
        );
        o.set(OptionKey::Vllm, "0.27.2rc1.dev77+g1234abc").unwrap();
        assert_eq!(o.release, Some(Release::V0_27_1));
        let e = o.set(OptionKey::Vllm, "0.19.1").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "vllm `0.19.1` is before the first vLLM release qpath knows ({})",
                Release::range_text()
            )
        );
        assert!(o
            .set(OptionKey::Vllm, "newest")
            .unwrap_err()
            .reason
            .contains("is not a vLLM version"));
        o.set(OptionKey::Vllm, "0.25.0").unwrap();
        assert_eq!((o.release, o.vllm_version.as_deref()), (Some(Release::V0_25_0), None));
        o.set(OptionKey::FlashInfer, "0.6.18").unwrap();
        assert_eq!(o.flashinfer, Some(FlashInfer::F0_6_18));
        let e = o.set(OptionKey::FlashInfer, "0.5.3").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("flashinfer `0.5.3` is before flashinfer-python 0.6.8.post1, the first qpath models"),
            "{e}"
        );
        assert!(o
            .set(OptionKey::FlashInfer, "newest")
            .unwrap_err()
            .reason
            .contains("is not a flashinfer-python version"));
        assert_eq!(o.flashinfer, Some(FlashInfer::F0_6_18), "a bad value keeps the option");
        // Any other version from the first modelled one on: the newest modelled at or below it, the text kept.
        for (given, runs_as) in [
            ("0.6.15.post1", FlashInfer::F0_6_14),
            ("0.6.16", FlashInfer::F0_6_14),
            ("0.6.16.post3", FlashInfer::F0_6_16Post3),
            ("0.6.17rc1", FlashInfer::F0_6_16Post3),
            ("0.7.4", FlashInfer::F0_7_2Post1),
        ] {
            o.set(OptionKey::FlashInfer, given).unwrap();
            let exact = FlashInfer::ALL.iter().any(|f| f.name() == given);
            assert_eq!(
                (o.flashinfer, o.flashinfer_version.as_deref()),
                (Some(runs_as), (!exact).then_some(given)),
                "{given}"
            );
        }
        o.set(OptionKey::FlashInfer, "").unwrap();
        assert_eq!(o.flashinfer_or_pin(), FlashInfer::F0_6_13);
        assert!(o
            .set(OptionKey::Cuda, "twelve")
            .unwrap_err()
            .reason
            .starts_with("is not a CUDA version"));
        assert!(o.set(OptionKey::Cubins, "maybe").is_err());
        for (v, want) in [
            ("yes", Some(true)),
            ("TRUE", Some(true)),
            ("0", Some(false)),
            ("default", None),
            ("", None),
        ] {
            o.set(OptionKey::Cubins, v).unwrap();
            assert_eq!(o.cubins, want, "{v}");
        }
        o.set(OptionKey::ComputeCapability, "9.0").unwrap();
        let e = o.hardware().unwrap_err();
        assert!(e.to_string().contains("gpu `l4` exclude each other"), "{e}");
        o.gpu = None;
        assert_eq!(o.hardware().unwrap(), Hardware::Capability(ComputeCapability::new(9, 0)));
        assert!(o.set(OptionKey::ComputeCapability, "8.10").is_err());
    }

    #[test]
    fn names_as_users_type_them() {
        let mut o = ScenarioOptions::default();
        for (given, id) in [("L4", "l4"), ("H200", "h200"), ("NVIDIA H100 80GB HBM3", "h100-sxm")] {
            o.set(OptionKey::Gpu, given).unwrap();
            assert_eq!(o.gpu.map(|g| g.id), Some(id), "{given}");
        }
        let e = o.set(OptionKey::Gpu, "H100").unwrap_err();
        assert_eq!(
            e.to_string(),
            "gpu `H100` is not in qpath's GPU table; did you mean `h100-pcie`, `h100-sxm` or `h100-nvl`?"
        );
        assert_eq!(o.gpu.map(|g| g.id), Some("h100-sxm"), "a bad value keeps the option");
        for (given, cc) in [
            ("9.0", (9, 0)),
            ("90", (9, 0)),
            ("sm_90", (9, 0)),
            ("sm90", (9, 0)),
            ("compute_90", (9, 0)),
            ("SM_90A", (9, 0)),
            ("100f", (10, 0)),
            ("8.6", (8, 6)),
            ("121", (12, 1)),
        ] {
            assert_eq!(
                parse_compute_capability(given),
                Ok(ComputeCapability::new(cc.0, cc.1)),
                "{given}"
            );
        }
        for bad in [
            "8.10",
            "9",
            "sm_9",
            "sm_9.0",
            "1000",
            "09",
            "",
            "sm_",
            "a",
            "9.0.0",
            "compute_x",
        ] {
            let e = o.set(OptionKey::ComputeCapability, bad).unwrap_err();
            assert!(
                e.to_string()
                    .starts_with(&format!("compute-capability `{bad}` is not a compute capability: ")),
                "{e}"
            );
        }
    }
}
