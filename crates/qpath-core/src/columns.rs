//! Plain text fitted to a terminal's width: words wrapped at blanks (and, inside table cells, after `,` `_` `-` `/`
//! `|`), and tables whose columns shrink, each cell wrapping inside its column, so that a row stays aligned whatever a
//! cell holds (an interleaved layer list, an MLA backend's name). Widths count `char`s: qpath's text is ASCII but for a
//! few arrows and dashes, each one column wide.
//!
//! The CLI's text report, matrix grid, timeline and fix lists use it ([`crate::render`]); the page lays text out with
//! CSS and does not.

/// How a text answer is laid out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    /// The columns every line fits in; `None`: no wrapping, one line per row, step and log line (`--wide`).
    pub width: Option<usize>,
    /// Only the verdict and the group table (`--brief`).
    pub brief: bool,
}

/// The characters after which a table cell may break besides a blank: a layer list's commas, a backend's or dtype's
/// underscores, a kernel's dashes, the `/` between a prefill and a decode value, the `|` between alternatives.
pub const CELL_BREAKS: &[char] = &[',', '_', '-', '/', '|'];

/// The blank between two table columns.
const GAP: &str = "  ";

fn is_break(c: char, breaks: &[char]) -> bool {
    c == ' ' || breaks.contains(&c)
}

/// The line without its trailing blanks.
fn finish(line: &[char]) -> String {
    let s: String = line.iter().collect();
    s.trim_end_matches(' ').to_string()
}

/// `text` wrapped to lines of at most `width` characters (at least 1). A line breaks at its last blank (dropped) or
/// after its last character in `breaks` that fits; a word longer than the width is cut at the width. Newlines in
/// `text` are kept; a paragraph's leading blanks are kept, a continuation line's are dropped. Never returns an empty
/// list (an empty text is one empty line).
pub fn wrap(text: &str, width: usize, breaks: &[char]) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    for para in text.split('\n') {
        let mut line: Vec<char> = Vec::new();
        let mut continuation = false;
        for c in para.chars() {
            if c == ' ' && continuation && line.is_empty() {
                continue;
            }
            line.push(c);
            while line.len() > width {
                // The longest prefix that ends after a break character and fits (a blank just past the width ends
                // the line by itself), else the width.
                let cut = (1..=width + 1)
                    .rev()
                    .find(|&n| {
                        let b = line[n - 1];
                        (n <= width && is_break(b, breaks)) || (n == width + 1 && b == ' ')
                    })
                    .unwrap_or(width);
                let rest = line.split_off(cut);
                lines.push(finish(&line));
                continuation = true;
                line = rest.into_iter().skip_while(|&c| c == ' ').collect();
            }
        }
        lines.push(finish(&line));
    }
    lines
}

fn len(s: &str) -> usize {
    s.chars().count()
}

/// `text` wrapped to `width` columns with `first` before its first line and `rest` before the others, each line
/// ending in `\n`; the first line has the room `first` leaves and the others the room `rest` leaves
/// (a long label before the first line does not narrow the rest). Lines break at blanks and `breaks`; each
/// line fits unless a prefix alone leaves less than one column.
pub fn wrap_hanging(text: &str, width: usize, first: &str, rest: &str, breaks: &[char]) -> String {
    let room_first = width.saturating_sub(len(first)).max(1);
    let room_rest = width.saturating_sub(len(rest)).max(1);
    let head = wrap(text, room_first, breaks).swap_remove(0);
    // The first line is a prefix of the text (wrap drops only the blanks it breaks at and trailing blanks).
    let tail = text.get(head.len()..).unwrap_or("").trim_start_matches(' ');
    let tail = tail.strip_prefix('\n').unwrap_or(tail);
    let mut out = format!("{first}{head}\n");
    if text.len() > head.len() && !text[head.len()..].trim().is_empty() {
        for l in wrap(tail, room_rest, breaks) {
            out.push_str(rest);
            out.push_str(&l);
            out.push('\n');
        }
    }
    out.lines().map(|l| l.trim_end().to_string() + "\n").collect()
}

/// The longest run of `cell` that wrapping with `breaks` cannot split (its narrowest possible width).
pub fn longest_piece(cell: &str, breaks: &[char]) -> usize {
    let mut longest = 0;
    let mut run = 0;
    for c in cell.chars() {
        if c == ' ' {
            run = 0;
            continue;
        }
        run += 1;
        longest = longest.max(run);
        if breaks.contains(&c) {
            run = 0;
        }
    }
    longest
}

/// A table of `head` and `rows` (each row as many cells as `head`), its columns two blanks apart, fitted to `width`
/// columns when given: columns keep their widest cell while the table fits; otherwise the column with the most room to give (its
/// width over its longest unbreakable piece) gives up a character at a time, so lists and prose wrap before names, and cells wrap inside their column (breaking at blanks
/// and [`CELL_BREAKS`]). `None` when even the narrowest columns do not fit (the caller lays the rows out another
/// way). The last column is not padded; every line ends in `\n`.
pub fn table(head: &[&str], rows: &[Vec<String>], width: Option<usize>) -> Option<String> {
    let n = head.len();
    let mut widths: Vec<usize> = head.iter().map(|h| len(h)).collect();
    let mut least: Vec<usize> = head.iter().map(|h| longest_piece(h, CELL_BREAKS)).collect();
    for row in rows {
        for (i, c) in row.iter().enumerate().take(n) {
            widths[i] = widths[i].max(len(c));
            least[i] = least[i].max(longest_piece(c, CELL_BREAKS));
        }
    }
    if let Some(width) = width {
        let total = |w: &[usize]| w.iter().sum::<usize>() + GAP.len() * n.saturating_sub(1);
        while total(&widths) > width {
            let widest = (0..n)
                .filter(|&i| widths[i] > least[i])
                .max_by_key(|&i| (widths[i] - least[i], i))?;
            widths[widest] -= 1;
        }
    }
    Some(table_with(head, rows, &widths, &[]))
}

/// A table of `head` and `rows` with the given column widths (one per column of `head`): each cell wraps inside its
/// column at blanks and the column's own break characters (`breaks[i]`; [`CELL_BREAKS`] for a column it does not
/// list: a layer list breaks only after its commas, never inside a range `4-6`); the columns two blanks apart, the
/// last not padded; every line ends in `\n`.
pub fn table_with(head: &[&str], rows: &[Vec<String>], widths: &[usize], breaks: &[&[char]]) -> String {
    let n = head.len();
    let mut out = String::new();
    let heads: Vec<String> = head.iter().map(|h| h.to_string()).collect();
    for row in std::iter::once(&heads).chain(rows.iter()) {
        let cells: Vec<Vec<String>> = (0..n)
            .map(|i| {
                let cell = row.get(i).map_or("", String::as_str);
                wrap(
                    cell,
                    widths.get(i).copied().unwrap_or(1),
                    breaks.get(i).copied().unwrap_or(CELL_BREAKS),
                )
            })
            .collect();
        let height = cells.iter().map(Vec::len).max().unwrap_or(1);
        for k in 0..height {
            let mut line = String::new();
            for (i, cell) in cells.iter().enumerate() {
                let text = cell.get(k).map_or("", String::as_str);
                if i + 1 < n {
                    line.push_str(&format!("{text:<w$}{GAP}", w = widths.get(i).copied().unwrap_or(1)));
                } else {
                    line.push_str(text);
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_at_blanks_and_cuts_long_words() {
        assert_eq!(wrap("aaa bbb ccc", 7, &[]), ["aaa bbb", "ccc"]);
        assert_eq!(wrap("aaa bbb ccc", 8, &[]), ["aaa bbb", "ccc"]);
        assert_eq!(wrap("aaaaaaaaaa", 4, &[]), ["aaaa", "aaaa", "aa"]);
        assert_eq!(wrap("", 4, &[]), [""]);
        assert_eq!(wrap("  indented text", 10, &[]), ["  indented", "text"]);
        assert_eq!(wrap("a\nb c", 3, &[]), ["a", "b c"]);
        assert_eq!(wrap("0,4,8,12,16", 5, CELL_BREAKS), ["0,4,", "8,12,", "16"]);
        assert_eq!(wrap("FLASHINFER_MLA_SPARSE", 12, CELL_BREAKS), ["FLASHINFER_", "MLA_SPARSE"]);
        for w in 1..30 {
            for l in wrap("the quick brown-fox jumps_over the lazy,dog", w, CELL_BREAKS) {
                assert!(l.chars().count() <= w, "{l:?} at {w}");
            }
        }
    }

    #[test]
    fn a_hanging_wrap_gives_each_line_the_room_its_prefix_leaves() {
        let s = wrap_hanging("one two three four five six", 20, "  a long label: ", "    ", &[]);
        assert_eq!(s, "  a long label: one\n    two three four\n    five six\n");
        assert_eq!(wrap_hanging("short", 20, "- ", "  ", &[]), "- short\n");
        assert_eq!(wrap_hanging("", 20, "- ", "  ", &[]), "-\n");
        assert_eq!(wrap_hanging("a\nb", 20, "- ", "  ", &[]), "- a\n  b\n");
        for w in 8..40 {
            for l in wrap_hanging(
                "vllm/model_executor/layers/x.py:12 and a b c d e f",
                w,
                "  1. ",
                "     ",
                &['/'],
            )
            .lines()
            {
                assert!(l.chars().count() <= w, "{l:?} at {w}");
            }
        }
    }

    #[test]
    fn a_table_shrinks_its_widest_column_and_stays_aligned() {
        let rows = vec![
            vec!["0,2,4,6,8,10,12,14".to_string(), "FLASHINFER".into()],
            vec!["1".to_string(), "TRITON_ATTN".into()],
        ];
        assert_eq!(
            table(&["layers", "backend"], &rows, None).unwrap(),
            "layers              backend\n0,2,4,6,8,10,12,14  FLASHINFER\n1                   TRITON_ATTN\n"
        );
        let t = table(&["layers", "backend"], &rows, Some(22)).unwrap();
        assert_eq!(
            t,
            "layers     backend\n0,2,4,6,   FLASHINFER\n8,10,12,\n14\n1          TRITON_ATTN\n"
        );
        assert!(t.lines().all(|l| l.chars().count() <= 22));
        assert_eq!(table(&["layers", "backend"], &rows, Some(8)), None);
    }
}
