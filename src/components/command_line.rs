//! The `vllm serve` command line: the page's state for the flags. It always shows the command line equivalent to the
//! inputs, takes a pasted one (env variables in front included) and says what it cannot use.

use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

use crate::components::copy_button::copy_button;

/// The command line `command` (the page's text), with the parse `error` at this release (naming the input), the
/// flags it accepted but does not use (`unused`) and the environment variables whose values links, Markdown and an
/// embedding page's messages leave out (`dropped_env`: qpath does not read them). `oninput` gets the text typed or pasted. It holds no state, so it is
/// a plain function that the page calls in its render.
pub fn command_line(
    command: &str,
    error: Option<String>,
    unused: &[String],
    dropped_env: &[String],
    oninput: Callback<String>,
) -> Html {
    let oninput = oninput.reform(|e: InputEvent| e.target_unchecked_into::<HtmlTextAreaElement>().value());
    html! {
        <section class="command" aria-labelledby="command-heading">
            <div class="command-head">
                <h2 id="command-heading"><label for="command-line">{ "vllm serve command line" }</label></h2>
                { copy_button("copy-command", "Copy", command.to_string()) }
            </div>
            <textarea id="command-line" rows="3" spellcheck="false" autocomplete="off" value={command.to_string()} {oninput}
                aria-describedby="command-help" aria-invalid={error.is_some().to_string()} />
            <p id="command-help" class="hint">{ "Paste your own (ENV=VAL in front is fine): the inputs follow it. The inputs edit it too." }</p>
            if let Some(e) = error {
                <p id="command-error" class="command-error" role="alert">{ e }</p>
            }
            if !dropped_env.is_empty() {
                <p id="command-env-note" class="hint">{ dropped_env_note(dropped_env) }</p>
            }
            if !unused.is_empty() {
                <p id="command-unused" class="hint">{ format!("Accepted but not part of this decision: {}", qpath_core::options::echo_entries(unused)) }</p>
            }
        </section>
    }
}

/// "HF_TOKEN's value is not put in links, …" for the variables whose values the shared command line drops.
pub fn dropped_env_note(names: &[String]) -> String {
    let (subject, it) = match names {
        [one] => (format!("{one}'s value is"), "it"),
        _ => (format!("The values of {} are", names.join(", ")), "them"),
    };
    format!(
        "{subject} not put in links, Markdown or messages to an embedding page (shown there as {}): qpath does not \
         read {it}, and a value may be a secret or a path.",
        qpath_core::serve::DROPPED_VALUE
    )
}
