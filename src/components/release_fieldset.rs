//! The vLLM release (beside the command line, with the GPU) and the fieldset "This machine" of the advanced section:
//! the CUDA of the torch build, the TRTLLM cubins, the installed FlashInfer.

use qpath_core::capability::CudaVersion;
use qpath_core::choices;
use qpath_core::release::{FlashInfer, Release};
use qpath_core::resolve::{default_cubins, DEFAULT_CUDA};
use yew::prelude::*;

use crate::components::choice::{labeled_select, ChoiceOption};
use crate::components::inputs::{opt_bool, parse_opt_bool};

pub struct ReleaseFieldsetProps {
    pub release: Release,
    pub cuda: CudaVersion,
    /// `None`: the default (available).
    pub cubins: Option<bool>,
    /// The release select's value, as it reports it (the page parses it and names a value it cannot use).
    pub onrelease: Callback<String>,
    /// The CUDA select's value, as it reports it.
    pub oncuda: Callback<String>,
    pub oncubins: Callback<Option<bool>>,
    /// `None`: the release's pin.
    pub flashinfer: Option<FlashInfer>,
    /// The FlashInfer select's value, as it reports it (`""`: the pin).
    pub onflashinfer: Callback<String>,
}

/// The release select (a plain function, as [`crate::components::attention_fieldset::attention_fieldset`]), shown
/// beside the command line with the GPU.
pub fn release_select(props: &ReleaseFieldsetProps) -> Html {
    let releases: Vec<ChoiceOption> = Release::ALL
        .iter()
        .map(|r| ChoiceOption::new(r.name(), format!("{} (FlashInfer {})", r.name(), r.flashinfer())))
        .collect();
    html! {
        <div class="release-pick">
            { labeled_select("vLLM release", "release", releases, AttrValue::from(props.release.name()), props.onrelease.clone()) }
        </div>
    }
}

/// The fieldset "This machine" (in the advanced section): CUDA, cubins, FlashInfer, each with its default in words.
pub fn machine_fieldset(props: &ReleaseFieldsetProps) -> Html {
    let mut cudas: Vec<ChoiceOption> = choices::cuda_versions()
        .iter()
        .map(|c| ChoiceOption::new(c.to_string(), format!("CUDA {c}")))
        .collect();
    if !choices::cuda_versions().contains(&props.cuda) {
        // A link can name any CUDA version; the select shows it.
        cudas.push(ChoiceOption::new(
            props.cuda.to_string(),
            format!("CUDA {} (from the link)", props.cuda),
        ));
    }
    let cubin_default = if default_cubins(props.release) {
        "yes: flashinfer-cubin or a networked machine"
    } else {
        "no"
    };
    let cubins = vec![
        ChoiceOption::new("", format!("default ({cubin_default})")),
        ChoiceOption::new("true", "yes: flashinfer-cubin or artifactory reachable"),
        ChoiceOption::new("false", "no: offline, no flashinfer-cubin"),
    ];
    let pin = props.release.flashinfer_pin();
    let flashinfers: Vec<ChoiceOption> = std::iter::once(ChoiceOption::new("", format!("as pinned ({pin})")))
        .chain(
            FlashInfer::ALL
                .iter()
                .filter(|f| **f != pin)
                .map(|f| ChoiceOption::new(f.name(), f.name())),
        )
        .collect();
    let flashinfer = AttrValue::from(props.flashinfer.filter(|f| *f != pin).map_or("", |f| f.name()));
    html! {
        <fieldset class="row">
            <legend>{ "This machine" }</legend>
            { labeled_select("CUDA of the torch build", "cuda", cudas, AttrValue::from(props.cuda.to_string()), props.oncuda.clone()) }
            { labeled_select("TRTLLM cubins available", "cubins", cubins, AttrValue::from(opt_bool(props.cubins)), props.oncubins.reform(|v: String| parse_opt_bool(&v))) }
            { labeled_select("FlashInfer installed", "flashinfer", flashinfers, AttrValue::from(flashinfer), props.onflashinfer.clone()) }
            <p class="hint">
                { format!("Defaults: CUDA {DEFAULT_CUDA} (yours is what ") }
                <code>{ "python -c 'import torch; print(torch.version.cuda)'" }</code>
                { format!(
                    " prints); TRTLLM cubins available (the flashinfer-cubin package is installed, or the machine can \
                     download them); FlashInfer {pin}, the version vLLM {} pins.",
                    props.release.name()
                ) }
            </p>
        </fieldset>
    }
}
