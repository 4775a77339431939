//! The source lines each rule of the core restates, per release.
//!
//! A [`Cite`] is a file and one line number per release column (0.24.0, 0.25.x, 0.26.0 … 0.33.0; the never-released
//! 0.25.0-prefix reads 0.25.0's lines). For FlashInfer files the column holds the line in the FlashInfer release that
//! vLLM release pins ([`Release::flashinfer`]). `0` means the statement does not exist in that release.
//!
//! Line numbers were read from the released wheels (`pip download vllm==X --no-deps`, `flashinfer-python==Y`);
//! `docs/source-notes/` restates what each line does, and `scripts/fetch-vllm-source.sh` fetches the files again.

use serde::Serialize;

use crate::release::Release;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repo {
    Vllm,
    FlashInfer,
}

/// A statement in the source, one line per release column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cite {
    pub repo: Repo,
    pub file: &'static str,
    pub lines: [u32; 10],
}

/// Where a trace step comes from in one release: `file:line`, and a link to it at that release's tag.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SourceRef {
    pub file: &'static str,
    pub line: u32,
    pub url: String,
}

impl Cite {
    /// The line in `release`, if the statement exists there.
    pub fn at(&self, release: Release) -> Option<SourceRef> {
        let line = self.lines[release.line_column()];
        (line > 0).then(|| {
            let url = match self.repo {
                Repo::Vllm => format!(
                    "https://github.com/vllm-project/vllm/blob/{}/{}#L{line}",
                    release.git_ref(),
                    self.file
                ),
                Repo::FlashInfer => format!(
                    "https://github.com/flashinfer-ai/flashinfer/blob/v{}/{}#L{line}",
                    release.flashinfer(),
                    self.file
                ),
            };
            SourceRef {
                file: self.file,
                line,
                url,
            }
        })
    }
}

impl SourceRef {
    /// `file:line`, as the JSON output's `source` field.
    pub fn short(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

const fn vllm(file: &'static str, lines: [u32; 10]) -> Cite {
    Cite {
        repo: Repo::Vllm,
        file,
        lines,
    }
}

const fn fi(file: &'static str, lines: [u32; 10]) -> Cite {
    Cite {
        repo: Repo::FlashInfer,
        file,
        lines,
    }
}

const FI: &str = "vllm/v1/attention/backends/flashinfer.py";
const UF: &str = "vllm/utils/flashinfer.py";
const CUDA: &str = "vllm/platforms/cuda.py";

//                                                         0.24  0.25  0.26  0.27  0.28  0.29  0.30  0.31  0.32  0.33
// --- vllm/v1/attention/backends/flashinfer.py: FlashInferBackend (selection) ---
pub const FI_KV_DTYPES: Cite = vllm(FI, [327, 332, 344, 345, 408, 410, 414, 418, 448, 573]);
pub const FI_SUPPORTS_KV_DTYPE: Cite = vllm(FI, [0, 427, 446, 447, 517, 491, 495, 499, 529, 654]);
pub const FI_SUPPORTS_COMBINATION: Cite = vllm(FI, [0, 0, 0, 0, 0, 0, 0, 0, 542, 667]);
pub const FI_HEAD_SIZES: Cite = vllm(FI, [421, 437, 456, 457, 527, 501, 505, 509, 566, 691]);
pub const FI_COMPUTE_CAPABILITY: Cite = vllm(FI, [426, 442, 461, 462, 532, 506, 510, 514, 571, 696]);
pub const FI_SUPPORTS_SINK: Cite = vllm(FI, [437, 453, 472, 473, 543, 517, 521, 525, 582, 707]);
pub const FI_UNRECOGNIZED_DTYPE: Cite = vllm(FI, [418, 424, 443, 444, 514, 488, 492, 496, 526, 651]);
// --- FlashInferMetadataBuilder.__init__ ---
pub const FI_QUANTIZED_GROUP: Cite = vllm(FI, [646, 684, 706, 708, 785, 761, 774, 775, 822, 947]);
pub const FI_UNQUANTIZED_GROUP: Cite = vllm(FI, [667, 707, 729, 731, 809, 785, 798, 799, 855, 980]);
pub const FI_NVFP4_SM100_ONLY: Cite = vllm(FI, [656, 696, 718, 720, 796, 772, 785, 786, 842, 967]);
pub const FI_NVFP4_FA2_DCP: Cite = vllm(FI, [0, 0, 0, 0, 0, 0, 0, 0, 832, 957]);
pub const FI_NVFP4_FA2_HEAD64: Cite = vllm(FI, [0, 0, 0, 0, 0, 0, 0, 0, 835, 960]);
pub const FI_Q_DTYPE_INIT: Cite = vllm(FI, [684, 716, 738, 740, 818, 794, 807, 808, 865, 990]);
pub const FI_GET_Q_DTYPE: Cite = vllm(FI, [0, 802, 844, 846, 929, 935, 934, 928, 991, 1131]);
pub const FI_Q_STEP_DISABLED: Cite = vllm(FI, [0, 805, 847, 849, 932, 938, 937, 931, 994, 1134]);
pub const FI_Q_STEP_XQA_DECODE: Cite = vllm(FI, [0, 815, 857, 859, 941, 947, 948, 942, 1005, 1145]);
pub const FI_Q_STEP_FP8: Cite = vllm(FI, [0, 824, 866, 868, 953, 959, 960, 954, 1017, 1157]);
pub const FI_Q_STEP_NVFP4: Cite = vllm(FI, [0, 834, 876, 878, 962, 968, 971, 965, 1028, 1168]);
pub const FI_Q_STEP_SPEC_DTYPE: Cite = vllm(FI, [0, 836, 878, 880, 964, 970, 973, 967, 1032, 1172]);
pub const FI_DECODE_CAPABILITY: Cite = vllm(FI, [676, 721, 743, 745, 823, 799, 812, 813, 871, 996]);
pub const FI_PAGE_SIZE_ASSERT: Cite = vllm(FI, [682, 730, 752, 754, 832, 808, 821, 822, 880, 1005]);
pub const FI_DECODE_KERNEL: Cite = vllm(FI, [700, 731, 753, 755, 833, 809, 822, 823, 881, 1006]);
pub const FI_XQA_KERNEL_CHOICE: Cite = vllm(FI, [0, 907, 965, 967, 1056, 1046, 1043, 1080, 1154, 1302]);
pub const FI_XQA_HEAD_DIM_FALLBACK: Cite = vllm(FI, [0, 0, 0, 0, 0, 826, 839, 840, 898, 1023]);
pub const FI_XQA_DCP_FALLBACK: Cite = vllm(FI, [0, 0, 763, 765, 843, 836, 849, 850, 908, 1033]);
pub const FI_SM90_SLIDING_WINDOW: Cite = vllm(FI, [0, 759, 801, 803, 886, 889, 0, 0, 0, 0]);
pub const FI_SINKS_INIT: Cite = vllm(FI, [715, 768, 810, 812, 895, 898, 897, 891, 954, 1094]);
pub const FI_RESOLVED_LOG: Cite = vllm(FI, [0, 781, 823, 825, 908, 911, 910, 904, 967, 1107]);
// --- FlashInferMetadataBuilder.build ---
pub const FI_PREFILL_USE_TRTLLM: Cite = vllm(FI, [984, 1099, 1157, 1159, 1333, 1324, 1333, 1370, 1433, 1594]);
pub const FI_DECODE_ROUTE: Cite = vllm(FI, [997, 1112, 1170, 1172, 1346, 1337, 1346, 1383, 1446, 1607]);
pub const FI_SINKS_BUILD: Cite = vllm(FI, [1017, 1132, 1188, 1190, 1368, 1359, 1367, 1404, 1466, 1627]);
pub const FI_STICKY_Q_RESET: Cite = vllm(FI, [1038, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
pub const FI_PREFILL_WRAPPER: Cite = vllm(FI, [816, 931, 989, 991, 1139, 1129, 1146, 1183, 1257, 1405]);
pub const FI_SINK_WRAPPER: Cite = vllm(FI, [0, 0, 0, 0, 1136, 1126, 1143, 1180, 1254, 1402]);
pub const FI_DCP_PREFILL_WRAPPER: Cite = vllm(FI, [822, 937, 995, 997, 1159, 1149, 1166, 1203, 1277, 1425]);
pub const FI_DECODE_WRAPPER: Cite = vllm(FI, [856, 971, 1029, 1031, 1206, 1197, 1217, 1254, 1328, 1487]);
pub const FI_TRTLLM_DECODE_CALL: Cite = vllm(FI, [1883, 2079, 2214, 2216, 2467, 2479, 2536, 2604, 2582, 2764]);
pub const FI_XQA_DEDICATED_CALL: Cite = vllm(FI, [0, 0, 0, 0, 2397, 2403, 2472, 2540, 2515, 2697]);

// --- vllm/utils/flashinfer.py ---
pub const UF_HAS_ARTIFACTORY: Cite = vllm(UF, [346, 346, 346, 346, 367, 439, 564, 564, 620, 647]);
pub const UF_SUPPORTS_TRTLLM: Cite = vllm(UF, [374, 374, 374, 374, 395, 467, 592, 592, 648, 675]);
pub const UF_CAN_USE_TRTLLM: Cite = vllm(UF, [403, 411, 411, 411, 434, 506, 631, 630, 686, 713]);
pub const UF_USE_TRTLLM: Cite = vllm(UF, [411, 422, 422, 422, 445, 517, 642, 641, 697, 724]);
pub const UF_USE_TRTLLM_FORCED_OFF: Cite = vllm(UF, [428, 439, 439, 439, 462, 534, 659, 657, 713, 740]);
pub const UF_USE_TRTLLM_DCP: Cite = vllm(UF, [434, 445, 448, 448, 471, 543, 668, 666, 722, 749]);
pub const UF_USE_TRTLLM_PLATFORM: Cite = vllm(UF, [443, 454, 456, 456, 479, 551, 676, 674, 730, 757]);
pub const UF_USE_TRTLLM_HEADS: Cite = vllm(UF, [448, 460, 462, 462, 485, 557, 682, 680, 736, 763]);
pub const UF_USE_TRTLLM_SPEC: Cite = vllm(UF, [460, 472, 474, 474, 497, 569, 694, 692, 748, 775]);
pub const UF_USE_TRTLLM_Q_QUANTIZED: Cite = vllm(UF, [465, 477, 479, 479, 502, 574, 699, 697, 753, 780]);
pub const UF_USE_TRTLLM_SINKS: Cite = vllm(UF, [471, 483, 485, 485, 508, 580, 705, 703, 759, 786]);
pub const UF_USE_TRTLLM_AUTO: Cite = vllm(UF, [480, 502, 504, 504, 527, 599, 724, 722, 778, 805]);
pub const UF_USE_TRTLLM_FORCED_ON: Cite = vllm(UF, [490, 509, 511, 511, 534, 606, 731, 729, 785, 812]);

// --- selection ---
pub const CUDA_PRIORITIES: Cite = vllm(CUDA, [84, 83, 83, 83, 83, 83, 83, 83, 83, 84]);
pub const CUDA_FORCED_INVALID: Cite = vllm(CUDA, [416, 412, 418, 418, 422, 428, 474, 462, 442, 444]);
pub const CUDA_NONE_VALID: Cite = vllm(CUDA, [445, 441, 447, 447, 451, 457, 503, 491, 471, 473]);
pub const CUDA_CHOSEN_LOG: Cite = vllm(CUDA, [481, 477, 483, 483, 487, 493, 539, 527, 507, 509]);
pub const SELECTOR_INVALID_KV_DTYPE: Cite = vllm(
    "vllm/v1/attention/selector.py",
    [71, 71, 119, 119, 121, 120, 122, 122, 122, 125],
);
pub const ARGS_BACKEND_EXCLUSIVE: Cite = vllm(
    "vllm/engine/arg_utils.py",
    [1717, 1735, 1760, 1809, 1849, 1932, 1944, 2042, 2079, 2119],
);
pub const ATTN_SKIP_LAYERS: Cite = vllm(
    "vllm/model_executor/layers/attention/attention.py",
    [267, 297, 299, 299, 290, 290, 297, 300, 300, 300],
);

// --- FlashInfer (lines in the pinned flashinfer-python release) ---
pub const FLASHINFER_DETERMINE_BACKEND: Cite = fi("flashinfer/utils.py", [476, 476, 476, 522, 522, 545, 545, 553, 553, 574]);
pub const FLASHINFER_FA3_HEAD_DIMS: Cite = fi("flashinfer/utils.py", [0, 0, 0, 452, 452, 475, 475, 483, 483, 504]);
pub const FLASHINFER_PREFILL_AUTO: Cite = fi(
    "flashinfer/prefill.py",
    [2018, 2072, 2072, 2382, 2382, 2506, 2506, 2750, 2750, 3670],
);
pub const FLASHINFER_DECODE_AUTO: Cite = fi(
    "flashinfer/decode.py",
    [1069, 1191, 1191, 1639, 1639, 1680, 1680, 1942, 1942, 2380],
);
pub const FLASHINFER_DECODE_FA2: Cite = fi(
    "flashinfer/decode.py",
    [1078, 1200, 1200, 1650, 1650, 1691, 1691, 1953, 1953, 2391],
);
pub const FLASHINFER_FA2_FP8_ASSERT: Cite = fi(
    "flashinfer/jit/attention/modules.py",
    [1002, 1002, 1002, 1002, 1002, 1004, 1004, 1016, 1016, 1042],
);
pub const FLASHINFER_FA2_LARGE_HEAD: Cite = fi(
    "flashinfer/jit/attention/modules.py",
    [0, 0, 1189, 1189, 1189, 1191, 1191, 1331, 1331, 1593],
);
pub const FLASHINFER_TRTLLM_DECODE_AUTO: Cite = fi(
    "flashinfer/decode.py",
    [2511, 2710, 2710, 3261, 3261, 3335, 3335, 3487, 3487, 4134],
);
pub const FLASHINFER_XQA_Q_DTYPE: Cite = fi("flashinfer/jit/xqa.py", [50, 50, 50, 70, 70, 70, 70, 70, 70, 70]);
pub const FLASHINFER_XQA_PAGE_SIZE: Cite = fi("flashinfer/jit/xqa.py", [64, 64, 64, 84, 84, 84, 84, 84, 84, 84]);
pub const FLASHINFER_XQA_HEAD_DIM: Cite = fi("flashinfer/jit/xqa.py", [70, 70, 70, 90, 90, 88, 88, 88, 88, 88]);
pub const FLASHINFER_XQA_ARCH: Cite = fi("flashinfer/xqa.py", [318, 318, 318, 402, 402, 403, 403, 403, 403, 403]);
pub const FLASHINFER_CHECK_QKV_DTYPE: Cite = fi("flashinfer/utils.py", [316, 316, 316, 333, 333, 356, 356, 364, 364, 385]);
pub const FLASHINFER_SINK_WRAPPER: Cite = fi(
    "flashinfer/attention/_core.py",
    [248, 350, 360, 360, 360, 360, 360, 360, 360, 416],
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cites_resolve_per_release_with_links() {
        let r = FI_GET_Q_DTYPE.at(Release::V0_25_0).unwrap();
        assert_eq!(r.short(), "vllm/v1/attention/backends/flashinfer.py:802");
        assert_eq!(
            r.url,
            "https://github.com/vllm-project/vllm/blob/v0.25.0/vllm/v1/attention/backends/flashinfer.py#L802"
        );
        assert_eq!(FI_GET_Q_DTYPE.at(Release::V0_33_0).unwrap().line, 1131);
        assert!(FI_GET_Q_DTYPE.at(Release::V0_24_0).is_none(), "0.24.0 has no get_q_data_type");
        assert_eq!(
            FI_GET_Q_DTYPE.at(Release::V0_25_1).unwrap().url,
            "https://github.com/vllm-project/vllm/blob/v0.25.1/vllm/v1/attention/backends/flashinfer.py#L802"
        );
        let f = FLASHINFER_FA2_FP8_ASSERT.at(Release::V0_33_0).unwrap();
        assert_eq!(
            f.url,
            "https://github.com/flashinfer-ai/flashinfer/blob/v0.7.2.post1/flashinfer/jit/attention/modules.py#L1042"
        );
    }
}
