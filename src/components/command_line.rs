//! The `vllm serve` command line: the page's state for the flags. It always shows the command line equivalent to the
//! inputs, takes a pasted one (env variables in front included) and says what it cannot use.

use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

#[derive(PartialEq, Properties)]
pub struct CommandLineProps {
    pub command: AttrValue,
    /// The parse error at this release, naming the input.
    pub error: Option<AttrValue>,
    pub unused: Vec<String>,
    /// The text typed or pasted.
    pub oninput: Callback<String>,
    pub oncopy: Callback<String>,
}

#[function_component(CommandLine)]
pub fn command_line(props: &CommandLineProps) -> Html {
    let oninput = props
        .oninput
        .reform(|e: InputEvent| e.target_unchecked_into::<HtmlTextAreaElement>().value());
    let command = props.command.to_string();
    let oncopy = props.oncopy.reform(move |_: MouseEvent| command.clone());
    html! {
        <section class="command" aria-labelledby="command-heading">
            <div class="command-head">
                <h2 id="command-heading"><label for="command-line">{ "vllm serve command line" }</label></h2>
                <button type="button" id="copy-command" onclick={oncopy}>{ "Copy" }</button>
            </div>
            <textarea id="command-line" rows="3" spellcheck="false" autocomplete="off" value={props.command.clone()} {oninput}
                aria-describedby="command-help" aria-invalid={props.error.is_some().to_string()} />
            <p id="command-help" class="hint">{ "Paste your own (ENV=VAL in front is fine): the inputs follow it. The inputs edit it too." }</p>
            if let Some(e) = &props.error {
                <p id="command-error" class="command-error" role="alert">{ e.clone() }</p>
            }
            if !props.unused.is_empty() {
                <p id="command-unused" class="hint">{ format!("Accepted but not part of this decision: {}", props.unused.join(" ")) }</p>
            }
        </section>
    }
}
