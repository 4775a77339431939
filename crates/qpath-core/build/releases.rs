//! `data/releases.toml` (the vLLM releases) -> `$OUT_DIR/releases.rs`, included by `src/release.rs`, and
//! `data/source-lines.toml` (the source line of every rule, per release) -> `$OUT_DIR/cites.rs`, included by
//! `src/source.rs`. Shape errors stop the build naming the release or the citation and the key; a citation line is
//! resolved here for every release (through `source =` for byte-identical releases and through each release's
//! FlashInfer pin for FlashInfer files), so the core indexes one array by release.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Releases {
    release: Vec<Row>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Row {
    name: String,
    flashinfer: String,
    commit: String,
    /// The day PyPI received the release's first wheel (`upload-time`, UTC); absent for a state never published.
    published: Option<String>,
    requires_flashinfer_cubin: bool,
    source: Option<String>,
    tag: Option<String>,
    #[serde(default = "yes")]
    released: bool,
    note: Option<String>,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CiteRow {
    repo: String,
    file: String,
    /// The start of the cited statement's stripped first line (`tests/citations.rs` checks it against
    /// `data/source-statements.tsv`); not generated into the crate.
    anchor: Option<String>,
    /// Per release (FlashInfer release for a FlashInfer file), where the statement's text differs from `anchor`.
    #[serde(default)]
    anchors: BTreeMap<String, String>,
    lines: BTreeMap<String, u32>,
}

/// Every cite has an anchor, and per-release anchors only for releases it has a line in.
fn check_anchors(name: &str, c: &CiteRow) {
    let anchor = c.anchor.as_deref().unwrap_or_else(|| {
        panic!("data/source-lines.toml: [{name}]: no `anchor` (the start of the cited statement's first line)")
    });
    assert!(
        !anchor.trim().is_empty(),
        "data/source-lines.toml: [{name}]: `anchor` is empty"
    );
    for (key, a) in &c.anchors {
        assert!(
            c.lines.contains_key(key) && !a.trim().is_empty(),
            "data/source-lines.toml: [{name}]: anchors.{key:?} names no release of `lines` (or is empty)"
        );
    }
}

/// The FlashInfer releases some vLLM release pins, each once, in the order they are first pinned (version order: a
/// later vLLM release never pins an older FlashInfer; checked below).
fn flashinfer_pins(rows: &[Row]) -> Vec<&str> {
    let mut out: Vec<&str> = vec![];
    for r in rows {
        if !out.contains(&r.flashinfer.as_str()) {
            out.push(&r.flashinfer);
        }
    }
    let key = |v: &str| -> Vec<u32> {
        let (base, post) = v.split_once(".post").unwrap_or((v, ""));
        let mut k: Vec<u32> = base.split('.').map(|n| n.parse().unwrap_or(0)).collect();
        k.push(if post.is_empty() {
            0
        } else {
            1 + post.parse::<u32>().unwrap_or(0)
        });
        k
    };
    for w in out.windows(2) {
        assert!(
            key(w[0]) < key(w[1]),
            "data/releases.toml: FlashInfer {} is pinned after {}, an older release",
            w[1],
            w[0]
        );
    }
    out
}

/// "0.6.16.post3" -> `F0_6_16Post3`, "0.6.12" -> `F0_6_12`.
fn flashinfer_variant(name: &str) -> String {
    let (base, post) = name.split_once(".post").unwrap_or((name, ""));
    assert!(
        base.split('.').count() == 3
            && base
                .split('.')
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
            && post.bytes().all(|b| b.is_ascii_digit()),
        "data/releases.toml: flashinfer {name:?} is not X.Y.Z or X.Y.Z.postN"
    );
    let mut v = format!("F{}", base.replace('.', "_"));
    if !post.is_empty() {
        write!(v, "Post{post}").unwrap();
    }
    v
}

/// "0.27.1" -> `V0_27_1`, "0.25.0-prefix" -> `V0_25_0Prefix`.
fn variant(name: &str) -> String {
    let (version, suffix) = name.split_once('-').unwrap_or((name, ""));
    let ok = version.split('.').count() == 3
        && version
            .split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    assert!(
        ok && suffix.bytes().all(|b| b.is_ascii_alphanumeric()),
        "data/releases.toml: release name {name:?} is not X.Y.Z or X.Y.Z-word"
    );
    let mut v = format!("V{}", version.replace('.', "_"));
    let mut chars = suffix.chars();
    if let Some(first) = chars.next() {
        v.push(first.to_ascii_uppercase());
        v.extend(chars);
    }
    v
}

pub fn generate(manifest: &Path) {
    let table: Releases = super::load(manifest, "releases.toml");
    let source = source_releases(&table.release);
    let dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    std::fs::write(dir.join("releases.rs"), releases_rs(&table.release, &source)).unwrap();
    std::fs::write(dir.join("cites.rs"), cites_rs(manifest, &table.release, &source)).unwrap();
}

/// Each release's source release: itself, or the byte-identical release it names (checked to exist, to have no
/// source of its own and to pin the same FlashInfer).
fn source_releases(rows: &[Row]) -> Vec<usize> {
    assert!(!rows.is_empty(), "data/releases.toml lists no release");
    let index: BTreeMap<&str, usize> = rows.iter().enumerate().map(|(i, r)| (r.name.as_str(), i)).collect();
    assert_eq!(index.len(), rows.len(), "data/releases.toml lists a release twice");
    rows.iter()
        .enumerate()
        .map(|(i, r)| match &r.source {
            None => i,
            Some(s) => {
                let j = *index.get(s.as_str()).unwrap_or_else(|| {
                    panic!(
                        "data/releases.toml: release {}: source = {s:?} is not a release of the file",
                        r.name
                    )
                });
                assert!(
                    j != i && rows[j].source.is_none(),
                    "data/releases.toml: release {}: source = {s:?} must be another release without a source of its own",
                    r.name
                );
                assert_eq!(
                    rows[j].flashinfer, r.flashinfer,
                    "data/releases.toml: release {}: a byte-identical release pins the same FlashInfer as its source",
                    r.name
                );
                j
            }
        })
        .collect()
}

/// The `Release` enum, `ALL`, `LATEST` and the per-release facts.
fn releases_rs(rows: &[Row], source: &[usize]) -> String {
    let latest = rows
        .iter()
        .rposition(|r| r.released)
        .expect("data/releases.toml: no released release");

    let names: Vec<String> = rows.iter().map(|r| variant(&r.name)).collect();
    let mut out = String::from("// Generated by build.rs from data/releases.toml. Do not edit.\n\n");
    release_enum(&mut out, rows, &names, latest);
    flashinfer_enum(&mut out, rows);
    release_info(&mut out, rows, &names, source);
    out
}

/// The `Release` enum, one variant per row, and its `ALL` and `LATEST`.
fn release_enum(out: &mut String, rows: &[Row], names: &[String], latest: usize) {
    out.push_str(
        "/// A vLLM release qpath knows (plus the never-released `0.25.0-prefix`), in release order: `Ord` follows\n\
         /// history. Generated from `data/releases.toml`; rules compare releases only with `<` and `>=` against the first\n\
         /// release of a behaviour, so a patch release added later falls on the side of the release it patches.\n",
    );
    out.push_str("#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]\npub enum Release {\n");
    for (r, v) in rows.iter().zip(names) {
        writeln!(
            out,
            "    /// vLLM {}{}",
            r.name,
            r.note.as_deref().map(|n| format!(": {n}")).unwrap_or_default()
        )
        .unwrap();
        writeln!(out, "    {v},").unwrap();
    }
    out.push_str("}\n\n");
    writeln!(
        out,
        "impl Release {{\n    /// Every release, oldest first.\n    pub const ALL: [Release; {}] = [{}];",
        rows.len(),
        names.iter().map(|v| format!("Release::{v}")).collect::<Vec<_>>().join(", ")
    )
    .unwrap();
    writeln!(
        out,
        "    /// The newest published release: the default everywhere.\n    pub const LATEST: Release = Release::{};\n}}\n",
        names[latest]
    )
    .unwrap();
}

/// The `FlashInfer` enum of the pinned flashinfer-python releases, its `ALL`, its names and each release's pin.
fn flashinfer_enum(out: &mut String, rows: &[Row]) {
    let fis = flashinfer_pins(rows);
    let fi_names: Vec<String> = fis.iter().map(|f| flashinfer_variant(f)).collect();
    out.push_str(
        "/// A flashinfer-python release some vLLM release pins, in version order (`Ord`); generated from the `flashinfer`\n\
         /// column of `data/releases.toml`. FlashInfer's own rules compare it with `<` and `>=` like releases.\n",
    );
    out.push_str("#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]\npub enum FlashInfer {\n");
    for (f, v) in fis.iter().zip(&fi_names) {
        writeln!(out, "    /// flashinfer-python {f}\n    {v},").unwrap();
    }
    out.push_str("}\n\n");
    writeln!(
        out,
        "impl FlashInfer {{\n    /// Every pinned FlashInfer, oldest first.\n    pub const ALL: [FlashInfer; {}] = [{}];\n}}\n",
        fis.len(),
        fi_names
            .iter()
            .map(|v| format!("FlashInfer::{v}"))
            .collect::<Vec<_>>()
            .join(", ")
    )
    .unwrap();
    writeln!(out, "const FLASHINFER_NAMES: [&str; {}] = {:?};\n", fis.len(), fis).unwrap();
    writeln!(
        out,
        "const PINS: [FlashInfer; {}] = [{}];\n",
        rows.len(),
        rows.iter()
            .map(|r| format!("FlashInfer::{}", flashinfer_variant(&r.flashinfer)))
            .collect::<Vec<_>>()
            .join(", ")
    )
    .unwrap();
}

/// The `INFO` table: the facts of each release.
fn release_info(out: &mut String, rows: &[Row], names: &[String], source: &[usize]) {
    writeln!(out, "const INFO: [ReleaseInfo; {}] = [", rows.len()).unwrap();
    for (i, r) in rows.iter().enumerate() {
        writeln!(
            out,
            "    ReleaseInfo {{ name: {:?}, flashinfer: {:?}, commit: {:?}, published: {:?}, requires_flashinfer_cubin: {}, source: Release::{}, tag: {:?}, released: {}, note: {:?} }},",
            r.name,
            r.flashinfer,
            r.commit,
            r.published,
            r.requires_flashinfer_cubin,
            names[source[i]],
            r.tag.clone().unwrap_or_else(|| format!("v{}", r.name)),
            r.released,
            r.note,
        )
        .unwrap();
    }
    out.push_str("];\n");
}

/// The cites of `data/source-lines.toml` and of every `data/source-lines/*.toml` (one file per backend or area, read in
/// name order), merged, and their names in the files' order (each file's entries in the order they appear). A name
/// defined twice stops the build, naming both files.
fn cite_files(manifest: &Path) -> (BTreeMap<String, CiteRow>, Vec<String>) {
    let data = manifest.join("../../data");
    let dir = data.join("source-lines");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files = vec![data.join("source-lines.toml")];
    if let Ok(entries) = std::fs::read_dir(&dir) {
        let mut more: Vec<_> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        more.sort();
        files.extend(more);
    }
    let mut cites: BTreeMap<String, CiteRow> = BTreeMap::new();
    let mut from: BTreeMap<String, String> = BTreeMap::new();
    let mut order = Vec::new();
    for path in files {
        println!("cargo:rerun-if-changed={}", path.display());
        let shown = path.strip_prefix(&data).unwrap_or(&path).display().to_string();
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read data/{shown}: {e}"));
        let table: BTreeMap<String, CiteRow> =
            toml::from_str(&text).unwrap_or_else(|e| panic!("data/{shown} does not parse: {e}"));
        let mut names: Vec<(usize, String)> = table
            .keys()
            .map(|k| (text.find(&format!("[{k}]\n")).unwrap_or(usize::MAX), k.clone()))
            .collect();
        names.sort();
        for (_, name) in names {
            if let Some(other) = from.insert(name.clone(), shown.clone()) {
                panic!("[{name}] is defined in data/{other} and in data/{shown}");
            }
            order.push(name);
        }
        cites.extend(table);
    }
    (cites, order)
}

/// One `Cite` constant per entry of the cite files ([`cite_files`]), its lines resolved for every release, and
/// `ALL_CITES`.
fn cites_rs(manifest: &Path, rows: &[Row], source: &[usize]) -> String {
    let index: BTreeMap<&str, usize> = rows.iter().enumerate().map(|(i, r)| (r.name.as_str(), i)).collect();
    let (cites, order) = cite_files(manifest);
    let pins: Vec<&str> = rows.iter().map(|r| r.flashinfer.as_str()).collect();
    let mut out = String::from("// Generated by build.rs from data/source-lines*.toml. Do not edit.\n\n");
    let mut all = vec![];
    for name in &order {
        all.push(format!("({name:?}, {name})"));
        let c = &cites[name];
        check_anchors(name, c);
        let repo = match c.repo.as_str() {
            "vllm" => "Repo::Vllm",
            "flashinfer" => "Repo::FlashInfer",
            other => panic!("data/source-lines.toml: [{name}]: repo = {other:?} is not \"vllm\" or \"flashinfer\""),
        };
        for key in c.lines.keys() {
            let known = if repo == "Repo::Vllm" {
                index.get(key.as_str()).is_some_and(|&i| source[i] == i)
            } else {
                pins.contains(&key.as_str())
            };
            assert!(
                known,
                "data/source-lines.toml: [{name}]: {key:?} is not {} (releases with `source =` read their source's lines)",
                if repo == "Repo::Vllm" {
                    "a release of data/releases.toml without `source`"
                } else {
                    "a FlashInfer release some vLLM release pins"
                }
            );
        }
        let fi_lines: Vec<String> = if repo == "Repo::FlashInfer" {
            flashinfer_pins(rows)
                .iter()
                .map(|f| c.lines.get(*f).copied().unwrap_or(0).to_string())
                .collect()
        } else {
            vec![]
        };
        let lines: Vec<String> = (0..rows.len())
            .map(|i| {
                let key = if repo == "Repo::Vllm" {
                    rows[source[i]].name.as_str()
                } else {
                    pins[i]
                };
                c.lines.get(key).copied().unwrap_or(0).to_string()
            })
            .collect();
        if let Some(big) = lines
            .iter()
            .chain(&fi_lines)
            .find(|l| l.parse::<u32>().unwrap_or(0) > u32::from(u16::MAX))
        {
            panic!("data/source-lines.toml: [{name}]: line {big} does not fit Cite's u16 lines");
        }
        writeln!(
            out,
            "pub const {name}: Cite = Cite {{ repo: {repo}, file: {:?}, lines: &[{}], fi_lines: &[{}] }};",
            c.file,
            lines.join(", "),
            fi_lines.join(", ")
        )
        .unwrap();
    }
    writeln!(
        out,
        "\n/// Every citation with its name, in the file's order.\npub const ALL_CITES: &[(&str, Cite)] = &[{}];",
        all.join(", ")
    )
    .unwrap();
    out
}
