//! The page's state: one [`Page`] value changed only by [`Action`]s (yew's `Reducible`). The `vllm serve` command line
//! is the state of the flags: controls edit it (through the last command line that parsed) and the page re-derives
//! everything else (the parsed flags, the report) in render.

use std::fmt::Display;
use std::rc::Rc;
use std::str::FromStr;

use qpath_core::capability::{ComputeCapability, CudaVersion};
use qpath_core::choices;
use qpath_core::gpu::{self, Gpu, GpuFilter};
use qpath_core::matrix::MatrixMode;
use qpath_core::release::{FlashInfer, Release};
use qpath_core::resolve::{Hardware, Scenario, DEFAULT_CUDA};
use qpath_core::serve::{self, ServeCommand, SpeculativeConfig};
use yew::Reducible;

use crate::hash;

/// The scenario a first visit shows (the page before any link or control changed it): an FP8 KV cache on an L4,
/// whose FP8 queries crashed FlashInfer's fa2 prefill in the 0.25.0 prefix release, at the newest release. This is the
/// page's opening story, not a default: a link (opened, or typed into the address bar) or an element that leaves the
/// GPU out, or names one qpath does not know, gets the core's default GPU (`qpath_core::options`, as the CLI and the
/// JS API do); only an empty hash opens the story.
pub const FIRST_VISIT_COMMAND: &str = "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8";
pub const FIRST_VISIT_GPU: &str = "l4";

/// How the URL should record a change: a new history entry for a discrete choice, a replacement while typing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum History {
    Push,
    Replace,
}

/// What the results column shows (in the link as `view=`).
pub use crate::hash::View;

/// A pasted vLLM log, read and applied to the scenario (not in the link: a log is too large for one). The text itself
/// is not kept: the textarea holds it, and the reading holds what the comparison needs.
#[derive(Clone, Debug, PartialEq)]
pub struct PastedLog {
    pub reading: qpath_core::explain_log::LogReading,
    pub built: qpath_core::explain_log::Built,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Page {
    pub view: View,
    /// The release chosen to put beside [`Page::release`] in the compare view (`None`: its neighbour, see
    /// [`Page::compare_target`]).
    pub compare_release: Option<Release>,
    /// What the matrix view shows: FlashInfer's grid or the backend vLLM picks (kept while the view changes).
    pub matrix_mode: MatrixMode,
    /// The matrix shows only the GPUs of this architecture (`None`: every GPU).
    pub matrix_arch: Option<String>,
    /// What the last matrix cell click changed ("GPU l4 → h100-sxm, --kv-cache-dtype auto → fp8"), said in a polite
    /// live region until the next action.
    pub pick_note: Option<String>,
    pub filter: GpuFilter,
    pub gpu: &'static Gpu,
    pub release: Release,
    pub cuda: CudaVersion,
    /// TRTLLM cubins: `None` = the default (available).
    pub cubins: Option<bool>,
    /// The installed FlashInfer: `None` = the release's pin.
    pub flashinfer: Option<FlashInfer>,
    /// A flashinfer-python from a link that qpath does not model (`0.6.15.post1`): `flashinfer` runs it; cleared by the
    /// select.
    pub flashinfer_version: Option<String>,
    /// A vLLM version from a link that is not a known release (a nightly): `release` runs it; cleared by the select.
    pub vllm_version: Option<String>,
    /// The command line as the user wrote it (or as the controls last formatted it).
    pub command: String,
    /// The last command line that parsed, which the controls show and edit; shared, not copied, with the fieldsets
    /// that show it (which compare it by pointer).
    pub last_valid: Rc<ServeCommand>,
    /// A model's config.json, pasted or dropped: read instead of the preset (`Scenario::model_config`).
    pub model_config: Option<String>,
    /// Messages about input the page could not use (a malformed link, …).
    pub notices: Vec<String>,
    pub history: History,
    /// Shown in another page's `<iframe>` (`embed=1` in the hash): no chrome, size and state posted to the parent.
    pub embed: bool,
    /// `theme=` of the link (`light`, `dark`, `auto`): applied over the remembered theme, not remembered.
    pub theme: Option<String>,
    /// `origin=` of the link: the embedding page's origin, the only one an iframe posts its state to.
    pub origin: Option<String>,
    /// The last log pasted into the log view, read.
    pub log: Option<Rc<PastedLog>>,
    /// Why the last command line typed, pasted or dropped was not taken (over [`serve::limits::MAX_COMMAND_LINE_BYTES`]):
    /// the command box says it; the command line before it stays.
    pub command_refused: Option<String>,
    /// Why the last config.json was not taken (over [`serve::limits::MAX_CONFIG_JSON_BYTES`]): its box says it.
    pub config_refused: Option<String>,
}

/// One change a control makes to the flags; applied to [`Page::last_valid`] and formatted back into the command line.
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    Model(String),
    KvCacheDtype(String),
    SkipLayers(Vec<String>),
    AttentionBackend(Option<String>),
    UseTrtllm(Option<bool>),
    DisableQQuant(bool),
    Dcp(u32),
    BlockSize(Option<u32>),
    BatchInvariant(bool),
    /// The number of speculative tokens (`None`: speculative decoding off). Keeps the speculative config's method and
    /// model; without a config, the page's default method ([`choices::speculative_config`]).
    SpeculativeTokens(Option<u32>),
    /// The speculative method (`None`: off), with the tokens already set (else 1) and, for a method that takes a
    /// drafter model, the model already set when it is one the page lists for the method, else the first listed.
    SpeculativeMethod(Option<String>),
    /// The drafter model of the speculative config (`None`: none).
    SpeculativeModel(Option<String>),
    HfOverride(String, Option<serde_json::Value>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    SetText(String),
    SetArch(Option<String>),
    SetCapability(Option<ComputeCapability>),
    SetFp8(Option<bool>),
    SetFp4(Option<bool>),
    SetMinMemory(Option<u32>),
    ClearFilters,
    SelectGpu(&'static Gpu),
    SetRelease(Release),
    SetCuda(CudaVersion),
    SetCubins(Option<bool>),
    /// The installed FlashInfer (`None`: the release's pin).
    SetFlashInfer(Option<FlashInfer>),
    /// The command line typed or pasted.
    SetCommand(String),
    /// A vLLM log pasted into the log view: its GPU, release, FlashInfer, CUDA and command line replace the page's
    /// where it gives them (one step: back undoes it); blank text clears it.
    PasteLog(String),
    /// A fix finder's suggestion applied: its release, installed FlashInfer and command line, in one step (back
    /// undoes it).
    ApplyFix(Release, Option<FlashInfer>, String),
    /// A model's config.json pasted, typed or dropped (`None` or blank text: cleared, the preset again).
    SetModelConfig(Option<String>),
    /// A config.json file dropped that is too large to read (its name and size in bytes): refused unread.
    ConfigFileTooLarge(String, u64),
    Edit(Edit),
    /// A hash from the address bar (first load, back/forward, a pasted link).
    LoadHash(String),
    DismissNotices,
    SetView(View),
    SetCompareRelease(Release),
    /// The matrix view's mode.
    SetMatrixMode(MatrixMode),
    /// The matrix view's architecture filter (`None`: every GPU).
    SetMatrixArch(Option<String>),
    /// A matrix cell: this GPU with this `--kv-cache-dtype`, back to the explainer.
    PickCell(&'static Gpu, String),
    /// A message about input the page could not use (a value a select reported that is not one qpath knows).
    Notice(String),
}

impl Action {
    /// The action for `value`, chosen in the select of `what`: `make` of the parsed value, or a notice naming the value
    /// when it does not parse (the state then keeps its previous choice). `make` is a function pointer, not a closure,
    /// so the page's selects share one copy per parsed type.
    pub fn parsed<T: FromStr>(what: &str, value: &str, make: fn(T) -> Action) -> Action
    where
        T::Err: Display,
    {
        match value.parse() {
            Ok(v) => make(v),
            Err(e) => Action::Notice(format!(
                "The {what} `{}` is not one qpath knows ({}); the previous choice is kept.",
                qpath_core::options::echo(value),
                qpath_core::options::echo(&e.to_string())
            )),
        }
    }
}

impl Default for Page {
    fn default() -> Self {
        let mut page = Page::unparsed();
        page.last_valid = Rc::new(serve::parse(page.release, FIRST_VISIT_COMMAND).unwrap_or_default());
        page
    }
}

impl Page {
    /// [`Page::default`] without its parse of the command line: `last_valid` is the empty command until the caller
    /// parses one (a parse is about a tenth of the page's start-up; [`Page::from_link`] needs one, not two).
    fn unparsed() -> Page {
        let release = Release::LATEST;
        Page {
            view: View::Explain,
            compare_release: None,
            matrix_mode: MatrixMode::default(),
            matrix_arch: None,
            pick_note: None,
            filter: GpuFilter::default(),
            gpu: gpu::find(FIRST_VISIT_GPU).unwrap_or(&gpu::GPUS[0]),
            release,
            cuda: DEFAULT_CUDA,
            cubins: None,
            flashinfer: None,
            flashinfer_version: None,
            vllm_version: None,
            command: FIRST_VISIT_COMMAND.to_string(),
            last_valid: Rc::default(),
            model_config: None,
            notices: vec![],
            history: History::Replace,
            embed: false,
            theme: None,
            origin: None,
            log: None,
            command_refused: None,
            config_refused: None,
        }
    }
}

impl Page {
    /// The page a hash describes: defaults, overridden by each usable key; problems become notices.
    pub fn from_hash(h: &str) -> Page {
        Page::from_link(hash::parse(h))
    }

    /// The page a [`hash::Link`] describes (a hash, or the attributes of a `<qpath-explainer>` element).
    pub fn from_link(link: hash::Link) -> Page {
        let mut page = Page::unparsed();
        if link.names_a_scenario() && link.gpu.is_none() {
            page.gpu = qpath_core::options::default_gpu();
        }
        // apply_link parses the link's command line (or the first visit's) at its release; when that fails,
        // last_valid is the default's, the first visit's command at the latest release.
        if !page.apply_link(link) {
            page.last_valid = Page::default().last_valid;
        }
        page
    }

    /// Whether the command line parsed (then it is `last_valid`).
    fn apply_link(&mut self, link: hash::Link) -> bool {
        if let Some(g) = link.gpu {
            self.gpu = g;
        }
        if let Some(r) = link.release {
            self.release = r;
        }
        if let Some(c) = link.cuda {
            self.cuda = c;
        }
        self.cubins = link.cubins;
        self.flashinfer = link.flashinfer;
        self.flashinfer_version = link.flashinfer_version;
        self.vllm_version = link.vllm_version;
        self.embed = link.embed;
        self.theme = link.theme;
        self.origin = link.origin;
        self.model_config = link.config;
        self.view = link.view.unwrap_or_default();
        self.compare_release = link.compare;
        self.matrix_mode = link.matrix_mode.unwrap_or_default();
        self.matrix_arch = link.matrix_arch;
        if let Some(cmd) = link.cmd {
            self.command = cmd;
        }
        self.notices = link.problems;
        self.reparse()
    }

    /// The scenario the page shows.
    pub fn scenario(&self) -> Scenario {
        Scenario {
            hardware: Hardware::Gpu(self.gpu),
            release: self.release,
            cuda: self.cuda,
            trtllm_cubins: self.cubins,
            command_line: self.command.clone(),
            model_config: self.model_config.clone(),
            // The page reads drafters from its presets only (a drafter's config.json: the CLI and the core).
            draft_model_config: None,
            flashinfer: self.flashinfer,
            vllm_version: self.vllm_version.clone(),
            flashinfer_version: self.flashinfer_version.clone(),
        }
    }

    /// The release the compare view puts beside [`Page::release`]: the one chosen, else the neighbouring release.
    pub fn compare_target(&self) -> Release {
        self.compare_release
            .unwrap_or_else(|| hash::neighbouring_release(self.release))
    }

    /// The scenario the compare view puts beside [`Page::scenario`]: the same one at [`Page::compare_release`].
    pub fn compare_scenario(&self) -> Scenario {
        Scenario {
            release: self.compare_target(),
            vllm_version: None,
            ..self.scenario()
        }
    }

    /// The hash of this state; `embed=1`, `theme=` and `origin=` (what the embedder set) come first, so a reload stays
    /// as embedded, then the view's state ([`hash::format_view`]).
    pub fn hash(&self) -> String {
        let h = hash::format(
            self.gpu,
            self.release,
            self.vllm_version.as_deref(),
            self.cuda,
            self.cubins,
            self.flashinfer_version.as_deref().or(self.flashinfer.map(FlashInfer::name)),
            &self.shared_command().0,
            self.model_config.as_deref(),
        );
        let mut front = String::new();
        if self.embed {
            front.push_str("embed=1&");
        }
        if let Some(t) = &self.theme {
            front.push_str(&format!("theme={}&", hash::form_encode(t)));
        }
        if let Some(o) = &self.origin {
            front.push_str(&format!("origin={}&", hash::form_encode(o)));
        }
        front.push_str(&hash::format_view(
            self.view,
            self.compare_release,
            self.matrix_mode,
            self.matrix_arch.as_deref(),
        ));
        format!("#{front}{}", &h[1..])
    }

    /// The command line as links, Markdown and messages carry it (the values of environment variables qpath does not
    /// read dropped), and the names whose values were dropped.
    pub fn shared_command(&self) -> (String, Vec<String>) {
        serve::without_unread_env(&self.command)
    }

    /// Whether [`Page::hash`] misses the pasted config.json because it is too large for a link.
    pub fn config_too_large(&self) -> bool {
        self.model_config
            .as_deref()
            .is_some_and(|c| hash::minify_json(c).is_some() && !hash::carries_config(&self.hash()))
    }

    /// Reads a pasted log and takes from it what it gives (see [`Action::PasteLog`]); a release qpath cannot model
    /// changes nothing but the log view, which says so.
    fn paste_log(&mut self, text: &str) {
        use qpath_core::explain_log::{self, CommandSource};
        if text.trim().is_empty() {
            self.log = None;
            return;
        }
        let reading = explain_log::read(text);
        let fallback = qpath_core::options::ScenarioOptions {
            gpu: Some(self.gpu),
            compute_capability: None,
            release: Some(self.release),
            cuda: Some(self.cuda),
            cubins: self.cubins,
            flashinfer: self.flashinfer,
            flashinfer_version: self.flashinfer_version.clone(),
            vllm_version: self.vllm_version.clone(),
        };
        let built = explain_log::build(&reading, &fallback, &self.command);
        if built.cannot_model.is_none() {
            let o = &built.options;
            self.gpu = o.gpu_or_default();
            self.release = o.release_or_default();
            self.vllm_version = o.vllm_version.clone();
            self.flashinfer = o.flashinfer;
            self.flashinfer_version = o.flashinfer_version.clone();
            self.cuda = o.cuda_or_default();
            if built.command_from != CommandSource::None {
                self.set_command(built.command_line.clone());
            }
        }
        self.log = Some(Rc::new(PastedLog { reading, built }));
    }

    fn set_command(&mut self, text: String) {
        self.command = text;
        self.reparse();
    }

    /// Keeps `last_valid` in step with the command line when it parses (at the current release).
    /// Whether it parsed.
    fn reparse(&mut self) -> bool {
        match serve::parse(self.release, &self.command) {
            Ok(cmd) => {
                self.last_valid = Rc::new(cmd);
                true
            }
            Err(_) => false,
        }
    }

    fn edit(&mut self, e: Edit) {
        let c = Rc::make_mut(&mut self.last_valid);
        match e {
            Edit::Model(m) => c.model = m,
            Edit::KvCacheDtype(k) => c.kv_cache_dtype = k,
            Edit::SkipLayers(l) => c.kv_cache_dtype_skip_layers = l,
            Edit::AttentionBackend(b) => c.attention_backend = b,
            Edit::UseTrtllm(v) => c.attention_config.use_trtllm_attention = v,
            Edit::DisableQQuant(v) => c.attention_config.disable_flashinfer_q_quantization = v,
            Edit::Dcp(n) => c.decode_context_parallel_size = n.max(1),
            Edit::BlockSize(b) => c.block_size = b,
            Edit::BatchInvariant(on) => choices::set_batch_invariant(c, on),
            Edit::SpeculativeTokens(n) => c.speculative_config = speculative_tokens(self.release, c.speculative_config.take(), n),
            Edit::SpeculativeMethod(m) => c.speculative_config = speculative_method(c.speculative_config.take(), m),
            Edit::SpeculativeModel(m) => {
                if let Some(sc) = c.speculative_config.as_mut() {
                    sc.model = m;
                }
            }
            Edit::HfOverride(key, value) => {
                let map = c.hf_overrides.get_or_insert_with(Default::default);
                match value {
                    Some(v) => {
                        map.insert(key, v);
                    }
                    None => {
                        map.remove(&key);
                    }
                }
                if map.is_empty() {
                    c.hf_overrides = None;
                }
            }
        }
        self.command = serve::format(&self.last_valid);
    }
}

/// What a matrix cell click changed, for [`Page::pick_note`]: "GPU l4 → h100-sxm, --kv-cache-dtype auto → fp8", only
/// the parts that changed.
fn pick_note(old_gpu: &str, old_kv: &str, gpu: &str, kv: &str) -> String {
    let mut changed = Vec::new();
    if old_gpu != gpu {
        changed.push(format!("GPU {old_gpu} → {gpu}"));
    }
    if old_kv != kv {
        changed.push(format!("--kv-cache-dtype {old_kv} → {kv}"));
    }
    if changed.is_empty() {
        format!("The matrix cell is the current scenario (GPU {gpu}, --kv-cache-dtype {kv}); nothing changed.")
    } else {
        format!("From the matrix: {}. Back returns to the matrix.", changed.join(", "))
    }
}

/// "`what` has 2,097,152 bytes, more than the page reads: at most 262,144 (256 KiB, qpath_core::serve::limits::NAME);
/// the previous one is kept." for an input over its cap (`cap` bytes, the constant `name` of `serve::limits`).
pub fn too_large(what: &str, bytes: u64, cap: usize, name: &str) -> String {
    format!(
        "{what} has {} bytes, more than the page reads: at most {} ({} KiB, qpath_core::serve::limits::{name}); the \
         previous one is kept.",
        crate::hash::thousands(bytes),
        crate::hash::thousands(cap as u64),
        cap >> 10
    )
}

/// The speculative config after the tokens select chose `tokens`: `current` with that number (its method and model
/// kept, even a method the page does not list), or the page's default config when there is none; `None` turns it off.
fn speculative_tokens(release: Release, current: Option<SpeculativeConfig>, tokens: Option<u32>) -> Option<SpeculativeConfig> {
    let n = tokens?;
    match current {
        Some(sc) => Some(SpeculativeConfig {
            num_speculative_tokens: Some(n),
            ..sc
        }),
        None => choices::speculative_config(release, Some(n)),
    }
}

/// The speculative config after the method select chose `method` (`None`: off), through [`choices::drafter_config`].
fn speculative_method(current: Option<SpeculativeConfig>, method: Option<String>) -> Option<SpeculativeConfig> {
    let method = method?;
    let tokens = current.as_ref().and_then(|s| s.num_speculative_tokens).unwrap_or(1);
    let listed = choices::drafter_models(&method);
    let model = current
        .as_ref()
        .and_then(|s| s.model.as_deref())
        .filter(|m| listed.contains(m))
        .or(listed.first().copied());
    choices::drafter_config(current.as_ref(), Some(&method), tokens, model)
}

impl Reducible for Page {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        // The hash this state already wrote: an edited address bar fires popstate then hashchange, and after the first
        // loaded a bad link the page has replaced it with the corrected hash; loading that again would drop the notices
        // that name the bad parts.
        if matches!(&action, Action::LoadHash(h) if *h == self.hash()) {
            return self;
        }
        let mut next = (*self).clone();
        next.history = History::Push;
        next.pick_note = None;
        let f = &mut next.filter;
        match action {
            Action::SetText(t) => {
                f.text = t;
                next.history = History::Replace;
            }
            Action::SetArch(a) => f.arch = a,
            Action::SetCapability(c) => f.capability = c,
            Action::SetFp8(v) => f.fp8 = v,
            Action::SetFp4(v) => f.fp4 = v,
            Action::SetMinMemory(m) => f.min_memory_gb = m,
            Action::ClearFilters => *f = GpuFilter::default(),
            Action::SelectGpu(g) => next.gpu = g,
            Action::SetRelease(r) => {
                next.release = r;
                // A chosen compare release that is now the scenario's own gives way to the neighbour.
                if next.compare_release == Some(r) {
                    next.compare_release = None;
                }
                next.vllm_version = None;
                next.reparse();
            }
            Action::SetCuda(c) => next.cuda = c,
            Action::SetCubins(c) => next.cubins = c,
            Action::SetFlashInfer(f) => {
                next.flashinfer = f;
                next.flashinfer_version = None;
            }
            Action::SetCommand(t) => {
                next.history = History::Replace;
                let cap = serve::limits::MAX_COMMAND_LINE_BYTES;
                if t.len() > cap {
                    let what = too_large("The command line", t.len() as u64, cap, "MAX_COMMAND_LINE_BYTES");
                    next.command_refused = Some(what);
                    return next.into();
                }
                next.command_refused = None;
                next.set_command(t);
            }
            Action::PasteLog(text) => next.paste_log(&text),
            Action::ApplyFix(r, f, t) => {
                next.release = r;
                next.vllm_version = None;
                // A suggestion keeps an unmodelled installed version unless it changes the FlashInfer.
                if f != next.flashinfer {
                    next.flashinfer_version = None;
                }
                next.flashinfer = f;
                next.set_command(t);
            }
            Action::SetModelConfig(Some(c)) if c.len() > serve::limits::MAX_CONFIG_JSON_BYTES => {
                let cap = serve::limits::MAX_CONFIG_JSON_BYTES;
                next.config_refused = Some(too_large("The config.json", c.len() as u64, cap, "MAX_CONFIG_JSON_BYTES"));
                next.history = History::Replace;
            }
            Action::ConfigFileTooLarge(name, bytes) => {
                let what = format!("The dropped file `{}`", qpath_core::options::echo(&name));
                let cap = serve::limits::MAX_CONFIG_JSON_BYTES;
                next.config_refused = Some(too_large(&what, bytes, cap, "MAX_CONFIG_JSON_BYTES"));
                next.history = History::Replace;
            }
            Action::SetModelConfig(c) => {
                next.config_refused = None;
                // Clearing is a discrete choice (back restores the config); pasting and typing replace the entry.
                next.history = if c.is_some() { History::Replace } else { History::Push };
                next.model_config = c.filter(|c| !c.trim().is_empty());
                let too_large = next.config_too_large();
                let notice = hash::CONFIG_TOO_LARGE.to_string();
                if !too_large {
                    next.notices.retain(|n| *n != notice);
                } else if !self.config_too_large() && !next.notices.contains(&notice) {
                    next.notices.push(notice);
                }
            }
            Action::Edit(e) => {
                next.command_refused = None;
                next.edit(e);
            }
            Action::LoadHash(h) => {
                // The view and its state are in the hash; the GPU list's filter is not.
                let filter = next.filter.clone();
                next = Page::from_hash(&h);
                next.filter = filter;
                next.history = History::Replace;
            }
            Action::DismissNotices => next.notices.clear(),
            // A view and its choices are history entries: back returns to the previous view.
            Action::SetView(v) => next.view = v,
            Action::SetCompareRelease(r) => next.compare_release = Some(r),
            Action::SetMatrixMode(m) => next.matrix_mode = m,
            Action::SetMatrixArch(a) => next.matrix_arch = a,
            Action::PickCell(g, kv) => {
                let (old_gpu, old_kv) = (next.gpu.id, next.last_valid.kv_cache_dtype.clone());
                next.gpu = g;
                next.edit(Edit::KvCacheDtype(kv.clone()));
                next.view = View::Explain;
                next.pick_note = Some(pick_note(old_gpu, &old_kv, g.id, &kv));
            }
            Action::Notice(n) => {
                if !next.notices.contains(&n) {
                    next.notices.push(n);
                }
                next.history = History::Replace;
            }
        }
        next.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_edit_the_command_line() {
        let p = Rc::new(Page::default());
        let p = p.reduce(Action::Edit(Edit::KvCacheDtype("fp8_e5m2".into())));
        let p = p.reduce(Action::Edit(Edit::SkipLayers(vec!["0".into(), "sliding_window".into()])));
        let p = p.reduce(Action::Edit(Edit::UseTrtllm(Some(false))));
        let p = p.reduce(Action::Edit(Edit::BatchInvariant(true)));
        assert!(p.command.contains("--kv-cache-dtype fp8_e5m2"), "{}", p.command);
        assert!(
            p.command.contains("--kv-cache-dtype-skip-layers 0 sliding_window"),
            "{}",
            p.command
        );
        assert!(p.command.starts_with("VLLM_BATCH_INVARIANT=1 vllm serve"), "{}", p.command);
        let again = serve::parse(p.release, &p.command).unwrap();
        assert_eq!(again, *p.last_valid, "state → command line → state");
        assert_eq!(again.attention_config.use_trtllm_attention, Some(false));
    }

    #[test]
    fn the_drafter_section_edits_the_speculative_config() {
        let qwen = "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct";
        let p = Rc::new(Page::default()).reduce(Action::SetCommand(qwen.into()));
        let p = p.reduce(Action::Edit(Edit::SpeculativeMethod(Some("mtp".into()))));
        let p = p.reduce(Action::Edit(Edit::SpeculativeTokens(Some(2))));
        assert_eq!(
            p.command,
            format!(r#"{qwen} --speculative-config '{{"method": "mtp", "num_speculative_tokens": 2}}'"#)
        );
        // A method with a drafter model takes the first one listed; the tokens stay.
        let e = p.clone().reduce(Action::Edit(Edit::SpeculativeMethod(Some("eagle3".into()))));
        let sc = e.last_valid.speculative_config.clone().unwrap();
        assert_eq!(
            (sc.method.as_deref(), sc.model.as_deref(), sc.num_speculative_tokens),
            (Some("eagle3"), Some("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"), Some(2))
        );
        // Off removes the flag; tokens without a config take the page's default method.
        let off = e.reduce(Action::Edit(Edit::SpeculativeMethod(None)));
        assert_eq!(off.command, qwen);
        let t = off.reduce(Action::Edit(Edit::SpeculativeTokens(Some(3))));
        assert_eq!(
            t.last_valid.speculative_config.as_ref().unwrap().method.as_deref(),
            Some("ngram")
        );
        // A method the page does not list stays when the tokens change.
        let typed = format!(r#"{qwen} --speculative-config '{{"method":"qwen3_next_mtp","num_speculative_tokens":1}}'"#);
        let u = Rc::new(Page::default()).reduce(Action::SetCommand(typed));
        let u = u.reduce(Action::Edit(Edit::SpeculativeTokens(Some(4))));
        let sc = u.last_valid.speculative_config.clone().unwrap();
        assert_eq!(
            (sc.method.as_deref(), sc.num_speculative_tokens),
            (Some("qwen3_next_mtp"), Some(4))
        );
    }

    #[test]
    fn an_invalid_command_line_keeps_the_controls() {
        let p = Rc::new(Page::default()).reduce(Action::SetCommand("vllm serve x --no-such-flag".into()));
        assert!(serve::parse(p.release, &p.command)
            .unwrap_err()
            .to_string()
            .contains("--no-such-flag"));
        assert_eq!(p.last_valid.kv_cache_dtype, "fp8", "the last valid flags stay");
    }

    #[test]
    fn state_to_hash_to_state() {
        let p = Rc::new(Page::default())
            .reduce(Action::SelectGpu(gpu::find("h100-sxm").unwrap()))
            .reduce(Action::SetRelease(Release::V0_25_0Prefix))
            .reduce(Action::SetCubins(Some(false)))
            .reduce(Action::SetFlashInfer(Some(FlashInfer::F0_6_18)))
            .reduce(Action::Edit(Edit::Dcp(2)));
        let q = Page::from_hash(&p.hash());
        assert_eq!(
            (q.gpu.id, q.release, q.cuda, q.cubins, q.flashinfer, &q.command),
            (p.gpu.id, p.release, p.cuda, p.cubins, p.flashinfer, &p.command)
        );
        // A nightly from a link runs as its release and keeps its version until the release select changes.
        let n = Rc::new(Page::from_hash("#gpu=h100-sxm&vllm=0.34.0.dev3&cmd=vllm+serve+m"));
        assert_eq!((n.release, n.vllm_version.as_deref()), (Release::LATEST, Some("0.34.0.dev3")));
        assert!(n.hash().contains("vllm=0.34.0.dev3&"), "{}", n.hash());
        let n = n.reduce(Action::SetRelease(Release::V0_30_0));
        assert_eq!(n.vllm_version, None);
        assert_eq!(q.last_valid, p.last_valid);
        assert!(!p.hash().contains("embed"));
    }

    #[test]
    fn links_carry_no_unread_env_values() {
        let p = Rc::new(Page::default()).reduce(Action::SetCommand(
            "HF_TOKEN=hf_SECRET VLLM_BATCH_INVARIANT=1 vllm serve meta-llama/Llama-3.1-8B-Instruct".into(),
        ));
        assert!(p.command.contains("hf_SECRET"), "the text box keeps what was typed");
        assert!(!p.hash().contains("SECRET"), "{}", p.hash());
        assert!(
            p.hash().contains("HF_TOKEN%3D%E2%80%A6+VLLM_BATCH_INVARIANT%3D1+vllm"),
            "{}",
            p.hash()
        );
        assert_eq!(p.shared_command().1, ["HF_TOKEN"]);
        let q = Page::from_hash(&p.hash());
        assert_eq!(q.last_valid.env_flag("VLLM_BATCH_INVARIANT"), Ok(Some(true)));
    }

    #[test]
    fn embed_mode_stays_in_the_hash() {
        let p = Page::from_hash("#embed=1&gpu=l4&vllm=0.25.0");
        assert!(p.embed && p.notices.is_empty(), "{:?}", p.notices);
        assert!(p.hash().starts_with("#embed=1&gpu=l4&vllm=0.25.0&"), "{}", p.hash());
        assert!(Page::from_hash(&p.hash()).embed);
        // The embedder's theme and origin stay in the hash too, and leave the scenario alone.
        let p = Page::from_hash("#embed=1&theme=dark&origin=https%3A%2F%2Fdocs.example.com&gpu=l4");
        assert!(
            p.hash()
                .starts_with("#embed=1&theme=dark&origin=https:%2F%2Fdocs.example.com&gpu=l4&"),
            "{}",
            p.hash()
        );
        let q = Page::from_hash(&p.hash());
        assert_eq!(
            (q.theme.as_deref(), q.origin.as_deref()),
            (Some("dark"), Some("https://docs.example.com"))
        );
        assert_eq!(Page::from_hash("#theme=dark").gpu.id, FIRST_VISIT_GPU);
    }

    #[test]
    fn a_bad_link_keeps_its_valid_parts() {
        let p = Page::from_hash("#gpu=nope&vllm=0.26.0&cmd=vllm+serve+Qwen%2FQwen3-8B");
        assert_eq!(p.release, Release::V0_26_0);
        // A link opened anew that names no usable GPU shows the core's default GPU; no link is the first visit.
        assert_eq!(p.gpu.id, qpath_core::options::DEFAULT_GPU);
        assert_eq!(Page::from_hash("").gpu.id, FIRST_VISIT_GPU);
        assert_eq!(Page::from_hash("#vllm=0.25.0").gpu.id, qpath_core::options::DEFAULT_GPU);
        assert_eq!(p.last_valid.model, "Qwen/Qwen3-8B");
        assert_eq!(p.notices.len(), 1);
    }

    #[test]
    fn a_value_that_does_not_parse_is_named_and_the_choice_stays() {
        let p = Rc::new(Page::default()).reduce(Action::SetCompareRelease(Release::V0_26_0));
        let p = p.reduce(Action::parsed("release to compare with", "9.9.9", Action::SetCompareRelease));
        assert_eq!(p.compare_release, Some(Release::V0_26_0));
        assert_eq!(p.notices.len(), 1, "{:?}", p.notices);
        assert!(p.notices[0].contains("`9.9.9`"), "{:?}", p.notices);
        let p = p.reduce(Action::parsed("release to compare with", "0.25.0", Action::SetCompareRelease));
        assert_eq!(p.compare_release, Some(Release::V0_25_0));
    }

    #[test]
    fn a_pasted_config_json_is_in_the_scenario_and_the_link() {
        let config = "{\n  \"architectures\": [\"LlamaForCausalLM\"],\n  \"num_hidden_layers\": 4\n}";
        let p = Rc::new(Page::default()).reduce(Action::SelectGpu(gpu::find("h100-sxm").unwrap()));
        let p = p.reduce(Action::SetModelConfig(Some(config.into())));
        assert_eq!(p.scenario().model_config.as_deref(), Some(config));
        assert_eq!(p.compare_scenario().model_config.as_deref(), Some(config));
        assert!(
            p.hash()
                .ends_with("&config=%7B%22architectures%22:%5B%22LlamaForCausalLM%22%5D,%22num_hidden_layers%22:4%7D"),
            "{}",
            p.hash()
        );
        assert!(!p.config_too_large() && p.notices.is_empty());
        // The link gives the config back (minified), with the rest of the state.
        let q = Page::from_hash(&p.hash());
        assert_eq!(
            q.model_config.as_deref(),
            Some(r#"{"architectures":["LlamaForCausalLM"],"num_hidden_layers":4}"#)
        );
        assert_eq!((q.gpu.id, &q.command), (p.gpu.id, &p.command));
        // Clearing (or blank text) goes back to the preset and out of the link; the rest stays.
        let c = p.clone().reduce(Action::SetModelConfig(Some("  \n".into())));
        assert_eq!((c.model_config.clone(), c.gpu.id), (None, "h100-sxm"));
        assert!(!hash::carries_config(&c.hash()));
        assert_eq!(p.reduce(Action::SetModelConfig(None)).model_config, None);
    }

    #[test]
    fn a_config_too_large_for_a_link_is_said_once() {
        let big = format!(
            r#"{{"architectures": ["LlamaForCausalLM"], "pad": "{}"}}"#,
            "x".repeat(hash::MAX_HASH)
        );
        let p = Rc::new(Page::default()).reduce(Action::SetModelConfig(Some(big.clone())));
        assert!(p.config_too_large() && !hash::carries_config(&p.hash()));
        assert_eq!(p.notices, vec![hash::CONFIG_TOO_LARGE.to_string()]);
        assert_eq!(
            p.scenario().model_config.as_deref(),
            Some(big.as_str()),
            "the page still reads it"
        );
        // Typing on in a config that stays too large does not say it again once dismissed.
        let p = p
            .reduce(Action::DismissNotices)
            .reduce(Action::SetModelConfig(Some(format!("{big} "))));
        assert!(p.notices.is_empty(), "{:?}", p.notices);
        // A config that fits again takes the notice away.
        let p = p
            .reduce(Action::SetModelConfig(Some(big)))
            .reduce(Action::SetModelConfig(Some("{}".into())));
        assert!(p.notices.is_empty() && hash::carries_config(&p.hash()), "{:?}", p.notices);
    }

    #[test]
    fn views_and_their_state_survive_the_link() {
        let l4 = gpu::find("l4").unwrap();
        let p = Rc::new(Page::default()).reduce(Action::SetView(View::Compare));
        assert_eq!(p.history, History::Push, "a view is a history entry");
        // Compare defaults to the neighbouring release, never the scenario's own.
        assert_eq!(
            (p.release, p.compare_target()),
            (Release::LATEST, hash::neighbouring_release(Release::LATEST))
        );
        assert_ne!(p.compare_scenario().release, p.release);
        let q = Page::from_hash(&p.hash());
        assert_eq!((q.view, q.compare_target()), (View::Compare, p.compare_target()));
        let p = p.reduce(Action::SetCompareRelease(Release::V0_25_0Prefix));
        let q = Page::from_hash(&p.hash());
        assert_eq!((q.view, q.compare_release), (View::Compare, Some(Release::V0_25_0Prefix)));
        // Choosing the compare release as the scenario's own gives the neighbour back.
        let r = p.clone().reduce(Action::SetRelease(Release::V0_25_0Prefix));
        assert_eq!((r.compare_release, r.compare_target()), (None, Release::V0_25_0));
        // The matrix with its mode and filter.
        let m = p
            .reduce(Action::SetView(View::Matrix))
            .reduce(Action::SetMatrixMode(MatrixMode::Picked))
            .reduce(Action::SetMatrixArch(Some("Hopper".into())));
        let q = Page::from_hash(&m.hash());
        assert_eq!(
            (q.view, q.matrix_mode, q.matrix_arch.as_deref(), q.gpu.id, &q.command),
            (View::Matrix, MatrixMode::Picked, Some("Hopper"), l4.id, &m.command)
        );
        assert!(q.notices.is_empty(), "{:?}", q.notices);
        // Back/forward load a hash: its view comes with it; an old link without a view opens Explain.
        let back = m.clone().reduce(Action::LoadHash(p_hash_without_view(&m.hash())));
        assert_eq!((back.view, back.matrix_mode), (View::Explain, MatrixMode::Picked));
        let forth = back.reduce(Action::LoadHash(m.hash()));
        assert_eq!((forth.view, forth.matrix_arch.as_deref()), (View::Matrix, Some("Hopper")));
        assert_eq!(Page::from_hash("#gpu=l4&vllm=0.25.0").view, View::Explain);
        // A bad view is named and the rest of the link kept.
        let b = Page::from_hash("#view=graph&gpu=h100-sxm&vllm=0.26.0");
        assert_eq!((b.view, b.gpu.id, b.release), (View::Explain, "h100-sxm", Release::V0_26_0));
        assert!(b.notices.len() == 1 && b.notices[0].contains("`graph`"), "{:?}", b.notices);
    }

    fn p_hash_without_view(h: &str) -> String {
        h.replace("view=matrix&", "")
    }

    #[test]
    fn a_matrix_cell_says_what_it_changed() {
        let p = Rc::new(Page::from_hash(
            "#view=matrix&gpu=l4&vllm=0.33.0&cmd=vllm+serve+m+--kv-cache-dtype+auto",
        ));
        let h100 = gpu::find("h100-sxm").unwrap();
        let picked = p.clone().reduce(Action::PickCell(h100, "fp8".into()));
        assert_eq!(
            picked.pick_note.as_deref(),
            Some("From the matrix: GPU l4 → h100-sxm, --kv-cache-dtype auto → fp8. Back returns to the matrix.")
        );
        assert_eq!((picked.view, picked.history), (View::Explain, History::Push));
        let l4 = gpu::find("l4").unwrap();
        let same_gpu = p.clone().reduce(Action::PickCell(l4, "fp8".into()));
        assert_eq!(
            same_gpu.pick_note.as_deref(),
            Some("From the matrix: --kv-cache-dtype auto → fp8. Back returns to the matrix.")
        );
        let same = p.reduce(Action::PickCell(l4, "auto".into()));
        assert!(same.pick_note.as_deref().unwrap().contains("nothing changed"));
        // The next action takes the note away.
        assert_eq!(picked.reduce(Action::SetView(View::Matrix)).pick_note, None);
    }

    #[test]
    fn input_over_its_cap_is_refused_and_the_last_state_kept() {
        let cap = serve::limits::MAX_COMMAND_LINE_BYTES;
        let p = Rc::new(Page::default());
        let huge = format!("vllm serve m --served-model-name {}", "x".repeat(cap));
        let q = p.clone().reduce(Action::SetCommand(huge));
        assert_eq!((&q.command, &q.last_valid), (&p.command, &p.last_valid));
        let said = q.command_refused.clone().unwrap_or_default();
        assert!(said.starts_with("The command line has 262,"), "{said}");
        assert!(
            said.contains("at most 262,144 (256 KiB, qpath_core::serve::limits::MAX_COMMAND_LINE_BYTES)"),
            "{said}"
        );
        // The next command line that fits is taken, and the message goes.
        let q = q.reduce(Action::SetCommand("vllm serve Qwen/Qwen3-8B".into()));
        assert_eq!(
            (q.command.as_str(), q.command_refused.as_deref()),
            ("vllm serve Qwen/Qwen3-8B", None)
        );
        // config.json: a paste or a dropped file over its cap keeps the config in use.
        let q = q.reduce(Action::SetModelConfig(Some("{}".into())));
        let big = " ".repeat(serve::limits::MAX_CONFIG_JSON_BYTES + 1);
        let r = q.clone().reduce(Action::SetModelConfig(Some(big)));
        assert_eq!(r.model_config.as_deref(), Some("{}"));
        assert!(r
            .config_refused
            .as_deref()
            .unwrap_or_default()
            .starts_with("The config.json has 16,777,217 bytes"));
        let r = q.reduce(Action::ConfigFileTooLarge("big.json".into(), 3 << 30));
        assert_eq!(
            r.config_refused.as_deref(),
            Some(
                "The dropped file `big.json` has 3,221,225,472 bytes, more than the page reads: at most 16,777,216 \
                 (16384 KiB, qpath_core::serve::limits::MAX_CONFIG_JSON_BYTES); the previous one is kept."
            )
        );
        assert_eq!(r.reduce(Action::SetModelConfig(None)).config_refused, None);
    }

    #[test]
    fn reloading_the_corrected_hash_keeps_the_notices() {
        let p = Rc::new(Page::from_hash("#gpu=nope&vllm=0.26.0&cmd=vllm+serve+Qwen%2FQwen3-8B"));
        let corrected = p.hash();
        let p = p.reduce(Action::LoadHash(corrected));
        assert_eq!(p.notices.len(), 1, "{:?}", p.notices);
        // Another hash is loaded as before.
        let p = p.reduce(Action::LoadHash("#gpu=l4".into()));
        assert!(p.notices.is_empty() && p.gpu.id == "l4");
    }
}
