//! Collects a group's decision steps, warnings and log lines while the rules run.

use std::borrow::Cow;

use crate::release::{FlashInfer, Release};
use crate::report::{LogLevel, LogRecord, TraceStep, UNVERIFIED_RULE};
use crate::source::Cite;

#[derive(Debug)]
pub struct Trace {
    pub release: Release,
    /// The FlashInfer installed: FlashInfer citations resolve at it.
    pub flashinfer: FlashInfer,
    pub steps: Vec<TraceStep>,
    pub warnings: Vec<String>,
    pub logs: Vec<String>,
    /// `logs` with the level and line of each `logger.` call.
    pub records: Vec<LogRecord>,
}

impl Trace {
    pub fn new(release: Release) -> Self {
        Self {
            release,
            flashinfer: release.flashinfer_pin(),
            steps: Vec::new(),
            warnings: Vec::new(),
            logs: Vec::new(),
            records: Vec::new(),
        }
    }

    /// Records a step that restates `cite` in this release (or qpath's own bookkeeping when `cite` is `None`).
    pub fn step(&mut self, cite: Option<&Cite>, rule: impl Into<Cow<'static, str>>, outcome: impl Into<Cow<'static, str>>) {
        let at = cite.and_then(|c| c.at_with(self.release, self.flashinfer));
        self.steps.push(TraceStep::new(rule, outcome, at));
    }

    /// Records a prediction beyond what the Python source decides (derived from it, not run): no source line, the
    /// rule [`UNVERIFIED_RULE`], and [`TraceStep::unverified`] set.
    pub fn unverified(&mut self, outcome: impl Into<Cow<'static, str>>) {
        self.steps.push(TraceStep {
            rule: Cow::Borrowed(UNVERIFIED_RULE),
            outcome: outcome.into(),
            at: None,
            unverified: true,
        });
    }

    /// A vLLM `logger.warning*` line, logged by the call `cite` names: in `warnings`, and in `logs` in the order vLLM
    /// prints it.
    pub fn warn(&mut self, cite: &Cite, text: impl Into<String>) {
        let text = text.into();
        self.warnings.push(text.clone());
        self.log(LogLevel::Warning, cite, text);
    }

    /// A vLLM `logger.info*` line, logged by the call `cite` names.
    pub fn info(&mut self, cite: &Cite, text: impl Into<String>) {
        self.log(LogLevel::Info, cite, text.into());
    }

    /// A vLLM `logger.error` line, logged by the call `cite` names.
    pub fn error(&mut self, cite: &Cite, text: impl Into<String>) {
        self.log(LogLevel::Error, cite, text.into());
    }

    fn log(&mut self, level: LogLevel, cite: &Cite, text: String) {
        self.logs.push(text.clone());
        let at = (self.release, self.flashinfer);
        self.records.push(LogRecord::new(level, cite, at, text));
    }
}
