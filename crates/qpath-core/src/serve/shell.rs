//! Step 1, the shell: POSIX word splitting and quoting of the command line (no expansion), and the quoting
//! `format` writes back.

use super::{err, ParseError};

/// One shell word; `assignment` when it is `NAME=…` with the name and `=` unquoted (a shell variable assignment when it
/// precedes the command).
pub(super) struct Word {
    pub(super) text: String,
    pub(super) assignment: bool,
}

/// A shell variable name (`[A-Za-z_][A-Za-z0-9_]*`).
pub(super) fn is_shell_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic()) && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// The words split so far and the one being read.
#[derive(Default)]
struct Words {
    words: Vec<Word>,
    cur: String,
    in_word: bool,
    /// Where in `cur` the first quoted character went (an `=` after it does not make an assignment).
    first_quote: Option<usize>,
}

impl Words {
    /// A quote or backslash starts (or continues) a word, even an empty one (`''`).
    fn quote(&mut self) {
        self.first_quote.get_or_insert(self.cur.len());
        self.in_word = true;
    }

    /// An unquoted blank ends the word being read, if any.
    fn finish(&mut self) {
        if self.in_word {
            // A copy of exactly the word's length; `cur` keeps its capacity for the next word (no regrowth per word).
            let text = self.cur.clone();
            self.cur.clear();
            let assignment = match text.find('=') {
                Some(eq) => is_shell_name(&text[..eq]) && self.first_quote.is_none_or(|q| q > eq),
                None => false,
            };
            self.words.push(Word { text, assignment });
        }
        self.in_word = false;
        self.first_quote = None;
    }
}

/// POSIX word splitting: blanks separate words; `'…'` is literal; `"…"` keeps `\` only before `$`, `` ` ``, `"`, `\`
/// and newline; an unquoted `\` quotes the next character; backslash-newline (also `\` CR LF) continues the line.
/// No expansion happens (`$VAR` stays as written). Unquoted operators (`|`, `&`, `;`, `<`, `>`, `(`, `)`) are refused:
/// qpath reads one simple command.
pub(super) fn tokenize(line: &str) -> Result<Vec<Word>, ParseError> {
    let mut w = Words::default();
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        rest = &rest[c.len_utf8()..];
        match c {
            ' ' | '\t' | '\n' | '\r' => w.finish(),
            '\\' => {
                let mut chars = rest.chars();
                match chars.next() {
                    Some('\n') | None => {}
                    Some('\r') if chars.as_str().starts_with('\n') => {
                        chars.next();
                    }
                    Some(n) => {
                        w.quote();
                        w.cur.push(n);
                    }
                }
                rest = chars.as_str();
            }
            '\'' => {
                w.quote();
                let Some(end) = rest.find('\'') else {
                    return Err(err(
                        "unterminated single quote: the command line ends inside '…'",
                        Some(line.trim()),
                    ));
                };
                w.cur.push_str(&rest[..end]);
                rest = &rest[end + 1..];
            }
            '"' => {
                w.quote();
                let Some(after) = double_quoted(rest, &mut w.cur) else {
                    return Err(err(
                        "unterminated double quote: the command line ends inside \"…\"",
                        Some(line.trim()),
                    ));
                };
                rest = after;
            }
            '|' | '&' | ';' | '<' | '>' | '(' | ')' => {
                return Err(err(
                    format!(
                        "the shell operator `{c}` is not part of a `vllm serve` command: qpath reads one command \
                         (remove pipes, redirections, `&` and `;`, or quote the character)"
                    ),
                    Some(&c.to_string()),
                ))
            }
            _ => {
                // This character and the plain ones after it, copied at once.
                w.in_word = true;
                w.cur.push(c);
                let plain = rest.find(is_special).unwrap_or(rest.len());
                w.cur.push_str(&rest[..plain]);
                rest = &rest[plain..];
            }
        }
    }
    w.finish();
    Ok(w.words)
}

/// A character [`tokenize`] treats apart: a blank, a quote, a backslash or an operator.
fn is_special(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | '\r' | '\\' | '\'' | '"' | '|' | '&' | ';' | '<' | '>' | '(' | ')'
    )
}

/// The rest of a `"…"` string appended to `cur`: `\` escapes only `$`, `` ` ``, `"`, `\` and newline (which it
/// removes). The text after the closing quote; `None` when the line ends first.
fn double_quoted<'a>(mut rest: &'a str, cur: &mut String) -> Option<&'a str> {
    loop {
        let k = rest.find(['"', '\\'])?;
        cur.push_str(&rest[..k]);
        let after = &rest[k + 1..];
        if rest.as_bytes()[k] == b'"' {
            return Some(after);
        }
        match after.chars().next() {
            Some(n @ ('$' | '`' | '"' | '\\')) => {
                cur.push(n);
                rest = &after[1..];
            }
            Some('\n') => rest = &after[1..],
            _ => {
                cur.push('\\');
                rest = after;
            }
        }
    }
}

/// Shell-quotes one word so that [`tokenize`] gives it back unchanged.
pub(super) fn shell_quote(s: &str) -> String {
    let safe = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | ':' | '=' | '@' | '%' | '+' | ',' | '^'));
    if safe {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}
