//! `qpath doctor [-- vllm serve …]` and `--gpu auto`: the machine read ([`crate::machine`]), then the answer with what
//! was read. The block says what was read and from where, and what was not with the flag that passes it: text before
//! the report, a Markdown list before it, a `machine` object in the JSON answer, standard error with `--check` (whose
//! standard output stays one line).
//!
//! Exit codes: `qpath doctor` without a command line only reports, 0 whatever it could not read (a piece that cannot
//! be read is not vLLM failing); with a command line (and for `--gpu auto`) the answer's own code; 2 for a
//! `--gpu-index` past the GPUs listed or a `--site-packages` that is not a folder.

use crate::args::{Args, Format};
use crate::{exit, machine, pretty, scenario_answer, usage_answer, Answer};

/// The answer of a command line that reads the machine (`a.machine` is `Some`).
pub fn answer(a: &mut Args, json: bool, env: &dyn Fn(&str) -> Option<String>) -> Answer {
    let ask = a.machine.clone().unwrap_or_default();
    let m = match machine::apply(a, &ask, env) {
        Ok(m) => m,
        Err(e) => return usage_answer(&e, json),
    };
    let width = a.text_layout().width;
    if a.command.is_empty() {
        let text = match a.format {
            Some(Format::Json) => pretty(&serde_json::json!({ "machine": m.json() })),
            Some(Format::Markdown) => m.markdown(),
            _ => format!(
                "{}\nthe answer with what was read: qpath doctor -- vllm serve MODEL [FLAGS...]\n  (or qpath --gpu \
                 auto -- …; a flag you give wins over what was read)\n",
                m.text(width)
            ),
        };
        return Answer::out(text, exit::SERVES);
    }
    let mut ans = scenario_answer(a, json, env);
    if a.check || ans.stdout.is_empty() {
        ans.stderr = m.text(width) + &ans.stderr;
    } else if json {
        ans.stdout = with_machine(&ans.stdout, &m.json());
    } else if a.format == Some(Format::Markdown) {
        ans.stdout = m.markdown() + &ans.stdout;
    } else {
        ans.stdout = format!("{}\n{}", m.text(width), ans.stdout);
    }
    ans
}

/// A pretty JSON object's text with `"machine": value` as its first key (the other keys keep their order); any
/// other text as it is.
pub fn with_machine(json: &str, value: &serde_json::Value) -> String {
    let Some(rest) = json.strip_prefix("{\n") else {
        return json.to_string();
    };
    let inner = serde_json::to_string_pretty(value).unwrap_or_default().replace('\n', "\n  ");
    format!("{{\n  \"machine\": {inner},\n{rest}")
}
