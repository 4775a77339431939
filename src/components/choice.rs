use std::cell::Cell;

use web_sys::HtmlSelectElement;
use yew::prelude::*;

thread_local! {
    /// Set while the page's first render builds its selects (see [`hold_options`]).
    static HELD: Cell<bool> = const { Cell::new(false) };
}

/// While the returned guard lives (`hold`), the selects [`choice_select`] builds show only their selected option; the
/// others follow in the render after the page's first frame. Options of a closed select are not visible, and they are
/// a quarter of the page's first elements; the App holds them in its first render only.
pub fn hold_options(hold: bool) -> impl Drop {
    struct Release;
    impl Drop for Release {
        fn drop(&mut self) {
            HELD.with(|h| h.set(false));
        }
    }
    HELD.with(|h| h.set(hold));
    Release
}

/// One option of a [`Choice`]: the value it reports and the text it shows.
#[derive(Clone, PartialEq)]
pub struct ChoiceOption {
    pub value: String,
    pub label: String,
}

impl ChoiceOption {
    pub fn new(value: impl Into<String>, label: impl Into<String>) -> Self {
        Self {
            value: value.into(),
            label: label.into(),
        }
    }
}

#[derive(PartialEq, Properties)]
pub struct ChoiceProps {
    pub id: AttrValue,
    pub options: Vec<ChoiceOption>,
    /// The value the state holds; the select always shows it.
    pub value: AttrValue,
    pub onchange: Callback<String>,
    /// `false`: only the selected option, for now ([`hold_options`]).
    pub full: bool,
}

/// A `<select>` driven by the state. The `selected` attribute only sets an option's default, and browsers differ on
/// whether changing it moves a select the user has touched (Firefox does not), so after each render the select's
/// current value is set from the state.
#[function_component(Choice)]
pub fn choice(props: &ChoiceProps) -> Html {
    let node = use_node_ref();
    {
        let node = node.clone();
        use_effect_with((props.value.clone(), props.full), move |(value, _)| {
            if let Some(select) = node.cast::<HtmlSelectElement>() {
                if select.value() != value.as_str() {
                    select.set_value(value);
                }
            }
        });
    }
    // The select goes back to the state's value at once; the state, if it takes the new value, brings it back in the
    // render that follows (before the browser paints). A value the state refuses leaves the previous choice shown.
    let shown = props.value.clone();
    let onchange = props.onchange.reform(move |e: Event| {
        let select = e.target_unchecked_into::<HtmlSelectElement>();
        let chosen = select.value();
        select.set_value(&shown);
        chosen
    });
    html! {
        <select id={props.id.clone()} ref={node} {onchange}>
            { for props.options.iter().filter(|o| props.full || o.value == props.value.as_str()).map(|o| html! {
                <option value={o.value.clone()} selected={o.value == props.value.as_str()}>{ o.label.clone() }</option>
            }) }
        </select>
    }
}

/// `<Choice {id} {options} {value} {onchange} />`: one copy of the component's construction for the page's twenty
/// selects (each `<Choice …/>` written out costs its own props builder in the wasm).
pub fn choice_select(id: &'static str, options: Vec<ChoiceOption>, value: AttrValue, onchange: Callback<String>) -> Html {
    let full = !HELD.with(Cell::get);
    html! { <Choice {id} {options} {value} {onchange} {full} /> }
}

/// `<label><span>{label}</span>` and the select: the page's usual labelled select, written once.
pub fn labeled_select(
    label: &'static str,
    id: &'static str,
    options: Vec<ChoiceOption>,
    value: AttrValue,
    onchange: Callback<String>,
) -> Html {
    html! { <label><span>{ label }</span>{ choice_select(id, options, value, onchange) }</label> }
}
