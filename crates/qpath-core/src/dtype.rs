//! Torch dtypes as vLLM and FlashInfer name them, without the `torch.` prefix.

use std::fmt;

use serde::{Serialize, Serializer};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TorchDtype {
    Float16,
    BFloat16,
    Float32,
    Float8E4m3fn,
    Float8E5m2,
    /// The storage dtype of every fp8*/nvfp4 KV cache, and what FlashInfer sees for an NVFP4 cache.
    Uint8,
}

impl TorchDtype {
    pub fn name(self) -> &'static str {
        match self {
            TorchDtype::Float16 => "float16",
            TorchDtype::BFloat16 => "bfloat16",
            TorchDtype::Float32 => "float32",
            TorchDtype::Float8E4m3fn => "float8_e4m3fn",
            TorchDtype::Float8E5m2 => "float8_e5m2",
            TorchDtype::Uint8 => "uint8",
        }
    }

    /// `torch.bfloat16` etc., as vLLM's log lines print dtypes.
    pub fn torch_repr(self) -> String {
        format!("torch.{}", self.name())
    }

    pub fn is_fp8(self) -> bool {
        matches!(self, TorchDtype::Float8E4m3fn | TorchDtype::Float8E5m2)
    }

    pub fn is_16bit(self) -> bool {
        matches!(self, TorchDtype::Float16 | TorchDtype::BFloat16)
    }
}

impl fmt::Display for TorchDtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for TorchDtype {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}
