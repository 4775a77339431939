//! The URL hash. For now it carries the selected GPU: `#gpu=l4`. Reading it never fails the page: an unknown
//! id or a malformed hash gives a message naming the input, and the page goes on with its defaults.

use qpath_core::gpu::{self, Gpu};

/// What the hash asked for.
#[derive(Debug, PartialEq)]
pub struct HashState {
    pub gpu: Option<&'static Gpu>,
    /// Messages about parts of the hash that could not be used, each naming the input.
    pub problems: Vec<String>,
}

/// Reads `#key=value&...`; keys other than `gpu` are left for later versions of the page and ignored.
pub fn parse(hash: &str) -> HashState {
    let mut state = HashState {
        gpu: None,
        problems: Vec::new(),
    };
    let body = hash.strip_prefix('#').unwrap_or(hash);
    for part in body.split('&').filter(|p| !p.is_empty()) {
        let Some((key, value)) = part.split_once('=') else {
            state
                .problems
                .push(format!("The link's `{part}` is not of the form key=value; it was ignored."));
            continue;
        };
        if key == "gpu" {
            match gpu::find(value) {
                Some(g) => state.gpu = Some(g),
                None => state.problems.push(format!(
                    "The link names GPU `{value}`, which is not in qpath's GPU table; no GPU is selected."
                )),
            }
        }
    }
    state
}

/// The hash that selects `gpu`.
pub fn format(gpu: Option<&Gpu>) -> String {
    gpu.map(|g| format!("#gpu={}", g.id)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_gpu() {
        let s = parse("#gpu=l4");
        assert_eq!(s.gpu.map(|g| g.id), Some("l4"));
        assert!(s.problems.is_empty());
        assert_eq!(format(s.gpu), "#gpu=l4");
    }

    #[test]
    fn unknown_gpu_and_garbage_are_named_not_fatal() {
        let s = parse("#gpu=h900&&%%%&vllm=0.25.0");
        assert_eq!(s.gpu, None);
        assert_eq!(s.problems.len(), 2, "{:?}", s.problems);
        assert!(s.problems[0].contains("`h900`"));
        assert!(s.problems[1].contains("`%%%`"));
        assert_eq!(
            parse(""),
            HashState {
                gpu: None,
                problems: vec![]
            }
        );
    }
}
