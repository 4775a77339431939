//! `qpath models`: the model presets qpath carries (`data/models.toml`), one line each — the id `vllm serve` takes,
//! `architectures[0]`, the decoder layers and what the model is as qpath builds it (dense, sliding window, MLA,
//! hybrid) — or, with `--format json`, one object each. A model that is not a preset is read from its folder, from
//! `--model-config FILE` or from the local Hugging Face cache.

use qpath_core::model::{LayerTypesRule, ModelPreset, VllmModel, MODEL_PRESETS};

use crate::args::Format;

/// What a preset is, as qpath builds its attention layers: `dense`, `sliding window every 2nd layer full`,
/// `MLA (DeepSeek)`, `hybrid: gated delta net + attention`, … (from its model file and its layer rule).
pub fn kind(p: &ModelPreset) -> String {
    let sparse = p.config.contains("\"index_topk\"");
    let mut text = match p.vllm_model {
        VllmModel::DeepseekV2 if sparse => "MLA, sparse (DeepSeek sparse attention indexer)".to_string(),
        VllmModel::DeepseekV2 => "MLA (DeepSeek multi-head latent attention)".to_string(),
        VllmModel::Qwen3Next | VllmModel::Qwen3_5 => "hybrid: gated delta net + full attention".to_string(),
        VllmModel::NemotronH | VllmModel::GraniteMoeHybrid | VllmModel::FalconH1 => "hybrid: Mamba2 + full attention".to_string(),
        VllmModel::Jamba => "hybrid: Mamba + full attention".to_string(),
        VllmModel::Llama4 => "chunked local + full attention".to_string(),
        _ => match p.layer_types {
            LayerTypesRule::FullEvery(n) => format!("sliding window, every {} full", ordinal(n)),
            LayerTypesRule::AllSliding => "sliding window on every layer".to_string(),
            LayerTypesRule::Absent | LayerTypesRule::AllFull => match p.sliding_window {
                Some(w) => format!("sliding window {w} on every layer"),
                None => "dense, full attention".to_string(),
            },
        },
    };
    if p.architecture.contains("Eagle") {
        text = format!("EAGLE draft head; {text}");
    }
    if p.attention_sinks {
        text.push_str(", attention sinks");
    }
    if p.text_config {
        text.push_str(", multimodal (text_config)");
    }
    text
}

/// `2nd`, `6th` layer.
fn ordinal(n: u32) -> String {
    match n {
        1 => "layer".to_string(),
        2 => "2nd layer".to_string(),
        3 => "3rd layer".to_string(),
        n => format!("{n}th layer"),
    }
}

/// The `qpath models` answer.
pub fn models(f: Format) -> String {
    if f == Format::Json {
        let rows: Vec<serde_json::Value> = MODEL_PRESETS
            .iter()
            .map(|p| {
                serde_json::json!({
                    "id": p.id,
                    "architecture": p.architecture,
                    "model_type": p.model_type,
                    "layers": p.num_hidden_layers,
                    "kind": kind(p),
                    "vllm_model_file": p.vllm_model.file(),
                })
            })
            .collect();
        // Strings and numbers only: serialisation does not fail.
        return serde_json::to_string_pretty(&rows).unwrap_or_default() + "\n";
    }
    let id_width = MODEL_PRESETS.iter().map(|p| p.id.len()).max().unwrap_or(0);
    let arch_width = MODEL_PRESETS.iter().map(|p| p.architecture.len()).max().unwrap_or(0);
    let mut out = format!(
        "{:<id_width$}  {:<arch_width$}  {:>6}  what it is\n",
        "id", "architecture", "layers"
    );
    for p in MODEL_PRESETS {
        out.push_str(&format!(
            "{:<id_width$}  {:<arch_width$}  {:>6}  {}\n",
            p.id,
            p.architecture,
            p.num_hidden_layers,
            kind(p)
        ));
    }
    out.push_str(
        "any other model: its folder (vllm serve /path/to/model, with config.json),\n--model-config FILE, or the model \
         in the local Hugging Face cache\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_is_listed_with_its_kind() {
        let text = models(Format::Table);
        for p in MODEL_PRESETS {
            assert!(text.lines().any(|l| l.starts_with(p.id)), "{}", p.id);
        }
        let kind_of = |id: &str| kind(MODEL_PRESETS.iter().find(|p| p.id == id).unwrap());
        assert_eq!(
            kind_of("deepseek-ai/DeepSeek-R1"),
            "MLA (DeepSeek multi-head latent attention)"
        );
        assert!(kind_of("deepseek-ai/DeepSeek-V3.2").starts_with("MLA, sparse"));
        assert!(kind_of("Qwen/Qwen3-Next-80B-A3B-Instruct").starts_with("hybrid: gated delta net"));
        assert_eq!(kind_of("meta-llama/Llama-3.1-8B-Instruct"), "dense, full attention");
        assert!(
            kind_of("openai/gpt-oss-20b").ends_with("attention sinks"),
            "{}",
            kind_of("openai/gpt-oss-20b")
        );
        let json: serde_json::Value = serde_json::from_str(&models(Format::Json)).unwrap();
        assert_eq!(json.as_array().unwrap().len(), MODEL_PRESETS.len());
    }
}
