//! vLLM releases qpath knows, the FlashInfer release each pins, and where their source lives.
//!
//! Every rule of the core names the releases it belongs to through [`Release`] comparisons; source citations
//! come from [`crate::source`], one line number per release.

use std::fmt;
use std::str::FromStr;

use serde::{Serialize, Serializer};

/// A vLLM release (plus the never-released `0.25.0-prefix`), in release order. `Ord` follows history:
/// `0.24.0 < 0.25.0-prefix < 0.25.0 < 0.25.1 < 0.26.0 < … < 0.33.0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Release {
    V0_24_0,
    /// vLLM PR #43232 (XQA decode kernels) without its fix PR #47485: never released. Reconstructed from the
    /// PR report and PR #47485's description (spec §1.2); source lines cite 0.25.0, the first release with both.
    V0_25_0Prefix,
    V0_25_0,
    /// Byte-identical to 0.25.0 in every file qpath restates (checked against the wheels); only its tag differs.
    V0_25_1,
    V0_26_0,
    V0_27_0,
    V0_28_0,
    V0_29_0,
    V0_30_0,
    V0_31_0,
    V0_32_0,
    V0_33_0,
}

use Release::*;

impl Release {
    pub const ALL: [Release; 12] = [
        V0_24_0,
        V0_25_0Prefix,
        V0_25_0,
        V0_25_1,
        V0_26_0,
        V0_27_0,
        V0_28_0,
        V0_29_0,
        V0_30_0,
        V0_31_0,
        V0_32_0,
        V0_33_0,
    ];

    /// The newest release: the page's default.
    pub const LATEST: Release = V0_33_0;

    pub fn name(self) -> &'static str {
        match self {
            V0_24_0 => "0.24.0",
            V0_25_0Prefix => "0.25.0-prefix",
            V0_25_0 => "0.25.0",
            V0_25_1 => "0.25.1",
            V0_26_0 => "0.26.0",
            V0_27_0 => "0.27.0",
            V0_28_0 => "0.28.0",
            V0_29_0 => "0.29.0",
            V0_30_0 => "0.30.0",
            V0_31_0 => "0.31.0",
            V0_32_0 => "0.32.0",
            V0_33_0 => "0.33.0",
        }
    }

    /// The flashinfer-python release this vLLM release pins (its wheel's `Requires-Dist`).
    pub fn flashinfer(self) -> &'static str {
        match self {
            V0_24_0 => "0.6.12",
            V0_25_0Prefix | V0_25_0 | V0_25_1 => "0.6.13",
            V0_26_0 => "0.6.14",
            V0_27_0 | V0_28_0 => "0.6.16.post3",
            V0_29_0 => "0.6.18",
            V0_30_0 => "0.6.18.post1",
            V0_31_0 | V0_32_0 => "0.7.0.post1",
            V0_33_0 => "0.7.2.post1",
        }
    }

    /// Whether the release requires `flashinfer-cubin` (so TRTLLM cubins are installed with vLLM). From 0.26.0 they
    /// are there only if the user installs that package, sets `VLLM_HAS_FLASHINFER_CUBIN=1` or reaches NVIDIA's artifactory.
    pub fn requires_flashinfer_cubin(self) -> bool {
        self <= V0_25_1
    }

    /// The git tag whose source the citations of this release point at (the prefix state has no tag of its own: it
    /// points at 0.25.0, the first release with both PRs).
    pub fn git_ref(self) -> String {
        match self {
            V0_25_0Prefix => "v0.25.0".to_string(),
            r => format!("v{}", r.name()),
        }
    }

    /// The release commit (`vllm/_version.py`), short form.
    pub fn commit(self) -> &'static str {
        match self {
            V0_24_0 => "ee0da84ab",
            V0_25_0Prefix | V0_25_0 => "dd10e03f9",
            V0_25_1 => "752a3a504",
            V0_26_0 => "ffd46bfab",
            V0_27_0 => "4bdc8a788",
            V0_28_0 => "2cf0a6915",
            V0_29_0 => "98dff2a81",
            V0_30_0 => "ced6857af",
            V0_31_0 => "db9527a46",
            V0_32_0 => "5df63a720",
            V0_33_0 => "4ba787ec9",
        }
    }

    /// The release whose source files this release's rules and tables read: itself, or an earlier release whose files
    /// qpath restates are byte-identical (0.25.1 and the reconstructed 0.25.0-prefix read 0.25.0's).
    pub fn source_release(self) -> Release {
        match self {
            V0_25_0Prefix | V0_25_1 => V0_25_0,
            r => r,
        }
    }

    /// True for the reconstructed, never-released pre-fix state.
    pub fn is_prefix(self) -> bool {
        self == V0_25_0Prefix
    }

    /// The column of the per-release line tables in [`crate::source`] (0.25.0-prefix and 0.25.1 read 0.25.0's lines).
    pub(crate) fn line_column(self) -> usize {
        match self {
            V0_24_0 => 0,
            V0_25_0Prefix | V0_25_0 | V0_25_1 => 1,
            V0_26_0 => 2,
            V0_27_0 => 3,
            V0_28_0 => 4,
            V0_29_0 => 5,
            V0_30_0 => 6,
            V0_31_0 => 7,
            V0_32_0 => 8,
            V0_33_0 => 9,
        }
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
    fn pins_match_the_wheels() {
        // spec erratum 3 / the wheels' METADATA
        let pins: Vec<&str> = [
            V0_24_0, V0_25_0, V0_26_0, V0_27_0, V0_28_0, V0_29_0, V0_30_0, V0_31_0, V0_32_0, V0_33_0,
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
