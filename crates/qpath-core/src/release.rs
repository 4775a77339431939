//! vLLM releases qpath knows, the FlashInfer release each pins, and where their source lives.
//!
//! Every rule of the core names the releases it belongs to through [`Release`] comparisons; source citations
//! come from [`crate::source`], one line number per release.

use std::fmt;
use std::str::FromStr;

use serde::{Serialize, Serializer};

include!(concat!(env!("OUT_DIR"), "/releases.rs"));

/// One row of `data/releases.toml`, as build.rs resolved it.
struct ReleaseInfo {
    name: &'static str,
    flashinfer: &'static str,
    commit: &'static str,
    published: Option<&'static str>,
    requires_flashinfer_cubin: bool,
    source: Release,
    tag: &'static str,
    released: bool,
    note: Option<&'static str>,
}

use Release::*;

impl Release {
    fn info(self) -> &'static ReleaseInfo {
        &INFO[self as usize]
    }

    /// The position in [`Release::ALL`]: the index of the per-release arrays build.rs generates.
    pub(crate) fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The flashinfer-python release this vLLM release pins (its wheel's `Requires-Dist`).
    pub fn flashinfer(self) -> &'static str {
        self.info().flashinfer
    }

    /// [`Release::flashinfer`] as a [`FlashInfer`] version.
    pub fn flashinfer_pin(self) -> FlashInfer {
        PINS[self as usize]
    }

    /// Whether the release requires `flashinfer-cubin` (so TRTLLM cubins are installed with vLLM). From 0.26.0 they
    /// are there only if the user installs that package, sets `VLLM_HAS_FLASHINFER_CUBIN=1` or reaches NVIDIA's artifactory.
    pub fn requires_flashinfer_cubin(self) -> bool {
        self.info().requires_flashinfer_cubin
    }

    /// The git tag whose source the citations of this release point at (the prefix state has no tag of its own: it
    /// points at 0.25.0, the first release with both PRs).
    pub fn git_ref(self) -> String {
        self.info().tag.to_string()
    }

    /// The release commit (`vllm/_version.py`), short form.
    pub fn commit(self) -> &'static str {
        self.info().commit
    }

    /// The day (`YYYY-MM-DD`, UTC) PyPI received the release's first wheel; `None` for a state never published.
    pub fn published(self) -> Option<&'static str> {
        self.info().published
    }

    /// The release whose source files this release's rules and tables read: itself, or an earlier release whose files
    /// qpath restates are byte-identical (0.25.1 and 0.27.1 read 0.25.0's and 0.27.0's; the reconstructed
    /// 0.25.0-prefix reads 0.25.0's lines).
    pub fn source_release(self) -> Release {
        self.info().source
    }

    /// False for a state that was never published (0.25.0-prefix).
    pub fn is_released(self) -> bool {
        self.info().released
    }

    /// What `data/releases.toml` says about the release beyond its facts, if anything.
    pub fn note(self) -> Option<&'static str> {
        self.info().note
    }

    /// True for the reconstructed, never-released pre-fix state.
    pub fn is_prefix(self) -> bool {
        self == V0_25_0Prefix
    }

    /// "0.24.0 to 0.33.0": the published releases qpath knows, for texts that name the range.
    pub fn range_text() -> String {
        let mut published = Release::ALL.iter().filter(|r| r.is_released());
        let first = published.next().map_or("", |r| r.name());
        format!("{first} to {}", Release::LATEST.name())
    }
}

impl FlashInfer {
    /// The version as `pip install flashinfer-python==` takes it (`0.6.16.post3`).
    pub fn name(self) -> &'static str {
        FLASHINFER_NAMES[self as usize]
    }

    /// The position in [`FlashInfer::ALL`]: the index of the per-FlashInfer line arrays build.rs generates.
    pub(crate) fn index(self) -> usize {
        self as usize
    }

    /// "0.6.12, 0.6.13, …": the versions qpath knows, for error texts.
    pub fn list_text() -> String {
        FlashInfer::ALL.iter().map(|f| f.name()).collect::<Vec<_>>().join(", ")
    }
}

impl fmt::Display for FlashInfer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for FlashInfer {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl FromStr for FlashInfer {
    type Err = String;

    /// Accepts `0.6.18` and `v0.6.18`: one of the versions some known release pins.
    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim();
        let t = t.strip_prefix('v').unwrap_or(t);
        FlashInfer::ALL.into_iter().find(|f| f.name() == t).ok_or_else(|| {
            format!(
                "is not a FlashInfer release some vLLM release qpath knows pins ({})",
                FlashInfer::list_text()
            )
        })
    }
}

/// A version as PEP 440 orders it, enough for vLLM's own (`0.27.2rc1.dev77+g1234abc`, `0.31.1`, `0.34.0.dev3`): the
/// release numbers, then a pre-release (`a`/`b`/`rc` N), a post-release and a dev-release; the local part (`+…`) only
/// sorts after the same public version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pep440 {
    release: Vec<u64>,
    /// (0 = a, 1 = b, 2 = rc, number)
    pre: Option<(u8, u64)>,
    post: Option<u64>,
    dev: Option<u64>,
    local: bool,
}

/// PEP 440's local version (`+` then dot / dash / underscore separated alphanumerics): the public part, and whether
/// a local part follows; `None` when the local part is malformed.
fn pep440_local(t: &str) -> Option<(&str, bool)> {
    match t.split_once('+') {
        Some((p, l)) => {
            let ok = !l.is_empty()
                && l.split(['.', '-', '_'])
                    .all(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric()));
            if !ok {
                return None;
            }
            Some((p, true))
        }
        None => Some((t, false)),
    }
}

/// PEP 440's digits at `*i` (advanced past them); `None` when there are none.
fn pep440_number(public: &str, i: &mut usize) -> Option<u64> {
    let bytes = public.as_bytes();
    let start = *i;
    while *i < bytes.len() && bytes[*i].is_ascii_digit() {
        *i += 1;
    }
    if *i == start {
        return None;
    }
    public[start..*i].parse().ok()
}

/// PEP 440's optional separator (`.`, `-` or `_`) at `*i`.
fn pep440_sep(public: &str, i: &mut usize) {
    let bytes = public.as_bytes();
    if *i < bytes.len() && matches!(bytes[*i], b'.' | b'-' | b'_') {
        *i += 1;
    }
}

/// PEP 440's release segment: dot-separated numbers.
fn pep440_release(public: &str, i: &mut usize) -> Option<Vec<u64>> {
    let bytes = public.as_bytes();
    let mut release = vec![pep440_number(public, i)?];
    while *i + 1 < bytes.len() && bytes[*i] == b'.' && bytes[*i + 1].is_ascii_digit() {
        *i += 1;
        release.push(pep440_number(public, i)?);
    }
    Some(release)
}

/// PEP 440's pre-release segment (`a`/`alpha`, `b`/`beta`, `rc`/`c`/`pre`/`preview`, then an optional number).
fn pep440_pre(public: &str, i: &mut usize) -> Option<(u8, u64)> {
    let mut j = *i;
    pep440_sep(public, &mut j);
    for (word, kind) in [
        ("rc", 2u8),
        ("c", 2),
        ("alpha", 0),
        ("a", 0),
        ("beta", 1),
        ("b", 1),
        ("preview", 2),
        ("pre", 2),
    ] {
        if public[j..].starts_with(word) {
            let mut k = j + word.len();
            pep440_sep(public, &mut k);
            let n = pep440_number(public, &mut k).unwrap_or(0);
            *i = k;
            return Some((kind, n));
        }
    }
    None
}

/// PEP 440's post-release segment (`post`, `rev` or `r`, then an optional number).
fn pep440_post(public: &str, i: &mut usize) -> Option<u64> {
    let mut j = *i;
    pep440_sep(public, &mut j);
    for word in ["post", "rev", "r"] {
        if public[j..].starts_with(word) {
            let mut k = j + word.len();
            pep440_sep(public, &mut k);
            let post = pep440_number(public, &mut k).unwrap_or(0);
            *i = k;
            return Some(post);
        }
    }
    None
}

/// PEP 440's dev-release segment (`dev`, then an optional number).
fn pep440_dev(public: &str, i: &mut usize) -> Option<u64> {
    let mut j = *i;
    pep440_sep(public, &mut j);
    if public[j..].starts_with("dev") {
        let mut k = j + 3;
        pep440_sep(public, &mut k);
        let dev = pep440_number(public, &mut k).unwrap_or(0);
        *i = k;
        return Some(dev);
    }
    None
}

impl Pep440 {
    /// Parses a version (a leading `v` and surrounding whitespace allowed, case-insensitive); `None` when it is not one.
    pub fn parse(text: &str) -> Option<Pep440> {
        let t = text.trim().to_ascii_lowercase();
        let t = t.strip_prefix('v').unwrap_or(&t);
        let (public, local) = pep440_local(t)?;
        let mut i = 0;
        let release = pep440_release(public, &mut i)?;
        let pre = pep440_pre(public, &mut i);
        let post = pep440_post(public, &mut i);
        let dev = pep440_dev(public, &mut i);
        (i == public.len()).then_some(Pep440 {
            release,
            pre,
            post,
            dev,
            local,
        })
    }

    /// The release numbers padded to three (`0.31` is `0.31.0`).
    fn numbers(&self) -> Vec<u64> {
        let mut n = self.release.clone();
        while n.len() < 3 {
            n.push(0);
        }
        n
    }

    /// Whether this version sorts at or after the final release `other` (whose numbers are all it has): later numbers,
    /// or the same numbers without a pre-release and not a dev-release of them (`X.Y.Z.devN` and `X.Y.ZrcN` come
    /// before `X.Y.Z`; `X.Y.Z.postN`, `X.Y.Z+local` and `X.Y.Z.postN.devM` after it).
    pub fn at_or_after_final(&self, other: &Pep440) -> bool {
        let (a, mut b) = (self.numbers(), other.numbers());
        let mut a = a;
        let n = a.len().max(b.len());
        a.resize(n, 0);
        b.resize(n, 0);
        match a.cmp(&b) {
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Less => false,
            std::cmp::Ordering::Equal => self.pre.is_none() && (self.dev.is_none() || self.post.is_some()),
        }
    }

    /// PEP 440's order as a key: the numbers (padded), then `X.devN` < `X.aN` < `X.bN` < `X.rcN` < `X` < `X.postN.devM`
    /// < `X.postN` (the local part is not ordered).
    fn order_key(&self) -> (Vec<u64>, [(u8, u64); 3]) {
        let mut n = self.numbers();
        while n.last() == Some(&0) && n.len() > 3 {
            n.pop();
        }
        let pre = match (self.pre, self.post, self.dev) {
            (None, None, Some(_)) => (0, 0),
            (Some((k, m)), _, _) => (1 + k, m),
            (None, _, _) => (4, 0),
        };
        let post = self.post.map_or((0, 0), |p| (1, p));
        let dev = self.dev.map_or((1, 0), |d| (0, d));
        (n, [pre, post, dev])
    }

    /// True for a version with nothing beyond its numbers (`0.31.0`, not `0.31.0.post1` or `0.31.0+cu129`).
    pub fn is_final(&self) -> bool {
        self.pre.is_none() && self.post.is_none() && self.dev.is_none() && !self.local
    }
}

/// The FlashInfer whose rules an installed flashinfer-python `text` follows: itself when qpath models it, else the
/// newest modelled release at or below it by PEP 440 order (`0.6.15.post1` → 0.6.14, `0.7.4` → 0.7.2.post1); an error
/// for text that is not a version or a version before the first modelled one (the reason names the range).
pub fn flashinfer_for_version(text: &str) -> Result<FlashInfer, String> {
    let first = FlashInfer::ALL[0];
    let v = Pep440::parse(text).ok_or_else(|| {
        format!(
            "is not a flashinfer-python version (qpath models {})",
            FlashInfer::list_text()
        )
    })?;
    FlashInfer::ALL
        .iter()
        .rev()
        .find(|f| Pep440::parse(f.name()).is_some_and(|m| m.order_key() <= v.order_key()))
        .copied()
        .ok_or_else(|| {
            format!(
                "is before flashinfer-python {first}, the first qpath models ({})",
                FlashInfer::list_text()
            )
        })
}

/// The published release whose commit (`data/releases.toml`'s `commit`, from each wheel's `vllm/_version.py`) a
/// version's local part names (`0.28.1.dev0+g2cf0a6915` is 0.28.0's code), when it names one: `g` and at least seven
/// hex digits, either a prefix of the other. A build from another commit has no release qpath can name by it.
pub fn release_of_commit(version: &str) -> Option<Release> {
    let local = version.trim().split_once('+')?.1.to_ascii_lowercase();
    let hash = local.split(['.', '-', '_']).find_map(|p| p.strip_prefix('g'))?;
    if hash.len() < 7 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    Release::ALL.iter().copied().filter(|r| r.is_released()).find(|r| {
        let c = r.commit();
        !c.is_empty() && (c.starts_with(hash) || hash.starts_with(c))
    })
}

/// Whether a version is a development build (`.devN`, or a local `+…` part: built from a commit, not a tag).
pub fn is_dev_build(version: &str) -> bool {
    Pep440::parse(version).is_some_and(|v| v.dev.is_some() || v.local)
}

/// What a vLLM version that is not a known release runs as: the last published release at or before it by PEP 440
/// ordering, or why there is none (the reason names the range qpath knows).
pub fn release_for_version(text: &str) -> Result<Release, String> {
    let range = Release::range_text();
    let v = Pep440::parse(text).ok_or_else(|| format!("is not a vLLM version (qpath knows {range})"))?;
    if let Some(r) = release_of_commit(text) {
        return Ok(r);
    }
    Release::ALL
        .iter()
        .rev()
        .filter(|r| r.is_released())
        .find(|r| Pep440::parse(r.name()).is_some_and(|known| v.at_or_after_final(&known)))
        .copied()
        .ok_or_else(|| format!("is before the first vLLM release qpath knows ({range})"))
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Release {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl FromStr for Release {
    type Err = String;

    /// Accepts `0.25.0`, `v0.25.0` and `0.25.0-prefix`.
    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim();
        let t = t.strip_prefix('v').unwrap_or(t);
        Release::ALL.into_iter().find(|r| r.name() == t).ok_or_else(|| {
            let names: Vec<&str> = Release::ALL.iter().map(|r| r.name()).collect();
            format!("vLLM release `{s}` is not one qpath knows; known: {}", names.join(", "))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_are_in_history_order_and_round_trip() {
        assert!(Release::ALL.windows(2).all(|w| w[0] < w[1]));
        for r in Release::ALL {
            assert_eq!(r.name().parse::<Release>().unwrap(), r);
        }
        assert_eq!("v0.25.0".parse::<Release>().unwrap(), V0_25_0);
        assert!("0.34.0".parse::<Release>().unwrap_err().contains("`0.34.0`"));
    }

    #[test]
    fn byte_identical_releases_read_their_source() {
        assert_eq!(V0_27_1.source_release(), V0_27_0);
        assert_eq!(V0_25_1.source_release(), V0_25_0);
        assert_eq!(V0_25_0Prefix.source_release(), V0_25_0);
        assert_eq!(V0_33_0.source_release(), V0_33_0);
        // The newest release and the range are the table's: its last row and its first and last names.
        assert_eq!(V0_27_1.git_ref(), "v0.27.1");
        assert_eq!(V0_25_0Prefix.git_ref(), "v0.25.0");
        assert_eq!(V0_27_1.commit(), "6e448d0ea");
        assert!(V0_27_0 < V0_27_1 && V0_27_1 < V0_28_0);
        assert_eq!(Some(&Release::LATEST), Release::ALL.last());
        assert_eq!(
            Release::range_text(),
            format!("{} to {}", Release::ALL[0].name(), Release::LATEST.name())
        );
        assert!(!V0_25_0Prefix.is_released() && V0_27_1.is_released());
    }

    #[test]
    fn pins_match_the_wheels() {
        // the wheels' METADATA (Requires-Dist: flashinfer-python==…)
        let pins: Vec<&str> = [
            V0_20_0, V0_20_1, V0_20_2, V0_21_0, V0_22_0, V0_22_1, V0_23_0, V0_24_0, V0_25_0, V0_26_0, V0_27_0, V0_27_1, V0_28_0,
            V0_29_0, V0_30_0, V0_31_0, V0_32_0, V0_33_0,
        ]
        .iter()
        .map(|r| r.flashinfer())
        .collect();
        assert_eq!(
            pins,
            [
                "0.6.8.post1",
                "0.6.8.post1",
                "0.6.8.post1",
                "0.6.8.post1",
                "0.6.11.post2",
                "0.6.11.post2",
                "0.6.12",
                "0.6.12",
                "0.6.13",
                "0.6.14",
                "0.6.16.post3",
                "0.6.16.post3",
                "0.6.16.post3",
                "0.6.18",
                "0.6.18.post1",
                "0.7.0.post1",
                "0.7.0.post1",
                "0.7.2.post1"
            ]
        );
        assert!(V0_25_1.requires_flashinfer_cubin() && !V0_26_0.requires_flashinfer_cubin());
        assert_eq!(V0_28_0.flashinfer_pin(), FlashInfer::F0_6_16Post3);
        assert_eq!(FlashInfer::ALL.len(), 10);
        assert_eq!(V0_21_0.flashinfer_pin(), FlashInfer::F0_6_8Post1);
        assert!(FlashInfer::ALL.windows(2).all(|w| w[0] < w[1]));
        for f in FlashInfer::ALL {
            assert_eq!(f.name().parse::<FlashInfer>().unwrap(), f);
        }
        assert!("0.6.15".parse::<FlashInfer>().unwrap_err().contains("0.6.16.post3"));
    }

    #[test]
    fn versions_map_to_the_release_whose_code_they_run() {
        for (given, want) in [
            ("0.27.2rc1.dev77+g1234abc", Ok(V0_27_1)),
            ("0.31.1", Ok(V0_31_0)),
            ("0.33.0", Ok(V0_33_0)),
            ("99.0.0.dev3", Ok(Release::LATEST)),
            ("0.28.0rc1", Ok(V0_27_1)),
            ("0.28.0.dev5+gabc", Ok(V0_27_1)),
            ("0.28.0.post1", Ok(V0_28_0)),
            ("0.28.0+cu129", Ok(V0_28_0)),
            ("0.28.0.post1.dev2", Ok(V0_28_0)),
            ("v0.29", Ok(V0_29_0)),
            ("99.0.0", Ok(Release::LATEST)),
        ] {
            assert_eq!(release_for_version(given), want, "{given}");
        }
        assert!(release_for_version("0.19.9").unwrap_err().contains(&Release::range_text()));
        assert!(release_for_version("0.20.0rc2").unwrap_err().contains("before the first"));
        for bad in ["banana", "0.27.x", "", "0.27.1+", "0.27.1 rc"] {
            assert!(
                release_for_version(bad).unwrap_err().starts_with("is not a vLLM version"),
                "{bad}"
            );
        }
        assert!(Pep440::parse("0.31.0").unwrap().is_final() && !Pep440::parse("0.31.0+cu1").unwrap().is_final());
    }
}
