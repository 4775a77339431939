//! The vLLM command line the CLI hands the core: the words after `--` joined back into one shell line, so that the
//! core's shell tokenizer (`qpath_core::serve`) reads them back as the same words.
//!
//! - One word that holds the whole command (`qpath -- "vllm serve M --kv-cache-dtype fp8"`, as a user pastes it) is
//!   the line itself: the core tokenizes it (quotes, `NAME=value` assignments and all).
//! - A word `NAME=value` before the program (`qpath -- 'HF_HOME=/my dir' vllm serve M`) is an environment assignment,
//!   as the shell made it: only its value is quoted (`HF_HOME='/my dir'`), so the tokenizer still sees an assignment.
//! - Every other word is quoted when it needs it.

/// The command line of the words after `--`.
pub fn command_line(words: &[String]) -> String {
    if let [one] = words {
        // A blank word (`qpath -- ""`) is an empty command line, as the core names it.
        if one.trim().is_empty() || one.trim().contains(char::is_whitespace) {
            return one.clone();
        }
    }
    let mut program_seen = false;
    let quoted: Vec<String> = words
        .iter()
        .map(|w| match assignment(w) {
            Some((name, value)) if !program_seen => format!("{name}={}", shell_quote(value)),
            _ => {
                program_seen = true;
                shell_quote(w)
            }
        })
        .collect();
    quoted.join(" ")
}

/// `NAME=value` with a shell variable name (`[A-Za-z_][A-Za-z0-9_]*`): the name and the value.
fn assignment(word: &str) -> Option<(&str, &str)> {
    let (name, value) = word.split_once('=')?;
    let mut chars = name.chars();
    let first = chars.next()?;
    let valid = (first.is_ascii_alphabetic() || first == '_') && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then_some((name, value))
}

/// Quotes one word for a POSIX shell when it needs it, so the core parses the joined line back to the same word.
pub fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:=,@%+".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn quoting_keeps_json_arguments_whole() {
        assert_eq!(shell_quote("fp8"), "fp8");
        assert_eq!(
            shell_quote(r#"{"use_trtllm_attention": false}"#),
            r#"'{"use_trtllm_attention": false}'"#
        );
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }

    #[test]
    fn an_assignment_before_the_program_quotes_only_its_value() {
        let line = command_line(&words(&["HF_HOME=/my dir", "A=1", "vllm", "serve", "m", "X=a b"]));
        assert_eq!(line, "HF_HOME='/my dir' A=1 vllm serve m 'X=a b'");
        // Not a variable name: quoted whole, as before.
        assert_eq!(command_line(&words(&["1A=x y", "vllm"])), "'1A=x y' vllm");
        assert_eq!(command_line(&words(&["=x y", "vllm"])), "'=x y' vllm");
    }

    #[test]
    fn one_word_holding_the_command_is_the_line() {
        let one = "HF_HOME=/h vllm serve M --hf-overrides '{\"a\": 1}'";
        assert_eq!(command_line(&words(&[one])), one);
        // One word without a blank is a word like any other.
        assert_eq!(command_line(&words(&["vllm"])), "vllm");
        assert_eq!(command_line(&words(&["a'b"])), r"'a'\''b'");
    }
}
