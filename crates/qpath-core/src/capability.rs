//! Compute capabilities (`8.9`) and CUDA versions (`12.8`): parsing with messages that name the input, and the
//! comparisons vLLM's platform layer makes on them (`vllm/platforms/interface.py`, `DeviceCapability`).

use std::fmt;
use std::str::FromStr;

use serde::{Serialize, Serializer};

/// A CUDA compute capability, `major.minor`, as `torch.cuda.get_device_capability()` reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ComputeCapability {
    pub major: u8,
    pub minor: u8,
}

impl ComputeCapability {
    pub const fn new(major: u8, minor: u8) -> Self {
        Self { major, minor }
    }

    /// vLLM's `DeviceCapability.to_int()`: `major * 10 + minor` (vLLM asserts `0 <= minor < 10`).
    pub const fn to_int(self) -> u32 {
        self.major as u32 * 10 + self.minor as u32
    }

    /// The `sm_XY` target name for this capability.
    pub fn sm(self) -> String {
        format!("sm_{}{}", self.major, self.minor)
    }
}

impl fmt::Display for ComputeCapability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl Serialize for ComputeCapability {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Why a `X.Y` text is not a compute capability or a CUDA version; the message names the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseVersionError {
    pub what: &'static str,
    pub input: String,
    pub reason: &'static str,
}

impl fmt::Display for ParseVersionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} `{}` is not valid: {}", self.what, self.input, self.reason)
    }
}

impl std::error::Error for ParseVersionError {}

fn parse_pair(what: &'static str, text: &str, max_major: u8) -> Result<(u8, u8), ParseVersionError> {
    let err = |reason| ParseVersionError {
        what,
        input: text.to_string(),
        reason,
    };
    let (a, b) = text
        .trim()
        .split_once('.')
        .ok_or_else(|| err("expected the form X.Y, for example 8.9"))?;
    let digits = |s: &str| !s.is_empty() && s.len() <= 2 && s.bytes().all(|c| c.is_ascii_digit());
    if !digits(a) || !digits(b) {
        return Err(err("expected the form X.Y with decimal numbers, for example 8.9"));
    }
    let (major, minor): (u8, u8) = (
        a.parse().map_err(|_| err("major out of range"))?,
        b.parse().map_err(|_| err("minor out of range"))?,
    );
    if major == 0 || major > max_major {
        return Err(err("major version out of range"));
    }
    Ok((major, minor))
}

impl FromStr for ComputeCapability {
    type Err = ParseVersionError;

    /// Accepts `X.Y` with `1 <= X <= 99` and `0 <= Y <= 9` (vLLM's `to_int` requires a one-digit minor).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (major, minor) = parse_pair("compute capability", s, 99)?;
        if minor > 9 {
            return Err(ParseVersionError {
                what: "compute capability",
                input: s.to_string(),
                reason: "minor must be 0 to 9 (vLLM's DeviceCapability asserts 0 <= minor < 10)",
            });
        }
        Ok(Self { major, minor })
    }
}

/// The CUDA version of the torch build (`torch.version.cuda`), which moves FlashInfer's architecture gates
/// and the capability Jetson Thor reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CudaVersion {
    pub major: u8,
    pub minor: u8,
}

impl CudaVersion {
    pub const fn new(major: u8, minor: u8) -> Self {
        Self { major, minor }
    }
}

impl fmt::Display for CudaVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl Serialize for CudaVersion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl FromStr for CudaVersion {
    type Err = ParseVersionError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (major, minor) = parse_pair("CUDA version", s, 99)?;
        Ok(Self { major, minor })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_capabilities() {
        let cc: ComputeCapability = "8.9".parse().unwrap();
        assert_eq!(cc, ComputeCapability::new(8, 9));
        assert_eq!(cc.to_string(), "8.9");
        assert_eq!(cc.to_int(), 89);
        assert_eq!(cc.sm(), "sm_89");
        assert_eq!("12.1".parse::<ComputeCapability>().unwrap().to_int(), 121);
    }

    #[test]
    fn rejects_bad_capabilities_naming_the_input() {
        for bad in ["", "8", "8.", ".9", "8.10", "a.b", "8.9.1", "0.5", "-1.0", "100.0"] {
            let e = bad.parse::<ComputeCapability>().unwrap_err();
            assert!(e.to_string().contains(&format!("`{bad}`")), "{bad}: {e}");
        }
    }

    #[test]
    fn cuda_versions_order_numerically() {
        let a: CudaVersion = "12.9".parse().unwrap();
        let b: CudaVersion = "13.0".parse().unwrap();
        let c: CudaVersion = "12.10".parse().unwrap();
        assert!(a < b && a < c && c < b);
        assert!("13".parse::<CudaVersion>().is_err());
    }
}
