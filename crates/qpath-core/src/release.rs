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
        assert_eq!(V0_27_1.git_ref(), "v0.27.1");
        assert_eq!(V0_25_0Prefix.git_ref(), "v0.25.0");
        assert_eq!(V0_27_1.commit(), "6e448d0ea");
        assert!(V0_27_0 < V0_27_1 && V0_27_1 < V0_28_0);
        assert_eq!(Release::LATEST, V0_33_0);
        assert_eq!(Release::range_text(), "0.24.0 to 0.33.0");
        assert!(!V0_25_0Prefix.is_released() && V0_27_1.is_released());
    }

    #[test]
    fn pins_match_the_wheels() {
        // the wheels' METADATA (Requires-Dist: flashinfer-python==…)
        let pins: Vec<&str> = [
            V0_24_0, V0_25_0, V0_26_0, V0_27_0, V0_27_1, V0_28_0, V0_29_0, V0_30_0, V0_31_0, V0_32_0, V0_33_0,
        ]
        .iter()
        .map(|r| r.flashinfer())
        .collect();
        assert_eq!(
            pins,
            [
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
    }
}
