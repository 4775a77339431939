//! The embedded GPU table. The data lives in `data/gpus.toml` (edited by people, not Rust); `build.rs` turns it
//! into [`GPUS`]. [`validate_table`] states what a row must satisfy; the tests run it on the embedded table.

use std::collections::HashSet;

use serde::Serialize;

use crate::capability::{ComputeCapability, CudaVersion};

/// One GPU of the embedded table. Field meanings are documented at the top of `data/gpus.toml`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Gpu {
    pub id: &'static str,
    pub name: &'static str,
    pub arch: &'static str,
    /// The capability reported under current CUDA (13.x). See [`Gpu::capability_under`] for other CUDA builds.
    pub capability: ComputeCapability,
    pub sm: &'static str,
    pub sm_variants: &'static [&'static str],
    pub memory_gb: u32,
    pub memory_gb_variants: &'static [u32],
    pub memory_type: &'static str,
    pub fp8: bool,
    pub fp4: bool,
    pub bf16: bool,
    pub fp16: Option<bool>,
    pub tf32: Option<bool>,
    pub segment: &'static str,
    pub year: u16,
    pub unconfirmed: &'static [&'static str],
    pub notes: Option<&'static str>,
    pub capability_by_cuda: &'static [ReportedCapability],
    pub sources: &'static [&'static str],
}

/// A capability a GPU reports under some CUDA builds only (Jetson Thor: 10.1 up to CUDA 12.9, 11.0 from CUDA 13.0).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ReportedCapability {
    pub capability: ComputeCapability,
    pub sm: &'static str,
    pub cuda_min: Option<CudaVersion>,
    pub cuda_max: Option<CudaVersion>,
    pub when: &'static str,
}

impl ReportedCapability {
    pub fn applies_to(&self, cuda: CudaVersion) -> bool {
        self.cuda_min.is_none_or(|min| cuda >= min) && self.cuda_max.is_none_or(|max| cuda <= max)
    }
}

include!(concat!(env!("OUT_DIR"), "/gpus.rs"));

/// The segments a row may name.
pub const SEGMENTS: &[&str] = &["datacenter", "workstation", "consumer", "edge"];

/// The fields a row's `unconfirmed` list may name.
const FIELDS: &[&str] = &[
    "name",
    "arch",
    "cc_major",
    "cc_minor",
    "sm",
    "memory_gb",
    "memory_type",
    "fp8",
    "fp4",
    "bf16",
    "fp16",
    "tf32",
    "segment",
    "year",
];

impl Gpu {
    /// The capability this GPU reports when torch was built with `cuda`: the first `capability_by_cuda` entry whose
    /// range holds `cuda`, else the current one.
    pub fn capability_under(&self, cuda: CudaVersion) -> ComputeCapability {
        self.reported_under(cuda).map_or(self.capability, |r| r.capability)
    }

    /// The `capability_by_cuda` entry that applies under `cuda`, if any.
    pub fn reported_under(&self, cuda: CudaVersion) -> Option<&'static ReportedCapability> {
        self.capability_by_cuda.iter().find(|r| r.applies_to(cuda))
    }

    /// The largest memory size the GPU ships with (some come in several sizes).
    pub fn max_memory_gb(&self) -> u32 {
        self.memory_gb_variants
            .iter()
            .copied()
            .chain([self.memory_gb])
            .max()
            .unwrap_or(self.memory_gb)
    }
}

/// The GPU with this id, if the table has it.
pub fn find(id: &str) -> Option<&'static Gpu> {
    GPUS.iter().find(|g| g.id == id)
}

/// The GPU of a device name as `nvidia-smi`, `torch.cuda.get_device_name()` and vLLM's `collect_env` print it
/// (`NVIDIA H100 80GB HBM3`, `NVIDIA A100-SXM4-40GB`, `Tesla T4`, `NVIDIA GeForce RTX 4090`), or of the table's own
/// name or id; `None` when no row matches. Words are compared case-insensitively after splitting on blanks and `-`; a
/// model without a variant word (`H100 80GB HBM3`) is its SXM / most common form.
pub fn from_device_name(name: &str) -> Option<&'static Gpu> {
    let trimmed = name.trim();
    if let Some(g) = GPUS
        .iter()
        .find(|g| g.id.eq_ignore_ascii_case(trimmed) || g.name.eq_ignore_ascii_case(trimmed))
    {
        return Some(g);
    }
    let upper = trimmed.to_ascii_uppercase();
    let words: Vec<&str> = upper
        .split(|c: char| c.is_whitespace() || c == '-' || c == '_')
        .filter(|w| !w.is_empty())
        .collect();
    let has = |w: &str| words.contains(&w);
    let id = if has("GH200") {
        "gh200"
    } else if has("GB200") {
        "gb200"
    } else if has("GB300") {
        "gb300"
    } else if has("GB10") || has("SPARK") {
        "dgx-spark"
    } else if has("B300") {
        "b300"
    } else if has("B200") {
        "b200"
    } else if has("H200") {
        "h200"
    } else if has("H20") {
        "h20"
    } else if has("H100") || has("H800") {
        if has("PCIE") {
            "h100-pcie"
        } else if has("NVL") {
            "h100-nvl"
        } else {
            "h100-sxm"
        }
    } else if has("A100") || has("A800") {
        if words.iter().any(|w| w.starts_with("40")) {
            "a100-40gb"
        } else {
            "a100-80gb"
        }
    } else if has("A10G") {
        "a10g"
    } else if has("A10") {
        "a10"
    } else if has("A30") {
        "a30"
    } else if has("A40") {
        "a40"
    } else if has("A6000") {
        "rtx-a6000"
    } else if has("L40S") {
        "l40s"
    } else if has("L40") {
        "l40"
    } else if has("L4") {
        "l4"
    } else if has("T4") {
        "t4"
    } else if has("V100") {
        "v100"
    } else if has("5090") {
        "rtx-5090"
    } else if has("4090") {
        "rtx-4090"
    } else if has("3090") {
        "rtx-3090"
    } else if has("6000") && has("ADA") {
        "rtx-6000-ada"
    } else if has("6000") && has("BLACKWELL") {
        "rtx-pro-6000-blackwell"
    } else if has("THOR") {
        "jetson-agx-thor"
    } else if has("ORIN") {
        "jetson-agx-orin"
    } else {
        return None;
    };
    find(id)
}

/// What a GPU name as a user types it names: one row, several (a family name without the word that tells its rows
/// apart), or none.
#[derive(Clone, Debug, PartialEq)]
pub enum Lookup {
    Found(&'static Gpu),
    /// The rows the name could mean, in the table's order (`H100` → h100-pcie, h100-sxm, h100-nvl).
    Ambiguous(Vec<&'static Gpu>),
    NotFound,
}

/// The GPU a user's `--gpu` value names. The rule, in order:
///
/// 1. a table id, case-insensitively, also with its `-` left out or written as `_` or a blank (`L4`, `H200`,
///    `H100_SXM`, `rtx4090`);
/// 2. a table name as `qpath gpus` prints it, case-insensitively, blanks collapsed (`NVIDIA H100 SXM5`,
///    `GeForce RTX 4090`);
/// 3. a device name as `nvidia-smi` prints it ([`from_device_name`]: `NVIDIA H100 80GB HBM3`,
///    `NVIDIA A100-SXM4-80GB`, `NVIDIA GeForce RTX 4090`), except that a family name alone, with no word that tells
///    its rows apart, is [`Lookup::Ambiguous`]: `H100` / `NVIDIA H100` / `H800` (PCIe, SXM or NVL), `A100` (40 or
///    80 GB), `RTX 6000` (Ada or PRO Blackwell).
pub fn lookup(name: &str) -> Lookup {
    let trimmed = name.trim();
    if trimmed.is_empty() || trimmed.len() > 200 {
        return Lookup::NotFound;
    }
    let squash = |s: &str| -> String {
        s.chars()
            .filter(|c| !matches!(c, '-' | '_') && !c.is_whitespace())
            // ASCII only: GPU ids and names are ASCII, and char::to_lowercase would carry Unicode's case tables
            // (~13 KB) into the page
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    if let Some(g) = GPUS.iter().find(|g| g.id.eq_ignore_ascii_case(trimmed)) {
        return Lookup::Found(g);
    }
    let squashed = squash(trimmed);
    if let Some(g) = GPUS.iter().find(|g| squash(g.id) == squashed) {
        return Lookup::Found(g);
    }
    let collapsed = trimmed.split_whitespace().collect::<Vec<_>>().join(" ");
    if let Some(g) = GPUS.iter().find(|g| g.name.eq_ignore_ascii_case(&collapsed)) {
        return Lookup::Found(g);
    }
    let upper = collapsed.to_ascii_uppercase();
    let words: Vec<&str> = upper
        .split(|c: char| c.is_whitespace() || c == '-' || c == '_')
        .filter(|w| !w.is_empty() && !matches!(*w, "NVIDIA" | "TESLA" | "GEFORCE" | "QUADRO"))
        .collect();
    let rows = |ids: &[&str]| -> Lookup { Lookup::Ambiguous(GPUS.iter().filter(|g| ids.contains(&g.id)).collect()) };
    match words.as_slice() {
        ["H100" | "H800"] => return rows(&["h100-pcie", "h100-sxm", "h100-nvl"]),
        ["A100" | "A800"] | ["A100" | "A800", "SXM4" | "SXM" | "PCIE"] => return rows(&["a100-40gb", "a100-80gb"]),
        ["RTX", "6000"] | ["6000"] => return rows(&["rtx-6000-ada", "rtx-pro-6000-blackwell"]),
        _ => {}
    }
    from_device_name(trimmed).map_or(Lookup::NotFound, Lookup::Found)
}

/// The architectures of the table, each once, ordered by their lowest capability.
pub fn architectures() -> Vec<&'static str> {
    let mut rows: Vec<&Gpu> = GPUS.iter().collect();
    crate::order::sort_by(&mut rows, |a, b| (a.capability, a.year).cmp(&(b.capability, b.year)));
    let mut seen = HashSet::new();
    rows.into_iter().map(|g| g.arch).filter(|a| seen.insert(*a)).collect()
}

/// The distinct current capabilities of the table, ascending.
pub fn capabilities() -> Vec<ComputeCapability> {
    let mut caps: Vec<ComputeCapability> = GPUS.iter().map(|g| g.capability).collect();
    crate::order::sort_dedup(&mut caps);
    caps
}

/// What the page's GPU list filters on. `None` means "any".
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GpuFilter {
    /// Case-insensitive words; every word must appear in the name, id, architecture or SM target.
    pub text: String,
    pub arch: Option<String>,
    pub capability: Option<ComputeCapability>,
    pub fp8: Option<bool>,
    pub fp4: Option<bool>,
    /// At least this much memory in some variant of the GPU.
    pub min_memory_gb: Option<u32>,
}

impl GpuFilter {
    /// Case-insensitive over ASCII (the table is ASCII; no Unicode case tables in the page).
    pub fn matches(&self, g: &Gpu) -> bool {
        let haystack = format!("{} {} {} {} {}", g.name, g.id, g.arch, g.sm, g.capability).to_ascii_lowercase();
        self.text
            .split_whitespace()
            .all(|w| haystack.contains(&w.to_ascii_lowercase()))
            && self.arch.as_deref().is_none_or(|a| a == g.arch)
            && self.capability.is_none_or(|c| c == g.capability)
            && self.fp8.is_none_or(|v| v == g.fp8)
            && self.fp4.is_none_or(|v| v == g.fp4)
            && self.min_memory_gb.is_none_or(|m| g.max_memory_gb() >= m)
    }

    /// The rows of `table` that match, in table order.
    pub fn apply<'a>(&self, table: &'a [Gpu]) -> Vec<&'a Gpu> {
        table.iter().filter(|g| self.matches(g)).collect()
    }
}

/// `sm_XY`, or its arch-specific (`sm_XYa`) or family (`sm_XYf`) target, for capability X.Y.
fn sm_matches(sm: &str, cc: ComputeCapability) -> bool {
    sm.strip_prefix(cc.sm().as_str())
        .is_some_and(|rest| matches!(rest, "" | "a" | "f"))
}

/// Every problem of the table, one message per problem, each naming the row (empty when the table is sound).
pub fn validate_table(rows: &[Gpu]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut ids = HashSet::new();
    let mut names = HashSet::new();
    for g in rows {
        let mut bad = |what: String| problems.push(format!("gpu `{}`: {what}", g.id));
        if !ids.insert(g.id) {
            bad("duplicate id".into());
        }
        if g.name.trim().is_empty() || !names.insert(g.name) {
            bad(format!("name `{}` is empty or used twice", g.name));
        }
        check_identity(g, &mut bad);
        check_capability(g, &mut bad);
        check_capability_by_cuda(g, &mut bad);
    }
    problems
}

/// The row's id, texts, memory, segment, year, sources and `unconfirmed` list.
fn check_identity(g: &Gpu, bad: &mut impl FnMut(String)) {
    let id_ok = !g.id.is_empty()
        && g.id
            .bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
        && !g.id.starts_with('-')
        && !g.id.ends_with('-');
    if !id_ok {
        bad("id must be lowercase letters, digits and inner dashes".into());
    }
    if g.arch.trim().is_empty() {
        bad("arch is empty".into());
    }
    if g.memory_gb == 0 || (!g.memory_gb_variants.is_empty() && !g.memory_gb_variants.contains(&g.memory_gb)) {
        bad(format!(
            "memory_gb {} is zero or not one of memory_gb_variants {:?}",
            g.memory_gb, g.memory_gb_variants
        ));
    }
    if g.memory_type.trim().is_empty() {
        bad("memory_type is empty".into());
    }
    if !SEGMENTS.contains(&g.segment) {
        bad(format!("segment `{}` is not one of {SEGMENTS:?}", g.segment));
    }
    if !(2010..=2030).contains(&g.year) {
        bad(format!("year {} is implausible", g.year));
    }
    if g.sources.is_empty() || g.sources.iter().any(|s| s.trim().is_empty()) {
        bad("every row needs at least one non-empty source".into());
    }
    for f in g.unconfirmed {
        if !FIELDS.contains(f) {
            bad(format!("unconfirmed names `{f}`, which is not a field"));
        }
    }
}

/// The capability, its SM target, and the tensor-core dtypes it can have.
fn check_capability(g: &Gpu, bad: &mut impl FnMut(String)) {
    let cc = g.capability;
    // CUDA capabilities in use run from 3.0 (Kepler) to 12.x (Blackwell); a minor is one digit.
    if !(3..=12).contains(&cc.major) || cc.minor > 9 {
        bad(format!("compute capability {cc} is not a CUDA capability"));
    }
    if !sm_matches(g.sm, cc) {
        bad(format!(
            "sm `{}` does not match capability {cc} (expected `{1}`, `{1}a` or `{1}f`)",
            g.sm,
            cc.sm()
        ));
    }
    // Tensor-core dtypes arrived with these architectures: BF16 with Ampere (8.0), FP8 with Ada (8.9), FP4 with Blackwell (10.0).
    if g.bf16 && cc < ComputeCapability::new(8, 0) {
        bad(format!("bf16 claimed below 8.0 (capability {cc})"));
    }
    if g.fp8 && cc < ComputeCapability::new(8, 9) {
        bad(format!("fp8 claimed below 8.9 (capability {cc})"));
    }
    if g.fp4 && (!g.fp8 || cc < ComputeCapability::new(10, 0)) {
        bad(format!("fp4 claimed without fp8 or below 10.0 (capability {cc})"));
    }
}

/// The capabilities a GPU reports under different CUDA versions (Jetson Thor).
fn check_capability_by_cuda(g: &Gpu, bad: &mut impl FnMut(String)) {
    for r in g.capability_by_cuda {
        let rc = r.capability;
        if !(3..=12).contains(&rc.major) || rc.minor > 9 || !sm_matches(r.sm, rc) {
            bad(format!(
                "capability_by_cuda entry {rc} / {} is not a valid capability and SM pair",
                r.sm
            ));
        }
        if r.cuda_min.is_none() && r.cuda_max.is_none() {
            bad(format!("capability_by_cuda entry {rc} names no CUDA range"));
        }
        if let (Some(a), Some(b)) = (r.cuda_min, r.cuda_max) {
            if a > b {
                bad(format!("capability_by_cuda entry {rc}: cuda_min {a} is above cuda_max {b}"));
            }
        }
        if r.when.trim().is_empty() {
            bad(format!("capability_by_cuda entry {rc} does not say when it applies"));
        }
    }
    if !g.capability_by_cuda.is_empty() && !g.capability_by_cuda.iter().any(|r| r.capability == g.capability) {
        bad(format!(
            "capability_by_cuda does not list the current capability {}",
            g.capability
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpu(id: &str) -> Gpu {
        *find(id).unwrap_or_else(|| panic!("{id} missing"))
    }

    /// Device names as nvidia-smi / torch print them, and every row's own id and name, find their row.
    #[test]
    fn device_names_find_their_row() {
        for (name, id) in [
            ("NVIDIA H100 80GB HBM3", "h100-sxm"),
            ("NVIDIA H100 PCIe", "h100-pcie"),
            ("NVIDIA H100 NVL", "h100-nvl"),
            ("NVIDIA A100-SXM4-80GB", "a100-80gb"),
            ("NVIDIA A100-SXM4-40GB", "a100-40gb"),
            ("NVIDIA A100-PCIE-40GB", "a100-40gb"),
            ("NVIDIA L4", "l4"),
            ("NVIDIA L40S", "l40s"),
            ("NVIDIA L40", "l40"),
            ("Tesla T4", "t4"),
            ("Tesla V100-SXM2-32GB", "v100"),
            ("NVIDIA GeForce RTX 4090", "rtx-4090"),
            ("NVIDIA GeForce RTX 5090", "rtx-5090"),
            ("NVIDIA H200", "h200"),
            ("NVIDIA H20", "h20"),
            ("NVIDIA GH200 480GB", "gh200"),
            ("NVIDIA B200", "b200"),
            ("NVIDIA A10G", "a10g"),
            ("NVIDIA A10", "a10"),
            ("NVIDIA RTX 6000 Ada Generation", "rtx-6000-ada"),
            ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "rtx-pro-6000-blackwell"),
            ("NVIDIA GB10", "dgx-spark"),
        ] {
            assert_eq!(from_device_name(name).map(|g| g.id), Some(id), "{name}");
        }
        for g in GPUS {
            assert_eq!(from_device_name(g.id).map(|f| f.id), Some(g.id));
            assert_eq!(from_device_name(g.name).map(|f| f.id), Some(g.id));
        }
        for unknown in ["", "AMD Instinct MI300X", "NVIDIA", "Intel(R) Data Center GPU Max 1550"] {
            assert_eq!(from_device_name(unknown).map(|g| g.id), None, "{unknown}");
        }
    }

    #[test]
    fn lookup_reads_ids_names_and_device_names() {
        let found = |name: &str| match lookup(name) {
            Lookup::Found(g) => g.id,
            other => panic!("{name}: {other:?}"),
        };
        for g in GPUS {
            assert_eq!(found(&g.id.to_ascii_uppercase()), g.id);
            assert_eq!(found(&g.id.replace('-', "")), g.id);
            assert_eq!(found(&g.name.to_ascii_lowercase()), g.id);
            assert_eq!(found(&g.name.replace(' ', "  ")), g.id);
        }
        // Squashed ids do not collide.
        let mut squashed: Vec<String> = GPUS.iter().map(|g| g.id.replace('-', "")).collect();
        squashed.sort();
        squashed.dedup();
        assert_eq!(squashed.len(), GPUS.len());
        for (name, id) in [
            ("L4", "l4"),
            ("H200", "h200"),
            ("NVIDIA H100 80GB HBM3", "h100-sxm"),
            ("NVIDIA A100-SXM4-80GB", "a100-80gb"),
            ("NVIDIA GeForce RTX 4090", "rtx-4090"),
            ("H100 SXM", "h100-sxm"),
            ("A100 40GB", "a100-40gb"),
        ] {
            assert_eq!(found(name), id, "{name}");
        }
        let ambiguous = |name: &str| match lookup(name) {
            Lookup::Ambiguous(rows) => rows.iter().map(|g| g.id).collect::<Vec<_>>(),
            other => panic!("{name}: {other:?}"),
        };
        assert_eq!(ambiguous("H100"), ["h100-pcie", "h100-sxm", "h100-nvl"]);
        assert_eq!(ambiguous("nvidia h100"), ["h100-pcie", "h100-sxm", "h100-nvl"]);
        assert_eq!(ambiguous("A100-PCIE"), ["a100-40gb", "a100-80gb"]);
        assert_eq!(ambiguous("RTX 6000"), ["rtx-6000-ada", "rtx-pro-6000-blackwell"]);
        for none in ["", "  ", "h900", "AMD Instinct MI300X", &"x".repeat(100_000)] {
            assert_eq!(lookup(none), Lookup::NotFound, "{none}");
        }
    }

    #[test]
    fn embedded_table_is_sound() {
        assert_eq!(validate_table(GPUS), Vec::<String>::new());
        assert!(GPUS.len() >= 30, "only {} rows", GPUS.len());
    }

    #[test]
    fn embedded_table_keeps_the_spec_ids() {
        for id in [
            "v100",
            "t4",
            "a100-40gb",
            "a100-80gb",
            "a10",
            "a10g",
            "a30",
            "a40",
            "rtx-3090",
            "rtx-a6000",
            "l4",
            "l40",
            "l40s",
            "rtx-4090",
            "rtx-6000-ada",
            "h100-pcie",
            "h100-sxm",
            "h100-nvl",
            "h200",
            "h20",
            "gh200",
            "b200",
            "gb200",
            "b300",
            "gb300",
            "rtx-5090",
            "rtx-pro-6000-blackwell",
            "dgx-spark",
            "jetson-agx-thor",
            "jetson-agx-orin",
        ] {
            assert!(find(id).is_some(), "{id}");
        }
    }

    #[test]
    fn known_capabilities() {
        let cases = [
            ("l4", "8.9"),
            ("a100-80gb", "8.0"),
            ("h100-sxm", "9.0"),
            ("b200", "10.0"),
            ("b300", "10.3"),
            ("rtx-pro-6000-blackwell", "12.0"),
            ("rtx-6000-ada", "8.9"),
            ("dgx-spark", "12.1"),
            ("jetson-agx-orin", "8.7"),
        ];
        for (id, cc) in cases {
            assert_eq!(gpu(id).capability.to_string(), cc, "{id}");
        }
        assert!(gpu("l4").fp8 && !gpu("l4").fp4);
        assert!(gpu("b200").fp4);
    }

    #[test]
    fn thor_reports_10_1_before_cuda_13_and_11_0_after() {
        let thor = gpu("jetson-agx-thor");
        assert_eq!(thor.capability.to_string(), "11.0");
        assert_eq!(thor.capability_under(CudaVersion::new(12, 8)).to_string(), "10.1");
        assert_eq!(thor.capability_under(CudaVersion::new(12, 9)).to_string(), "10.1");
        assert_eq!(thor.capability_under(CudaVersion::new(13, 0)).to_string(), "11.0");
        assert_eq!(thor.reported_under(CudaVersion::new(12, 9)).unwrap().sm, "sm_101");
        // GPUs without such entries report the same capability under every CUDA.
        assert_eq!(gpu("l4").capability_under(CudaVersion::new(12, 1)), gpu("l4").capability);
    }

    #[test]
    fn validation_names_each_bad_row() {
        let good = gpu("l4");
        let dup = good;
        let bad_cc = Gpu {
            id: "bad-cc",
            name: "Bad CC",
            capability: ComputeCapability::new(13, 0),
            sm: "sm_130",
            ..good
        };
        let no_source = Gpu {
            id: "no-source",
            name: "No Source",
            sources: &[],
            ..good
        };
        let fp8_on_ampere = Gpu {
            id: "fp8-ampere",
            name: "FP8 Ampere",
            capability: ComputeCapability::new(8, 6),
            sm: "sm_86",
            ..good
        };
        let sm_mismatch = Gpu {
            id: "sm-mismatch",
            name: "SM mismatch",
            sm: "sm_90",
            ..good
        };
        let problems = validate_table(&[good, dup, bad_cc, no_source, fp8_on_ampere, sm_mismatch]);
        let has = |id: &str, text: &str| {
            problems
                .iter()
                .any(|p| p.starts_with(&format!("gpu `{id}`")) && p.contains(text))
        };
        assert!(has("l4", "duplicate id"), "{problems:#?}");
        assert!(has("bad-cc", "not a CUDA capability"), "{problems:#?}");
        assert!(has("no-source", "source"), "{problems:#?}");
        assert!(has("fp8-ampere", "fp8 claimed below 8.9"), "{problems:#?}");
        assert!(has("sm-mismatch", "does not match capability"), "{problems:#?}");
    }

    #[test]
    fn filter_by_text_finds_both_6000s() {
        let f = GpuFilter {
            text: "6000".into(),
            ..Default::default()
        };
        let ids: Vec<&str> = f.apply(GPUS).iter().map(|g| g.id).collect();
        assert!(
            ids.contains(&"rtx-6000-ada") && ids.contains(&"rtx-pro-6000-blackwell"),
            "{ids:?}"
        );
        assert!(ids.contains(&"rtx-a6000"), "{ids:?}");
    }

    #[test]
    fn filter_combines_every_criterion() {
        let f = GpuFilter {
            fp4: Some(true),
            ..Default::default()
        };
        assert!(f.apply(GPUS).iter().all(|g| g.fp4 && g.capability.major >= 10));
        let f = GpuFilter {
            arch: Some("Hopper".into()),
            min_memory_gb: Some(100),
            ..Default::default()
        };
        let ids: Vec<&str> = f.apply(GPUS).iter().map(|g| g.id).collect();
        assert!(
            ids.contains(&"h200") && ids.contains(&"gh200") && !ids.contains(&"h100-sxm"),
            "{ids:?}"
        );
        let f = GpuFilter {
            capability: Some(ComputeCapability::new(8, 9)),
            fp8: Some(false),
            ..Default::default()
        };
        assert!(f.apply(GPUS).is_empty());
        let f = GpuFilter {
            text: "nvidia L40S".into(),
            ..Default::default()
        };
        assert_eq!(f.apply(GPUS).iter().map(|g| g.id).collect::<Vec<_>>(), vec!["l40s"]);
    }

    #[test]
    fn architectures_are_ordered_by_capability() {
        let archs = architectures();
        assert_eq!(archs.first(), Some(&"Volta"));
        let pos = |a: &str| archs.iter().position(|x| *x == a).unwrap();
        assert!(pos("Ampere") < pos("Ada Lovelace") && pos("Ada Lovelace") < pos("Hopper") && pos("Hopper") < pos("Blackwell"));
        assert_eq!(archs.len(), archs.iter().collect::<HashSet<_>>().len());
        assert!(capabilities().windows(2).all(|w| w[0] < w[1]));
    }
}
