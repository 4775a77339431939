//! The URL hash: `#gpu=l4&vllm=0.25.0&cuda=12.9&cubins=yes&flashinfer=0.6.14&cmd=vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct+--kv-cache-dtype+fp8`.
//! Form-encoded (`+` for a space, `%XX` for reserved bytes), readable, every key optional (missing keys take their
//! defaults). Reading never fails the page: each part that cannot be used becomes a message naming it, and the valid
//! parts are kept. `flashinfer` (an installed FlashInfer other than the pin) is written only when set; `vllm` may be
//! any vLLM version (a nightly runs as the last known release at or before it, and the link keeps the version).
//! `config` (written last, only when set) is a pasted config.json, minified (whitespace outside strings removed, keys
//! and numbers as written); it is left out when the hash would exceed [`MAX_HASH`] characters.
//! The view and its own state come before the scenario (`#view=matrix&mode=picked&arch=Hopper&gpu=…`, see
//! [`format_view`]); a link without them opens Explain. The page reads at most [`MAX_LINK`] characters of a hash.

use qpath_core::capability::CudaVersion;
use qpath_core::gpu::{self, Gpu};
use qpath_core::matrix::MatrixMode;
use qpath_core::options::{cubins_name, default_gpu, echo, OptionKey, ScenarioOptions};
use qpath_core::release::{FlashInfer, Release};
use qpath_core::resolve::DEFAULT_CUDA;

/// What the results column shows; in a link as `view=` (absent: [`View::Explain`], as links from before the key).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum View {
    #[default]
    Explain,
    Compare,
    Matrix,
    /// The scenario at every release (`qpath_core::timeline`).
    Timeline,
    /// A pasted vLLM log: what it says, and qpath's lines beside its own (`qpath_core::explain_log`). The log itself is
    /// not in the link (too large for one); a link opens the view with an empty box.
    Log,
}

impl View {
    pub const ALL: [View; 5] = [View::Explain, View::Compare, View::Matrix, View::Timeline, View::Log];

    /// The name a link writes (`view=compare`).
    pub fn name(self) -> &'static str {
        match self {
            View::Explain => "explain",
            View::Compare => "compare",
            View::Matrix => "matrix",
            View::Timeline => "timeline",
            View::Log => "log",
        }
    }

    pub fn parse(name: &str) -> Option<View> {
        View::ALL.into_iter().find(|v| v.name() == name)
    }
}

/// What a link sets. `None` = the key was absent (or unusable, with a message in [`Link::problems`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Link {
    pub gpu: Option<&'static Gpu>,
    pub release: Option<Release>,
    pub cuda: Option<CudaVersion>,
    pub cubins: Option<bool>,
    /// `flashinfer=`: the installed FlashInfer; `None`: the release's pin.
    pub flashinfer: Option<FlashInfer>,
    /// `flashinfer=` when it is a flashinfer-python qpath does not model (`flashinfer` is then the one it runs as).
    pub flashinfer_version: Option<String>,
    /// `vllm=` when it names a version that is not a known release (`release` is the one it runs as).
    pub vllm_version: Option<String>,
    pub cmd: Option<String>,
    /// `config=`: a model's config.json text (read instead of the preset).
    pub config: Option<String>,
    /// `embed=1`: the page is shown inside another page's `<iframe>` (no chrome; see `crate::embed`).
    pub embed: bool,
    /// `theme=`: `light`, `dark` or `auto` (the system's), set by an embedder to match its site; the page applies it
    /// over the remembered theme without remembering it.
    pub theme: Option<String>,
    /// `origin=`: the embedding page's origin (`https://docs.example.com`), the only target an iframe posts its state
    /// to; serialised as browsers serialise an origin (lower-case scheme and host, no default port).
    pub origin: Option<String>,
    /// `view=`: the view the results column shows (`None`: explain).
    pub view: Option<View>,
    /// `compare=`: the release the compare view puts beside the scenario's (`None`: its neighbour).
    pub compare: Option<Release>,
    /// `mode=`: what the matrix shows (`flashinfer` or `picked`).
    pub matrix_mode: Option<MatrixMode>,
    /// `arch=`: the matrix shows only the GPUs of this architecture (one of [`gpu::architectures`]).
    pub matrix_arch: Option<String>,
    /// Messages about parts of the hash that could not be used, each naming the input.
    pub problems: Vec<String>,
}

impl Link {
    /// Whether the link says anything about the scenario (a key of it, usable or not), as opposed to an empty hash or
    /// one that only sets `embed`.
    pub fn names_a_scenario(&self) -> bool {
        self.gpu.is_some()
            || self.release.is_some()
            || self.cuda.is_some()
            || self.cubins.is_some()
            || self.flashinfer.is_some()
            || self.cmd.is_some()
            || self.config.is_some()
            || !self.problems.is_empty()
    }
}

/// Decodes `application/x-www-form-urlencoded` text as WHATWG's urlencoded parser (and so `URLSearchParams`) does:
/// `+` is a space, `%` followed by two hex digits a byte, any other `%` stays as written (`%+a` is `% a`, never a byte).
/// Invalid UTF-8 becomes U+FFFD.
pub fn form_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |j: usize| bytes.get(j).and_then(|&b| (b as char).to_digit(16));
        match (bytes[i], hex(i + 1), hex(i + 2)) {
            (b'+', ..) => out.push(b' '),
            (b'%', Some(hi), Some(lo)) => {
                out.push((hi * 16 + lo) as u8);
                i += 2;
            }
            (b, ..) => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Encodes for a form-encoded hash: letters, digits and `-._~:,@` stay, a space becomes `+`, all else `%XX`.
pub fn form_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b':' | b',' | b'@' => out.push(b as char),
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The option keys a link carries (the rest of [`OptionKey::ALL`] is not part of the page's state).
const LINK_KEYS: [OptionKey; 5] = [
    OptionKey::Gpu,
    OptionKey::Vllm,
    OptionKey::Cuda,
    OptionKey::Cubins,
    OptionKey::FlashInfer,
];

/// Reads a hash (with or without the leading `#`). The scenario options are read by the core's
/// [`ScenarioOptions::set`], as the CLI, the JS API and the element read them.
pub fn parse(hash: &str) -> Link {
    let mut link = Link::default();
    let mut options = ScenarioOptions::default();
    let body = hash.strip_prefix('#').unwrap_or(hash);
    let skipped = over_cap(body);
    if !skipped.is_empty() {
        let named: Vec<String> = skipped
            .iter()
            .map(|&i| {
                let part = body.split('&').nth(i).unwrap_or_default();
                let key = part.split_once('=').map_or(part, |(k, _)| k);
                format!("`{}` ({} characters)", echo(&form_decode(key)), thousands(part.len() as u64))
            })
            .collect();
        link.problems.push(format!(
            "The link is {} characters, over the {} characters (64 KiB) a link may carry; its part{} {} {} not read, \
             the rest was.",
            thousands(body.len() as u64 + 1),
            thousands(MAX_LINK as u64),
            if named.len() == 1 { "" } else { "s" },
            named.join(", "),
            if named.len() == 1 { "was" } else { "were" },
        ));
    }
    for (_, part) in body
        .split('&')
        .enumerate()
        .filter(|(i, p)| !p.is_empty() && !skipped.contains(i))
    {
        let Some((key, raw)) = part.split_once('=') else {
            link.problems.push(format!(
                "The link's part `{}` is not of the form key=value; it was ignored.",
                echo(&form_decode(part))
            ));
            continue;
        };
        let value = form_decode(raw);
        match (key, LINK_KEYS.into_iter().find(|k| k.name() == key)) {
            (_, Some(option)) => {
                if let Err(e) = options.set(option, &value) {
                    link.problems.push(format!(
                        "The link's {} `{}` {}; the page shows the default instead: {}.",
                        e.key.name(),
                        echo(&e.value),
                        e.reason,
                        default_shown(option)
                    ));
                }
            }
            ("cmd", _) => link.cmd = Some(value),
            ("config", _) => match serde_json::from_str::<serde_json::Value>(&value) {
                Ok(_) => link.config = Some(value),
                Err(e) => link.problems.push(format!(
                    "The link's config `{}` is not JSON ({e}); it was not applied.",
                    echo(&value)
                )),
            },
            ("view", _) => match View::parse(&value) {
                Some(v) => link.view = Some(v),
                None => link.problems.push(format!(
                    "The link's view `{}` is not one of {}; the page shows Explain instead.",
                    echo(&value),
                    View::ALL.map(View::name).join(", ")
                )),
            },
            ("compare", _) => match value.parse::<Release>() {
                Ok(r) => link.compare = Some(r),
                Err(e) => link.problems.push(format!(
                    "The link's compare `{}` is not a release qpath models ({}); the compare view shows the \
                     neighbouring release instead.",
                    echo(&value),
                    echo(&e.to_string())
                )),
            },
            ("mode", _) => match MatrixMode::parse(&value) {
                Some(m) => link.matrix_mode = Some(m),
                None => link.problems.push(format!(
                    "The link's mode `{}` is not one of {}; the matrix shows {} instead.",
                    echo(&value),
                    MatrixMode::ALL.map(MatrixMode::name).join(", "),
                    MatrixMode::default().name()
                )),
            },
            ("arch", _) => match gpu::architectures().into_iter().find(|a| *a == value) {
                Some(a) => link.matrix_arch = Some(a.to_string()),
                None => link.problems.push(format!(
                    "The link's arch `{}` is not an architecture of qpath's GPU table ({}); the matrix shows every \
                     GPU instead.",
                    echo(&value),
                    gpu::architectures().join(", ")
                )),
            },
            ("embed", _) => link.embed = matches!(value.as_str(), "1" | "true" | "yes"),
            ("theme", _) => match value.as_str() {
                "light" | "dark" | "auto" => link.theme = Some(value),
                _ => link.problems.push(format!(
                    "The link's theme `{}` is not light, dark or auto; it was not applied.",
                    echo(&value)
                )),
            },
            ("origin", _) => match web_origin(&value) {
                Some(o) => link.origin = Some(o),
                None => link.problems.push(format!(
                    "The link's origin `{}` is not an origin (https://host or http://host[:port], nothing after); \
                     it was not applied.",
                    echo(&value)
                )),
            },
            (other, _) => {
                let known: Vec<&str> = LINK_KEYS
                    .iter()
                    .map(|k| k.name())
                    .chain(["cmd", "config", "embed", "theme", "origin"])
                    .chain(VIEW_KEYS)
                    .collect();
                link.problems.push(format!(
                    "The link's key `{}` is not one qpath reads ({}); it was ignored.",
                    echo(&form_decode(other)),
                    known.join(", ")
                ))
            }
        }
    }
    link.gpu = options.gpu;
    link.release = options.release;
    link.cuda = options.cuda;
    link.cubins = options.cubins;
    link.flashinfer = options.flashinfer;
    link.flashinfer_version = options.flashinfer_version;
    link.vllm_version = options.vllm_version;
    link
}

/// `text` as a web origin (`scheme://host[:port]`, as `new URL(text).origin` serialises it) when it is exactly one:
/// http or https, a host name, IPv4 or bracketed IPv6 address, an optional port (a default port is dropped), at most a
/// trailing `/`, no user, path, query or fragment. Checked in Rust, so the same rule holds natively and in the browser.
pub fn web_origin(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let (scheme, rest) = lower.split_once("://")?;
    let default_port = match scheme {
        "https" => "443",
        "http" => "80",
        _ => return None,
    };
    let authority = rest.strip_suffix('/').unwrap_or(rest);
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if !h.starts_with('[') || h.ends_with(']') => (h, Some(p)),
        _ => (authority, None),
    };
    let host_ok = if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        !v6.is_empty() && v6.bytes().all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.')
    } else {
        !host.is_empty()
            && host
                .split('.')
                .all(|l| !l.is_empty() && l.len() <= 63 && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
    };
    let port = match port {
        Some(p) if p.is_empty() || p.len() > 5 || !p.bytes().all(|b| b.is_ascii_digit()) => return None,
        Some(p) if p.parse::<u32>().ok()? > 65_535 => return None,
        Some(p) => Some(p.trim_start_matches('0').to_string()).filter(|p| p != default_port),
        None => None,
    };
    host_ok.then(|| match port {
        Some(p) => format!("{scheme}://{host}:{}", if p.is_empty() { "0" } else { &p }),
        None => format!("{scheme}://{host}"),
    })
}

/// The release the compare view shows beside `r` unless one is chosen: the next in [`Release::ALL`], or the previous
/// for the latest (never `r` itself).
pub fn neighbouring_release(r: Release) -> Release {
    let all = Release::ALL;
    let i = all.iter().position(|x| *x == r).unwrap_or(0);
    match all.get(i + 1) {
        Some(next) => *next,
        None => all[i.saturating_sub(1)],
    }
}

/// The view's part of a hash, each key followed by `&` (empty for the explainer with nothing chosen): `view=` unless
/// explain, then each view's own state where it differs from its default, whatever the view (so going back to a
/// view keeps it): `compare=` (a release chosen to compare with), `mode=` (the matrix's, unless `flashinfer`),
/// `arch=` (the matrix's architecture filter).
pub fn format_view(view: View, compare: Option<Release>, mode: MatrixMode, arch: Option<&str>) -> String {
    let mut out = String::new();
    if view != View::Explain {
        out.push_str(&format!("view={}&", view.name()));
    }
    if let Some(r) = compare {
        out.push_str(&format!("compare={}&", form_encode(r.name())));
    }
    if mode != MatrixMode::default() {
        out.push_str(&format!("mode={}&", mode.name()));
    }
    if let Some(a) = arch {
        out.push_str(&format!("arch={}&", form_encode(a)));
    }
    out
}

/// The keys of a view's own state (after the scenario's, the embedder's and `config`).
const VIEW_KEYS: [&str; 4] = ["view", "compare", "mode", "arch"];

/// The longest hash the page reads: 64 KiB, as the CLI caps what it reads (`qpath_core::serve::limits`). Browsers
/// keep longer addresses but chat tools and servers cut them, and a longer command line makes each render slow. A
/// longer hash is read without its largest parts (see [`over_cap`]); a notice names them.
pub const MAX_LINK: usize = 64 * 1024;

/// The parts (`&`-separated, by position) left unread so that the rest of `body` fits [`MAX_LINK`]: none when it
/// fits, else the largest first until it does.
fn over_cap(body: &str) -> Vec<usize> {
    // The `#` counts, as in `location.hash`.
    let mut len = body.len() + 1;
    if len <= MAX_LINK {
        return vec![];
    }
    let mut parts: Vec<(usize, usize)> = body.split('&').map(str::len).enumerate().collect();
    parts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut skipped = Vec::new();
    for (i, n) in parts {
        if len <= MAX_LINK {
            break;
        }
        skipped.push(i);
        len -= n;
    }
    skipped
}

/// What the share box says when the page's own link is longer than [`MAX_LINK`] (a command line may be up to 256 KiB):
/// opened, the link is read without its largest parts.
pub fn over_cap_note(len: usize) -> String {
    format!(
        "This link is {} characters, over the {} characters (64 KiB) a link may carry: opened, it is read without its \
         command line; copy the command line itself to share it.",
        thousands(len as u64),
        thousands(MAX_LINK as u64)
    )
}

/// `n` with thousands separators (`2,000,123`); the page's one formatter of byte and character counts.
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The longest hash a link carries a pasted config.json in (browsers and chat tools cut longer addresses).
pub const MAX_HASH: usize = 16_000;

/// What the page says when a pasted config.json is too large for [`MAX_HASH`].
pub const CONFIG_TOO_LARGE: &str =
    "This link does not carry the pasted config.json (too large); paste it again after opening the link.";

/// What the page shows for a link key whose value it cannot use: the value a link without the key gets.
fn default_shown(key: OptionKey) -> String {
    match key {
        OptionKey::Gpu => format!("{} (`{}`)", default_gpu().name, default_gpu().id),
        OptionKey::Vllm => format!("vLLM {}", Release::LATEST.name()),
        OptionKey::Cuda => format!("CUDA {DEFAULT_CUDA}"),
        OptionKey::Cubins => "TRTLLM cubins available".to_string(),
        OptionKey::FlashInfer | OptionKey::ComputeCapability => "the release's pinned FlashInfer".to_string(),
    }
}

/// A config.json text without whitespace outside its strings, keys and numbers as written (serde_json's `Map` would
/// sort the keys, and its floats may be respelled); `None` when it is not JSON.
pub fn minify_json(text: &str) -> Option<String> {
    serde_json::from_str::<serde_json::Value>(text).ok()?;
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c.is_ascii_whitespace() {
            continue;
        } else {
            in_string = c == '"';
        }
        out.push(c);
    }
    Some(out)
}

/// The hash of a page state; every key is written, so a link never depends on defaults that may change.
/// `vllm` is `vllm_version` when set (a version that is not a known release), else the release; `flashinfer` (the
/// installed version as given) is written only when set; `config` (a pasted config.json) only when it is JSON and the hash stays within [`MAX_HASH`].
#[allow(clippy::too_many_arguments)] // one per key of the link
pub fn format(
    gpu: &Gpu,
    release: Release,
    vllm_version: Option<&str>,
    cuda: CudaVersion,
    cubins: Option<bool>,
    flashinfer: Option<&str>,
    cmd: &str,
    config: Option<&str>,
) -> String {
    let cubins = cubins_name(cubins);
    let flashinfer = flashinfer
        .map(|f| format!("&flashinfer={}", form_encode(f)))
        .unwrap_or_default();
    let mut h = format!(
        "#gpu={}&vllm={}&cuda={}&cubins={cubins}{flashinfer}&cmd={}",
        gpu.id,
        form_encode(vllm_version.unwrap_or(release.name())),
        cuda,
        form_encode(cmd)
    );
    if let Some(c) = config.and_then(minify_json) {
        let config = form_encode(&c);
        if h.len() + "&config=".len() + config.len() <= MAX_HASH {
            h.push_str("&config=");
            h.push_str(&config);
        }
    }
    h
}

/// Whether a hash [`format`] wrote carries a config.json (the encoded command line holds no `&`).
pub fn carries_config(hash: &str) -> bool {
    hash.contains("&config=")
}

#[cfg(test)]
mod tests {
    use qpath_core::gpu;

    use super::*;

    #[test]
    fn reads_a_whole_link() {
        let l = parse("#gpu=l4&vllm=0.25.0&cmd=vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct+--kv-cache-dtype+fp8");
        assert_eq!(l.gpu.map(|g| g.id), Some("l4"));
        assert_eq!(l.release, Some(Release::V0_25_0));
        assert_eq!(
            l.cmd.as_deref(),
            Some("vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8")
        );
        assert_eq!((l.cuda, l.cubins), (None, None));
        assert!(l.problems.is_empty());
        assert!(!l.embed);
        assert!(parse("#embed=1&gpu=l4").embed);
        assert!(!parse("#embed=0&gpu=l4").embed);
    }

    #[test]
    fn state_to_hash_to_state_is_identity() {
        let g = gpu::find("rtx-pro-6000-blackwell").unwrap();
        let cmd = r#"VLLM_BATCH_INVARIANT=1 vllm serve openai/gpt-oss-20b --attention-config '{"use_trtllm_attention": false}' -dcp 2 # & = + %"#;
        for cubins in [None, Some(true), Some(false)] {
            let h = format(
                g,
                Release::V0_25_0Prefix,
                None,
                CudaVersion::new(13, 0),
                cubins,
                None,
                cmd,
                None,
            );
            let l = parse(&h);
            assert_eq!(l.gpu.map(|g| g.id), Some(g.id));
            assert_eq!(l.release, Some(Release::V0_25_0Prefix));
            assert_eq!(l.cuda, Some(CudaVersion::new(13, 0)));
            assert_eq!(l.cubins, cubins);
            assert_eq!(l.cmd.as_deref(), Some(cmd));
            assert!(l.problems.is_empty(), "{:?}", l.problems);
        }
    }

    #[test]
    fn flashinfer_and_nightlies_round_trip() {
        let g = gpu::find("h100-sxm").unwrap();
        let h = format(
            g,
            Release::V0_27_1,
            Some("0.27.2rc1.dev77+g1234abc"),
            CudaVersion::new(12, 9),
            None,
            Some(FlashInfer::F0_7_2Post1.name()),
            "vllm serve m",
            None,
        );
        assert!(
            h.contains("&vllm=0.27.2rc1.dev77%2Bg1234abc&") && h.contains("&flashinfer=0.7.2.post1&"),
            "{h}"
        );
        let l = parse(&h);
        assert_eq!(
            (l.release, l.vllm_version.as_deref()),
            (Some(Release::V0_27_1), Some("0.27.2rc1.dev77+g1234abc"))
        );
        assert_eq!(l.flashinfer, Some(FlashInfer::F0_7_2Post1));
        assert!(!format(
            g,
            Release::V0_27_1,
            None,
            CudaVersion::new(12, 9),
            None,
            None,
            "vllm serve m",
            None
        )
        .contains("flashinfer"));
        let l = parse("#flashinfer=0.6.1&vllm=0.1.0");
        assert_eq!((l.flashinfer, l.release), (None, None));
        assert_eq!(l.problems.len(), 2, "{:?}", l.problems);
        // A flashinfer-python qpath does not model runs as the newest modelled one at or below it, and keeps its text.
        let l = parse("#flashinfer=0.6.15.post1");
        assert_eq!(
            (l.flashinfer, l.flashinfer_version.as_deref(), l.problems.len()),
            (Some(FlashInfer::F0_6_14), Some("0.6.15.post1"), 0)
        );
    }

    #[test]
    fn a_bad_value_says_what_the_page_shows_instead() {
        let l = parse("#gpu=nope&cuda=banana&vllm=0.1.0&cubins=maybe&flashinfer=0.0.1");
        let all = l.problems.join("\n");
        assert!(
            l.problems[0].ends_with(&format!(
                "`nope` is not in qpath's GPU table; the page shows the default instead: {} (`{}`).",
                default_gpu().name,
                default_gpu().id
            )),
            "{all}"
        );
        for shown in [
            format!("instead: CUDA {DEFAULT_CUDA}."),
            format!("instead: vLLM {}.", Release::LATEST.name()),
            "instead: TRTLLM cubins available.".to_string(),
            "instead: the release's pinned FlashInfer.".to_string(),
        ] {
            assert!(all.contains(&shown), "{shown} not in {all}");
        }
        assert!(!all.contains("as it was") && !all.contains("not applied"), "{all}");
        // Every echoed input is shortened: a 60,000-character GPU id, key or part (under the link's cap, MAX_LINK).
        let big = "g".repeat(60_000);
        for h in [format!("#gpu={big}"), format!("#{big}=1"), format!("#{big}")] {
            let l = parse(&h);
            assert!(
                l.problems[0].len() < 600 && l.problems[0].contains("… (60000 characters)"),
                "{}",
                l.problems[0].len()
            );
        }
    }

    #[test]
    fn partly_valid_hashes_keep_the_valid_parts() {
        let l = parse("#gpu=h900&vllm=0.25.0&cuda=banana&oops&cubins=maybe&color=red");
        assert_eq!(l.release, Some(Release::V0_25_0));
        assert_eq!((l.gpu, l.cuda, l.cubins), (None, None, None));
        let all = l.problems.join("\n");
        for named in ["`h900`", "`banana`", "`oops`", "`maybe`", "`color`"] {
            assert!(all.contains(named), "{named} not named in {all}");
        }
        // A key qpath does not read is named.
        assert!(parse("#colour=dark").problems[0].contains("`colour`"));
        // The same rules as the CLI: cubins spelled true/false, a release with its `v`.
        let l = parse("#cubins=false&vllm=v0.27.1");
        assert_eq!((l.cubins, l.release), (Some(false), Some(Release::V0_27_1)));
    }

    #[test]
    fn theme_and_origin_are_read_and_bad_values_named() {
        let l = parse("#embed=1&theme=dark&origin=HTTPS%3A%2F%2FDocs.Example.com%3A443%2F&gpu=l4");
        assert_eq!(l.theme.as_deref(), Some("dark"));
        assert_eq!(l.origin.as_deref(), Some("https://docs.example.com"));
        assert!(l.embed && l.problems.is_empty() && l.gpu.is_some(), "{:?}", l.problems);
        for t in ["light", "dark", "auto"] {
            assert_eq!(parse(&format!("#theme={t}")).theme.as_deref(), Some(t));
        }
        let l = parse("#theme=purple&origin=https%3A%2F%2Fa.example%2Fpath&gpu=l4&vllm=0.26.0");
        assert_eq!((l.theme, l.origin), (None, None));
        assert_eq!((l.gpu.map(|g| g.id), l.release), (Some("l4"), Some(Release::V0_26_0)));
        assert!(l.problems[0].contains("theme `purple`"), "{:?}", l.problems);
        assert!(l.problems[1].contains("origin `https://a.example/path`"), "{:?}", l.problems);
        for (text, origin) in [
            ("http://localhost:8000", Some("http://localhost:8000")),
            ("http://127.0.0.1:80/", Some("http://127.0.0.1")),
            ("https://[::1]:8443", Some("https://[::1]:8443")),
            ("https://docs.example.com", Some("https://docs.example.com")),
            ("*", None),
            ("null", None),
            ("javascript:alert(1)", None),
            ("https://", None),
            ("https://a..b", None),
            ("https://user@a.example", None),
            ("https://a.example?x", None),
            ("https://a.example:99999", None),
            ("https://a.example:", None),
            ("ftp://a.example", None),
        ] {
            assert_eq!(web_origin(text).as_deref(), origin, "{text}");
        }
    }

    #[test]
    fn a_config_json_round_trips_minified_in_its_own_order() {
        let g = gpu::find("h100-sxm").unwrap();
        let config = "{\n  \"zeta\": 1,\n  \"architectures\": [ \"LlamaForCausalLM\" ],\n  \"name\": \"a \\\" b\\\\\",\n  \"rms_norm_eps\": 1e-05, \"é & = +\": \"x  y\"\n}\n";
        let h = format(
            g,
            Release::V0_33_0,
            None,
            CudaVersion::new(12, 9),
            None,
            None,
            "vllm serve m",
            Some(config),
        );
        assert!(carries_config(&h) && h.ends_with("%7D"), "{h}");
        let l = parse(&h);
        assert!(l.problems.is_empty(), "{:?}", l.problems);
        let minified =
            r#"{"zeta":1,"architectures":["LlamaForCausalLM"],"name":"a \" b\\","rms_norm_eps":1e-05,"é & = +":"x  y"}"#;
        assert_eq!(l.config.as_deref(), Some(minified));
        assert_eq!(l.cmd.as_deref(), Some("vllm serve m"));
        let a: serde_json::Value = serde_json::from_str(config).unwrap();
        assert_eq!(a, serde_json::from_str::<serde_json::Value>(minified).unwrap());
        // Formatting the minified text again gives the same link.
        let again = format(
            g,
            Release::V0_33_0,
            None,
            CudaVersion::new(12, 9),
            None,
            None,
            "vllm serve m",
            l.config.as_deref(),
        );
        assert_eq!(again, h);
        // Text that is not JSON is not written; a link whose config is not JSON is a notice naming it.
        assert!(!carries_config(&format(
            g,
            Release::V0_33_0,
            None,
            CudaVersion::new(12, 9),
            None,
            None,
            "m",
            Some("{oops")
        )));
        let l = parse("#gpu=l4&config=%7Boops&cmd=vllm+serve+m");
        assert_eq!((l.config, l.gpu.map(|g| g.id)), (None, Some("l4")));
        assert!(
            l.problems.len() == 1 && l.problems[0].contains("config `{oops`"),
            "{:?}",
            l.problems
        );
        assert!(parse("#config=").problems[0].contains("config"));
        // A long value is echoed shortened.
        let l = parse(&format!("#config={}", "%7B".repeat(20_000)));
        assert!(
            l.problems[0].len() < 400 && l.problems[0].contains("(20000 characters)"),
            "{}",
            &l.problems[0][..400.min(l.problems[0].len())]
        );
    }

    #[test]
    fn a_config_too_large_for_a_link_is_left_out() {
        let g = gpu::find("l4").unwrap();
        let hash = |config: &str| {
            format(
                g,
                Release::V0_33_0,
                None,
                CudaVersion::new(12, 9),
                None,
                None,
                "vllm serve m",
                Some(config),
            )
        };
        let base = hash("").len();
        // `{"k":"xx…"}` encodes to 20 characters around its x's; `&config=` adds 8.
        let fits = format!(r#"{{"k":"{}"}}"#, "x".repeat(MAX_HASH - base - 28));
        let h = hash(&fits);
        assert!(carries_config(&h) && h.len() == MAX_HASH, "{}", h.len());
        let over = format!(r#"{{"k":"{}"}}"#, "x".repeat(MAX_HASH - base - 27));
        let h = hash(&over);
        assert!(!carries_config(&h) && h.len() == base, "{}", h.len());
        assert_eq!(parse(&h).config, None);
    }

    /// Generated hashes (`QPATH_FUZZ_CASES`, default 20,000): parsing never panics, and for generated states
    /// format → parse gives the state back.
    #[test]
    fn generated_hashes() {
        let n: u64 = std::env::var("QPATH_FUZZ_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(20_000);
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let start = std::time::Instant::now();
        let alphabet: Vec<char> = "#&=+%gpuvlmcdbsnyeo0123456789abcdefABCDEF.-_ 'é\u{1F600}".chars().collect();
        let parts = [
            "gpu=", "vllm=", "cuda=", "cubins=", "cmd=", "config=", "embed=1", "%7B%7D", "&", "%", "%4", "%zz", "%E2%82", "+",
            "l4", "0.25.0",
        ];
        for _ in 0..n {
            let mut h = String::from("#");
            for _ in 0..(next() % 12) {
                if next() % 2 == 0 {
                    h.push_str(parts[(next() % parts.len() as u64) as usize]);
                } else {
                    h.push(alphabet[(next() % alphabet.len() as u64) as usize]);
                }
            }
            let _ = parse(&h);
            let g = &gpu::GPUS[(next() % gpu::GPUS.len() as u64) as usize];
            let r = Release::ALL[(next() % Release::ALL.len() as u64) as usize];
            let cubins = [None, Some(true), Some(false)][(next() % 3) as usize];
            let cmd: String = (0..(next() % 40))
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            let l = parse(&format(g, r, None, CudaVersion::new(12, 9), cubins, None, &cmd, None));
            assert_eq!(
                (l.gpu.map(|g| g.id), l.release, l.cubins, l.cmd.as_deref()),
                (Some(g.id), Some(r), cubins, Some(cmd.as_str())),
                "{cmd:?}"
            );
        }
        println!("URL hashes: {n} cases in {:.1} s", start.elapsed().as_secs_f64());
    }

    #[test]
    fn each_view_and_its_state_round_trip() {
        let g = gpu::find("h100-sxm").unwrap();
        let scenario = format(
            g,
            Release::V0_30_0,
            None,
            CudaVersion::new(12, 9),
            None,
            None,
            "vllm serve m",
            None,
        );
        let cases = [
            (View::Explain, None, MatrixMode::FlashInfer, None),
            (View::Compare, Some(Release::V0_25_0Prefix), MatrixMode::FlashInfer, None),
            (View::Compare, None, MatrixMode::FlashInfer, None),
            (View::Matrix, None, MatrixMode::Picked, Some("Hopper")),
            (View::Matrix, None, MatrixMode::FlashInfer, Some("Ada Lovelace")),
            (View::Timeline, Some(Release::V0_33_0), MatrixMode::Picked, None),
            (View::Log, None, MatrixMode::FlashInfer, None),
        ];
        for (view, compare, mode, arch) in cases {
            let h = format!("#{}{}", format_view(view, compare, mode, arch), &scenario[1..]);
            let l = parse(&h);
            assert!(l.problems.is_empty(), "{h}: {:?}", l.problems);
            let read_view = l.view.unwrap_or_default();
            let read_mode = l.matrix_mode.unwrap_or_default();
            assert_eq!(
                (read_view, l.compare, read_mode, l.matrix_arch.as_deref()),
                (view, compare, mode, arch),
                "{h}"
            );
            assert_eq!((l.gpu.map(|g| g.id), l.release), (Some("h100-sxm"), Some(Release::V0_30_0)));
            // The explainer with nothing chosen writes nothing: links from before the key read the same.
            assert_eq!(h.contains("view="), view != View::Explain, "{h}");
        }
        assert_eq!(format_view(View::Explain, None, MatrixMode::default(), None), "");
        // A view alone does not name a scenario (the first visit's story in that view).
        assert!(!parse("#view=matrix&mode=picked").names_a_scenario());
    }

    #[test]
    fn a_bad_view_value_is_named_and_the_rest_kept() {
        let l = parse("#view=grid&compare=0.1.0&mode=fast&arch=Kepler&gpu=l4&vllm=0.26.0");
        assert_eq!(
            (l.view, l.compare, l.matrix_mode, l.matrix_arch.as_deref()),
            (None, None, None, None)
        );
        assert_eq!((l.gpu.map(|g| g.id), l.release), (Some("l4"), Some(Release::V0_26_0)));
        let all = l.problems.join("\n");
        assert_eq!(l.problems.len(), 4, "{all}");
        assert!(
            l.problems[0].contains("view `grid` is not one of explain, compare, matrix, timeline, log"),
            "{all}"
        );
        assert!(
            l.problems[1].contains("compare `0.1.0`") && l.problems[1].contains("neighbouring release"),
            "{all}"
        );
        assert!(
            l.problems[2].contains("mode `fast` is not one of flashinfer, picked"),
            "{all}"
        );
        assert!(
            l.problems[3].contains("arch `Kepler`") && l.problems[3].contains("Hopper"),
            "{all}"
        );
        // The reader accepts a release as the CLI does (with its `v`).
        assert_eq!(parse("#view=compare&compare=v0.27.1").compare, Some(Release::V0_27_1));
    }

    #[test]
    fn the_compare_default_is_the_neighbouring_release() {
        for (i, r) in Release::ALL.iter().enumerate() {
            let n = neighbouring_release(*r);
            assert_ne!(n, *r, "{}", r.name());
            let expected = Release::ALL.get(i + 1).copied().unwrap_or_else(|| Release::ALL[i - 1]);
            assert_eq!(n, expected, "{}", r.name());
        }
        assert_eq!(neighbouring_release(Release::LATEST), Release::ALL[Release::ALL.len() - 2]);
        assert_eq!(neighbouring_release(Release::V0_25_0Prefix), Release::V0_25_0);
    }

    #[test]
    fn a_link_over_the_cap_is_read_without_its_largest_parts() {
        // At the cap: read whole.
        let head = "#view=matrix&gpu=l4&cmd=";
        let at_cap = format!("{head}{}", "x".repeat(MAX_LINK - head.len()));
        let l = parse(&at_cap);
        assert!(l.problems.is_empty() && l.cmd.is_some(), "{:?}", l.problems);
        // One character more: the command line is left out, named with the cap; the rest is read.
        let over = format!("{at_cap}x");
        let l = parse(&over);
        assert_eq!(l.cmd, None);
        assert_eq!((l.view, l.gpu.map(|g| g.id)), (Some(View::Matrix), Some("l4")));
        assert_eq!(
            l.problems,
            [format!(
                "The link is 65,537 characters, over the 65,536 characters (64 KiB) a link may carry; its part `cmd` \
                 ({} characters) was not read, the rest was.",
                thousands((MAX_LINK - head.len() + 1 + 4) as u64)
            )]
        );
        // A 2 MB command line and a large config: both named; a short part after them is still read.
        let big = format!("#cmd={}&config={}&vllm=0.26.0", "y".repeat(2_000_000), "z".repeat(70_000));
        let l = parse(&big);
        assert_eq!((l.cmd, l.config, l.release), (None, None, Some(Release::V0_26_0)));
        assert!(
            l.problems.len() == 1
                && l.problems[0].contains("parts `cmd` (2,000,004 characters), `config` (70,007 characters) were not read"),
            "{:?}",
            l.problems
        );
        assert!(over_cap_note(65_537).starts_with("This link is 65,537 characters, over the 65,536"));
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
    }

    #[test]
    fn garbage_never_panics() {
        for h in [
            "",
            "#",
            "#&&&",
            "#%",
            "#%zz",
            "#cmd=%E2%82",
            "#=",
            "#gpu=",
            "#cmd=%",
            "#cmd=%4",
            "##gpu=l4",
            "#config=%7B%22a%22%3A",
            "#config=%22%5C",
            "#config=%",
        ] {
            let _ = parse(h);
        }
        assert_eq!(form_decode("a%2"), "a%2");
        assert_eq!(form_decode("%41%4"), "A%4");
        // A sign is not a hex digit: `%+a` is the three characters `% a`, not the byte 0x0A.
        assert_eq!(form_decode("%+a"), "% a");
        assert_eq!(form_decode("%-1%+F%2+"), "%-1% F%2 ");
        assert_eq!(form_decode("%41"), "A");
    }
}
