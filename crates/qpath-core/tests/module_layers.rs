//! The core's shape, read from its sources: its modules import each other one way (no cycle; the shared vocabulary,
//! `attention.rs`, imports nothing of the crate), and every `match` on `Backend` names each backend (no catch-all arm
//! that would hand a new backend another backend's rule).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The text without `//` comments and without the contents of string and char literals (so braces and words in
/// them do not count).
fn code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'r' && b.get(i + 1) == Some(&b'#') && b.get(i + 2) == Some(&b'"') {
            // r#"…"#
            i += 3;
            while i + 1 < b.len() && !(b[i] == b'"' && b[i + 1] == b'#') {
                i += 1;
            }
            i += 2;
            out.push_str("\"\"");
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == b'\'' && b.get(i + 2) == Some(&b'\'') {
            i += 3;
            out.push_str("' '");
        } else if c == b'\'' && b.get(i + 1) == Some(&b'\\') {
            i += 2;
            while i < b.len() && b[i] != b'\'' {
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(c as char);
            i += 1;
        }
    }
    out
}

/// The top-level module a file belongs to (`backends/flashinfer/init.rs` → `backends`).
fn module_of(path: &Path) -> String {
    let rel = path.strip_prefix(src()).unwrap();
    let first = rel.components().next().unwrap().as_os_str().to_string_lossy().to_string();
    first.trim_end_matches(".rs").to_string()
}

/// Every `crate::x` a file names (in `use crate::{a, b::c}` too).
fn imports(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for part in group[..end].split(',') {
                let name: String = part.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if !name.is_empty() {
                    out.insert(name);
                }
            }
        } else {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            out.insert(name);
        }
    }
    out
}

#[test]
fn the_core_imports_one_way_with_the_vocabulary_at_the_bottom() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let m = module_of(f);
        if m == "lib" || m == "main" {
            continue;
        }
        let deps = imports(&code(&std::fs::read_to_string(f).unwrap()));
        graph
            .entry(m.clone())
            .or_default()
            .extend(deps.into_iter().filter(|d| *d != m));
    }
    let known: BTreeSet<String> = graph.keys().cloned().collect();
    for deps in graph.values_mut() {
        deps.retain(|d| known.contains(d));
    }
    assert!(graph["attention"].is_empty(), "attention.rs imports {:?}", graph["attention"]);
    let below_report: BTreeSet<&str> = [
        "attention",
        "dtype",
        "model",
        "release",
        "source",
        "capability",
        "serve",
        "order",
    ]
    .into_iter()
    .collect();
    for d in &graph["report"] {
        assert!(below_report.contains(d.as_str()), "report.rs imports {d}, which is above it");
    }
    // Depth-first search for a cycle.
    fn visit<'a>(
        m: &'a str,
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<&'a str, u8>,
        path: &mut Vec<&'a str>,
    ) {
        match state.get(m) {
            Some(2) => return,
            Some(1) => panic!("an import cycle: {} -> {m}", path.join(" -> ")),
            _ => {}
        }
        state.insert(m, 1);
        path.push(m);
        for d in &graph[m] {
            visit(d, graph, state, path);
        }
        path.pop();
        state.insert(m, 2);
    }
    let mut state = BTreeMap::new();
    for m in graph.keys() {
        visit(m, &graph, &mut state, &mut Vec::new());
    }
    assert!(graph.len() > 20, "{graph:?}");
}

/// The top-level arms' patterns of the `match` whose body starts at `open` (the `{`).
fn arm_patterns(code: &str, open: usize) -> Vec<String> {
    let b = code.as_bytes();
    let (mut depth, mut i) = (0i32, open);
    let mut pats = Vec::new();
    let mut start = open + 1;
    let mut in_pattern = true;
    while i < b.len() {
        match b[i] {
            b'{' | b'(' | b'[' => depth += 1,
            b'}' | b')' | b']' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            b'=' if depth == 1 && b.get(i + 1) == Some(&b'>') && in_pattern => {
                pats.push(code[start..i].trim().to_string());
                in_pattern = false;
            }
            b',' if depth == 1 && !in_pattern => {
                start = i + 1;
                in_pattern = true;
            }
            _ => {}
        }
        // An arm whose body is a block ends at its closing brace, without a comma.
        if b[i] == b'}' && depth == 1 && !in_pattern {
            start = i + 1;
            in_pattern = true;
        }
        i += 1;
    }
    pats
}

#[test]
fn every_match_on_backend_names_each_backend() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut matches = 0;
    for f in &files {
        let text = code(&std::fs::read_to_string(f).unwrap());
        let mut from = 0;
        while let Some(at) = text[from..].find("match ") {
            let at = from + at;
            from = at + 6;
            let Some(open) = text[at..].find('{').map(|o| at + o) else {
                break;
            };
            let pats = arm_patterns(&text, open);
            // A match on a Backend: an arm's pattern names a variant (`Backend::X`, `Backend::X | Backend::Y`).
            if !pats.iter().any(|p| p.starts_with("Backend::")) {
                continue;
            }
            matches += 1;
            for p in &pats {
                let binding =
                    p.starts_with(|c: char| c.is_ascii_lowercase()) && p.chars().all(|c| c.is_alphanumeric() || c == '_');
                let catch_all = p == "_" || binding;
                assert!(
                    !catch_all,
                    "{}: a match on Backend has the catch-all arm `{p}`: name each backend",
                    f.strip_prefix(src()).unwrap().display()
                );
            }
        }
    }
    assert!(matches >= 2, "found only {matches} matches on Backend");
}

/// The arm reader finds a catch-all (so the test above can fail).
#[test]
fn the_arm_reader_sees_catch_all_arms() {
    let snippet = code("match b { Backend::FlashInfer => { x(\"}\") } Backend::FlashAttn | Backend::TritonAttn => 1, _ => 2 }");
    let open = snippet.find('{').unwrap();
    assert_eq!(
        arm_patterns(&snippet, open),
        ["Backend::FlashInfer", "Backend::FlashAttn | Backend::TritonAttn", "_"]
    );
    let bound = code("match b { Backend::FlashInfer => 1, other => f(other) }");
    assert_eq!(
        arm_patterns(&bound, bound.find('{').unwrap()),
        ["Backend::FlashInfer", "other"]
    );
}
