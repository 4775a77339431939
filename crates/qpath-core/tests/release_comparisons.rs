//! Rules compare releases (and FlashInfer versions, `F0_…`) only with `<` and `>=` against the first release of a behaviour (`r >= V0_28_0`,
//! `r < V0_28_0`), never with `<=`, `>`, `==` or `!=` against a release constant. A release added later between two
//! known ones (a patch such as 0.27.1 between 0.27.0 and 0.28.0) then behaves as the release it patches without any
//! rule being touched; `r <= V0_27_0` would silently put it on the other side. This test reads the core's sources.

use std::path::Path;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The comparisons of `line` against a release constant with an operator other than `<` and `>=`.
fn bad_comparisons(line: &str) -> Vec<String> {
    let code = line.split("//").next().unwrap_or("");
    let mut found = vec![];
    for op in ["<=", "==", "!=", ">"] {
        let mut rest = code;
        while let Some(i) = rest.find(op) {
            let before = &rest[..i];
            let after = rest[i + op.len()..].trim_start();
            let after = after.strip_prefix("Release::").unwrap_or(after);
            let after = after.strip_prefix("FlashInfer::").unwrap_or(after);
            // `>` of `>=` and `->`/`=>` are not comparisons; `>=` is allowed.
            let is_arrow_or_ge = op == ">" && (before.ends_with('-') || before.ends_with('=') || rest[i..].starts_with(">="));
            if !is_arrow_or_ge && (after.starts_with("V0_") || after.starts_with("F0_")) {
                found.push(format!(
                    "`{op} {}`",
                    after.split(|c: char| !c.is_alphanumeric() && c != '_').next().unwrap_or("")
                ));
            }
            rest = &rest[i + op.len()..];
        }
    }
    found
}

#[test]
fn rules_compare_releases_only_with_less_than_and_at_least() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![];
    rust_files(&root, &mut files);
    let mut problems = vec![];
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        // Unit tests may pin a release exactly; rules may not.
        let rules = text.split("#[cfg(test)]").next().unwrap_or("");
        let name = f.strip_prefix(&root).unwrap().display().to_string();
        if name == "release.rs" {
            continue; // the Release type itself (is_prefix names one release by identity)
        }
        for (n, line) in rules.lines().enumerate() {
            for bad in bad_comparisons(line) {
                problems.push(format!("src/{name}:{}: {bad}", n + 1));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "release comparisons other than < and >=:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_check_sees_what_it_must() {
    assert_eq!(bad_comparisons("if r <= V0_27_0 {"), ["`<= V0_27_0`"]);
    assert_eq!(bad_comparisons("p.release == Release::V0_24_0"), ["`== V0_24_0`"]);
    assert_eq!(bad_comparisons("r > V0_30_0"), ["`> V0_30_0`"]);
    assert_eq!(bad_comparisons("f <= FlashInfer::F0_6_18"), ["`<= F0_6_18`"]);
    assert!(bad_comparisons("p.flashinfer >= F0_6_18").is_empty());
    assert!(bad_comparisons("r >= V0_28_0 && r < V0_30_0").is_empty());
    assert!(bad_comparisons("V0_24_0 => 1, // r <= V0_24_0").is_empty());
    assert!(bad_comparisons("fn f() -> V0_24_0").is_empty());
}
