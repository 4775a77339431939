//! Builds the stylesheet of `<qpath-explainer>`'s shadow root (src/embed.rs includes it): the `--qp-*` defaults of
//! static/style.css's first `:root` block, static/explainer.css and static/results.css, with `:root` read as `:host`
//! and every `rem` length as pixels of the browser's default 16 px root (inside a host page the root font size is the
//! host's: mdBook's is 10 px), comments dropped and whitespace collapsed.

use std::{env, fs, path::Path};

fn main() {
    let read = |p: &str| {
        println!("cargo:rerun-if-changed={p}");
        fs::read_to_string(p).unwrap_or_else(|e| panic!("{p}: {e}"))
    };
    let style = read("static/style.css");
    let start = style.find(":root {").expect("static/style.css has a :root block");
    let end = start + style[start..].find('}').expect("its end") + 1;
    let css = format!(
        "{}\n{}\n{}",
        &style[start..end],
        read("static/explainer.css"),
        read("static/results.css")
    );
    let css = minify(&rem_to_px(&strip_comments(&css).replace(":root", ":host")));
    let out = Path::new(&env::var("OUT_DIR").expect("OUT_DIR")).join("explainer.css");
    fs::write(&out, css).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
}

fn strip_comments(css: &str) -> String {
    let mut out = String::with_capacity(css.len());
    let mut rest = css;
    while let Some(i) = rest.find("/*") {
        out.push_str(&rest[..i]);
        let end = rest[i..].find("*/").expect("a closed comment");
        rest = &rest[i + end + 2..];
    }
    out + rest
}

/// `0.85rem` → `13.6px` (16 px per rem).
fn rem_to_px(css: &str) -> String {
    let mut out = String::with_capacity(css.len());
    let mut rest = css;
    while let Some(i) = rest.find("rem") {
        let number_start = rest[..i]
            .rfind(|c: char| !(c.is_ascii_digit() || c == '.'))
            .map_or(0, |j| j + 1);
        let after = rest[i + 3..].chars().next();
        let is_unit = number_start < i && !after.is_some_and(|c| c.is_alphanumeric() || c == '-');
        match rest[number_start..i].parse::<f64>() {
            Ok(n) if is_unit => {
                out.push_str(&rest[..number_start]);
                let px = format!("{:.2}", n * 16.0);
                out.push_str(px.trim_end_matches('0').trim_end_matches('.'));
                out.push_str("px");
            }
            _ => out.push_str(&rest[..i + 3]),
        }
        rest = &rest[i + 3..];
    }
    out + rest
}

/// Whitespace runs become one space; none around `{`, `}`, `;` and after `,`.
fn minify(css: &str) -> String {
    let collapsed = css.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = collapsed;
    for (from, to) in [
        (" {", "{"),
        ("{ ", "{"),
        (" }", "}"),
        ("} ", "}"),
        ("; ", ";"),
        (";}", "}"),
        (", ", ","),
    ] {
        out = out.replace(from, to);
    }
    out
}
