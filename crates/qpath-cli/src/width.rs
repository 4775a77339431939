//! How wide a text answer is laid out: `--wide` (no wrapping), `--width N`, else the terminal's width when standard
//! output is a terminal, else 80 columns (a file, a pipe, a CI log). `--brief` keeps the verdict and the group table.
//! The terminal is asked once, by the binary ([`terminal_width`]); the library takes its answer as a value so that
//! tests choose it.

use qpath_core::columns::Layout;

/// The width of a text answer written anywhere but a terminal.
pub const NOT_A_TERMINAL: usize = 80;

/// The layout options as given on the command line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LayoutFlags {
    /// `--brief`
    pub brief: bool,
    /// `--wide`
    pub wide: bool,
    /// `--width N` (40 or more; clap checks)
    pub width: Option<usize>,
}

/// The layout for `flags` when standard output is a terminal `terminal` columns wide (`None`: not a terminal).
pub fn layout(flags: LayoutFlags, terminal: Option<usize>) -> Layout {
    let width = if flags.wide {
        None
    } else {
        Some(flags.width.or(terminal).unwrap_or(NOT_A_TERMINAL))
    };
    Layout {
        width,
        brief: flags.brief,
    }
}

/// Standard output's width when it is a terminal: `COLUMNS` when it holds a number (as shells and clap read it), else
/// the terminal's own size; `None` when standard output is not a terminal.
pub fn terminal_width(columns: Option<String>) -> Option<usize> {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return None;
    }
    let from_env = columns.and_then(|c| c.trim().parse::<usize>().ok()).filter(|&c| c > 0);
    from_env
        .or_else(|| terminal_size::terminal_size().map(|(w, _)| usize::from(w.0)))
        .or(Some(NOT_A_TERMINAL))
}

/// Each line of `text` fitted to `layout`'s width, broken only at blanks (a log line quoted in it keeps its words), its
/// continuation lines indented four columns past its own indent; unchanged without a width (`--wide`).
pub fn fit_lines(text: &str, layout: Layout) -> String {
    let Some(w) = layout.width else {
        return text.to_string();
    };
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        let body = line.strip_suffix('\n').unwrap_or(line);
        let indent = body.len() - body.trim_start_matches(' ').len();
        let rest = " ".repeat((indent + 4).min(w / 2));
        let wrapped = qpath_core::columns::wrap_hanging(body.trim_start_matches(' '), w, &body[..indent], &rest, &[]);
        out.push_str(if line.ends_with('\n') {
            &wrapped
        } else {
            wrapped.trim_end_matches('\n')
        });
    }
    out
}

/// `--brief` where it cannot shorten anything: with `--check` (one line already) or `--format json|markdown` (the whole
/// report, for a program or an issue), a refusal naming both options rather than a whole answer the user did not ask
/// for. The single scenario and explain-log only (matrix, timeline and fix lay out their own text). `--wide` and
/// `--width` lay out text only and are ignored by JSON, Markdown and `--check`, which are never wrapped.
pub fn refuse_brief(a: &crate::Args) -> Option<crate::UsageError> {
    if !a.layout.brief || a.matrix || a.timeline || a.fix {
        return None;
    }
    let other = if a.check {
        "--check"
    } else {
        match a.format {
            Some(crate::Format::Json) => "--format json",
            Some(crate::Format::Markdown) => "--format markdown",
            _ => return None,
        }
    };
    Some(crate::UsageError {
        message: format!(
            "--brief shortens the text report and cannot be used with {other} (which prints {}): drop one of them",
            if a.check { "one line already" } else { "the whole report" }
        ),
        show_usage: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fitted_lines_keep_their_words_and_indent_their_continuations() {
        let layout = Layout {
            width: Some(20),
            brief: false,
        };
        assert_eq!(
            fit_lines("= INFO one two three four five\n  x\n", layout),
            "= INFO one two three\n    four five\n  x\n"
        );
        assert_eq!(fit_lines("a b c", Layout::default()), "a b c");
    }

    #[test]
    fn wide_beats_the_terminal_and_a_pipe_gets_80_columns() {
        let flags = LayoutFlags::default();
        assert_eq!(layout(flags, None).width, Some(80));
        assert_eq!(layout(flags, Some(132)).width, Some(132));
        let given = LayoutFlags {
            width: Some(100),
            ..flags
        };
        assert_eq!(layout(given, Some(132)).width, Some(100));
        let wide = LayoutFlags { wide: true, ..flags };
        assert_eq!(layout(wide, Some(132)).width, None);
        assert!(layout(LayoutFlags { brief: true, ..flags }, None).brief);
    }
}
