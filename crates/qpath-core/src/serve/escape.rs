//! Characters a terminal would not show, in qpath's own text: control characters, invisible format characters
//! (zero-width spaces and joiners, bidirectional marks, the byte-order mark, the soft hyphen) and unusual spaces.
//! vLLM's own message stays byte for byte; qpath's hint after it escapes such characters and names them.

/// The characters qpath names, with their Unicode names; any other control character is named by its code point.
const NAMED: [(char, &str); 26] = [
    ('\u{0}', "NULL"),
    ('\u{7}', "BELL"),
    ('\u{8}', "BACKSPACE"),
    ('\t', "CHARACTER TABULATION"),
    ('\n', "LINE FEED"),
    ('\u{b}', "LINE TABULATION"),
    ('\u{c}', "FORM FEED"),
    ('\r', "CARRIAGE RETURN"),
    ('\u{1b}', "ESCAPE"),
    ('\u{7f}', "DELETE"),
    ('\u{a0}', "NO-BREAK SPACE"),
    ('\u{ad}', "SOFT HYPHEN"),
    ('\u{61c}', "ARABIC LETTER MARK"),
    ('\u{180e}', "MONGOLIAN VOWEL SEPARATOR"),
    ('\u{200b}', "ZERO WIDTH SPACE"),
    ('\u{200c}', "ZERO WIDTH NON-JOINER"),
    ('\u{200d}', "ZERO WIDTH JOINER"),
    ('\u{200e}', "LEFT-TO-RIGHT MARK"),
    ('\u{200f}', "RIGHT-TO-LEFT MARK"),
    ('\u{202e}', "RIGHT-TO-LEFT OVERRIDE"),
    ('\u{2028}', "LINE SEPARATOR"),
    ('\u{2029}', "PARAGRAPH SEPARATOR"),
    ('\u{2060}', "WORD JOINER"),
    ('\u{2066}', "LEFT-TO-RIGHT ISOLATE"),
    ('\u{3000}', "IDEOGRAPHIC SPACE"),
    ('\u{feff}', "ZERO WIDTH NO-BREAK SPACE"),
];

/// Whether a terminal would show `c` as nothing, as a move of the cursor, or as an ordinary space.
pub fn is_hidden(c: char) -> bool {
    let n = c as u32;
    n < 0x20
        || (0x7f..=0x9f).contains(&n)
        || matches!(n, 0xa0 | 0xad | 0x61c | 0x180e | 0x3000 | 0xfeff)
        || (0x2000..=0x200f).contains(&n)
        || (0x2028..=0x202f).contains(&n)
        || (0x205f..=0x206f).contains(&n)
        || (0xfff9..=0xfffb).contains(&n)
}

/// `s` with each hidden character written as Python writes it in a repr (`\t`, `\x07`, `\u200b`); other text as is.
pub fn escape_for_message(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if is_hidden(c) && (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if is_hidden(c) => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// ` (contains U+200B ZERO WIDTH SPACE)` for a text with hidden characters (each named once, in order), else "".
pub fn hidden_characters(s: &str) -> String {
    let mut seen: Vec<char> = Vec::new();
    for c in s.chars().filter(|&c| is_hidden(c)) {
        if !seen.contains(&c) {
            seen.push(c);
        }
        if seen.len() > super::limits::MAX_LISTED {
            break;
        }
    }
    if seen.is_empty() {
        return String::new();
    }
    let names: Vec<String> = seen
        .iter()
        .map(|&c| match NAMED.iter().find(|(k, _)| *k == c) {
            Some((_, name)) => format!("U+{:04X} {name}", c as u32),
            None => format!("U+{:04X}", c as u32),
        })
        .collect();
    format!(" (contains {})", names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_characters_are_escaped_and_named() {
        assert_eq!(escape_for_message("fp8\u{200b}"), "fp8\\u200b");
        assert_eq!(escape_for_message("a\u{7}b\tc"), "a\\x07b\\tc");
        assert_eq!(escape_for_message("plain fp8"), "plain fp8");
        assert_eq!(hidden_characters("fp8\u{200b}"), " (contains U+200B ZERO WIDTH SPACE)");
        assert_eq!(
            hidden_characters("\u{1b}[31m\u{feff}\u{1b}"),
            " (contains U+001B ESCAPE, U+FEFF ZERO WIDTH NO-BREAK SPACE)"
        );
        assert_eq!(hidden_characters("x\u{85}"), " (contains U+0085)");
        assert_eq!(hidden_characters("fp8"), "");
    }
}
