//! The source lines each rule of the core restates, per release.
//!
//! A [`Cite`] is a file and one line number per release ([`Release::ALL`] order). The numbers live in
//! `data/source-lines.toml`, keyed by release name (by FlashInfer release for FlashInfer files); build.rs resolves them
//! for every release (a byte-identical release reads its source release's line, a FlashInfer line is the one in the
//! release that vLLM release pins) and generates the constants below. `0` means the statement does not exist there.
//!
//! Line numbers were read from the released wheels (`pip download vllm==X --no-deps`, `flashinfer-python==Y`);
//! `docs/source-notes/` restates what each line does, and `scripts/fetch-vllm-source.sh` fetches the files again.

use serde::Serialize;

use crate::release::{FlashInfer, Release};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repo {
    Vllm,
    FlashInfer,
}

/// A statement in the source, one line per release (`0`: not in that release).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cite {
    pub repo: Repo,
    pub file: &'static str,
    /// `u16`: the longest cited file is a few thousand lines, and the page carries ~8,500 of these numbers.
    pub lines: &'static [u16],
    /// For a FlashInfer file: the line in each FlashInfer release ([`FlashInfer::ALL`] order), so a rule cites the
    /// FlashInfer installed, not only the pin; empty for vLLM files.
    pub fi_lines: &'static [u16],
}

/// Where a trace step comes from in one release: `file:line`, and (built only when asked for) a link to it at that
/// release's tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SourceRef {
    pub file: &'static str,
    pub line: u32,
    /// The tag the link points at: the vLLM release, or the FlashInfer installed.
    pub tag: SourceTag,
}

/// The repository tag of a [`SourceRef`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceTag {
    Vllm(Release),
    FlashInfer(FlashInfer),
}

impl Cite {
    /// The line in `release` (a FlashInfer file: in the FlashInfer `release` pins), if the statement exists there.
    pub fn at(&self, release: Release) -> Option<SourceRef> {
        self.at_with(release, release.flashinfer_pin())
    }

    /// The line in `release` with FlashInfer `flashinfer` installed: a vLLM file reads `release`, a FlashInfer file
    /// `flashinfer` (and links to that FlashInfer's tag). Builds no string.
    pub fn at_with(&self, release: Release, flashinfer: FlashInfer) -> Option<SourceRef> {
        let (lines, index, tag) = match self.repo {
            Repo::Vllm => (self.lines, release.index(), SourceTag::Vllm(release)),
            Repo::FlashInfer => (self.fi_lines, flashinfer.index(), SourceTag::FlashInfer(flashinfer)),
        };
        let line = lines.get(index).map_or(0, |l| u32::from(*l));
        (line > 0).then_some(SourceRef {
            file: self.file,
            line,
            tag,
        })
    }
}

impl SourceRef {
    /// `file:line`, as the JSON output's `source` field.
    pub fn short(&self) -> String {
        let mut out = String::with_capacity(self.file.len() + 6);
        out.push_str(self.file);
        out.push(':');
        push_decimal(&mut out, self.line);
        out
    }

    /// The link to the line at its release's tag (GitHub's `blob/<tag>/<file>#L<line>`).
    pub fn url(&self) -> String {
        match self.tag {
            SourceTag::Vllm(r) => format!(
                "https://github.com/vllm-project/vllm/blob/{}/{}#L{}",
                r.git_ref(),
                self.file,
                self.line
            ),
            SourceTag::FlashInfer(f) => format!(
                "https://github.com/flashinfer-ai/flashinfer/blob/v{}/{}#L{}",
                f.name(),
                self.file,
                self.line
            ),
        }
    }
}

/// Serialises as its link ([`SourceRef::url`]), the JSON output's `url` field.
impl Serialize for SourceRef {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.url())
    }
}

/// Appends `n` in decimal (what `format!("{n}")` writes, without the formatter).
pub(crate) fn push_decimal(out: &mut String, n: u32) {
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    let mut n = n;
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // ASCII digits only.
    out.push_str(std::str::from_utf8(&digits[i..]).unwrap_or_default());
}

include!(concat!(env!("OUT_DIR"), "/cites.rs"));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_is_file_colon_decimal_line() {
        for n in [1u32, 9, 10, 99, 100, 1131, 65535, u32::MAX] {
            let r = SourceRef {
                file: "a/b.py",
                line: n,
                tag: SourceTag::Vllm(Release::V0_33_0),
            };
            assert_eq!(r.short(), format!("a/b.py:{n}"));
        }
    }

    #[test]
    fn cites_resolve_per_release_with_links() {
        let r = FI_GET_Q_DTYPE.at(Release::V0_25_0).unwrap();
        assert_eq!(r.short(), "vllm/v1/attention/backends/flashinfer.py:802");
        assert_eq!(
            r.url(),
            "https://github.com/vllm-project/vllm/blob/v0.25.0/vllm/v1/attention/backends/flashinfer.py#L802"
        );
        assert_eq!(FI_GET_Q_DTYPE.at(Release::V0_33_0).unwrap().line, 1131);
        assert!(FI_GET_Q_DTYPE.at(Release::V0_24_0).is_none(), "0.24.0 has no get_q_data_type");
        // 0.27.1 reads 0.27.0's line and links to its own tag; FlashInfer lines follow the pin.
        let (a, b) = (
            FI_GET_Q_DTYPE.at(Release::V0_27_0).unwrap(),
            FI_GET_Q_DTYPE.at(Release::V0_27_1).unwrap(),
        );
        assert_eq!((a.line, b.url().contains("/v0.27.1/")), (b.line, true));
        assert_eq!(FLASHINFER_DETERMINE_BACKEND.at(Release::V0_28_0).unwrap().line, 522);
        assert!(ALL_CITES.len() > 60 && ALL_CITES.iter().all(|(_, c)| c.lines.len() == Release::ALL.len()));
        // A FlashInfer cite has one line per FlashInfer release, and at a release's pin it is the release's line.
        for (name, c) in ALL_CITES {
            match c.repo {
                Repo::Vllm => assert!(c.fi_lines.is_empty(), "{name}"),
                Repo::FlashInfer => {
                    assert_eq!(c.fi_lines.len(), FlashInfer::ALL.len(), "{name}");
                    for r in Release::ALL {
                        assert_eq!(c.at_with(r, r.flashinfer_pin()), c.at(r), "{name} {r}");
                        assert_eq!(c.lines[r.index()], c.fi_lines[r.flashinfer_pin().index()], "{name} {r}");
                    }
                }
            }
        }
        assert_eq!(
            FI_GET_Q_DTYPE.at(Release::V0_25_1).unwrap().url(),
            "https://github.com/vllm-project/vllm/blob/v0.25.1/vllm/v1/attention/backends/flashinfer.py#L802"
        );
        // A FlashInfer line at an installed FlashInfer other than the pin.
        let up = FLASHINFER_DETERMINE_BACKEND
            .at_with(Release::V0_26_0, FlashInfer::F0_7_2Post1)
            .unwrap();
        assert_eq!(up.line, 574);
        assert!(up.url().contains("/v0.7.2.post1/flashinfer/utils.py#L574"), "{}", up.url());
        assert!(FLASHINFER_FA3_HEAD_DIMS
            .at_with(Release::V0_33_0, FlashInfer::F0_6_14)
            .is_none());
        let f = FLASHINFER_FA2_FP8_ASSERT.at(Release::V0_33_0).unwrap();
        assert_eq!(
            f.url(),
            "https://github.com/flashinfer-ai/flashinfer/blob/v0.7.2.post1/flashinfer/jit/attention/modules.py#L1042"
        );
    }
}
