//! Markdown tables laid out in aligned columns.
//!
//! Columns are measured by display width (CJK and emoji take two columns), aligned as the
//! delimiter row says, and separated by ` │ `; the header is bold and underlined by a rule.
//! A table wider than the screen shrinks its widest columns first and wraps their cells; one
//! too narrow for even that falls back to one wrapped line per row.

use crate::theme;
use crate::wrap::{line_width, spans_width, wrap_spans};
use pulldown_cmark::Alignment;
use ratatui::text::{Line, Span};

/// Between two columns, and its display width.
const SEPARATOR: &str = " │ ";
const SEPARATOR_WIDTH: usize = 3;
/// Between two columns of the rule under the header.
const RULE_CROSS: &str = "─┼─";
/// Narrowest column worth wrapping into; below it the table falls back to rows of text.
const MIN_COLUMN: usize = 3;

type Cell = Vec<Span<'static>>;

/// A table being collected from parser events, rendered when it ends.
#[derive(Debug, Default)]
pub(super) struct Table {
    aligns: Vec<Alignment>,
    rows: Vec<Vec<Cell>>,
    row: Vec<Cell>,
    header_rows: usize,
}

impl Table {
    /// An empty table with the delimiter row's alignments.
    pub(super) fn new(aligns: Vec<Alignment>) -> Self {
        Self {
            aligns,
            ..Self::default()
        }
    }

    /// One cell of the current row.
    pub(super) fn push_cell(&mut self, spans: Cell) {
        self.row.push(spans);
    }

    /// Close the current row; `header` for the header row.
    pub(super) fn end_row(&mut self, header: bool) {
        self.rows.push(std::mem::take(&mut self.row));
        if header {
            self.header_rows = self.rows.len();
        }
    }

    /// The table's lines at `width` columns, the first starting with `first_prefix` and the
    /// others with `rest_prefix` (list and quote indentation).
    pub(super) fn render(
        &self,
        width: usize,
        first_prefix: &[Span<'static>],
        rest_prefix: &[Span<'static>],
    ) -> Vec<Line<'static>> {
        let columns = self
            .rows
            .iter()
            .map(Vec::len)
            .max()
            .unwrap_or(0)
            .max(self.aligns.len());
        if columns == 0 {
            return Vec::new();
        }
        let avail = width.saturating_sub(spans_width(rest_prefix));
        let budget = avail.saturating_sub(SEPARATOR_WIDTH * (columns - 1));
        let natural: Vec<usize> = (0..columns)
            .map(|c| {
                let widest = self.rows.iter().filter_map(|row| row.get(c));
                widest
                    .map(|cell| spans_width(cell))
                    .max()
                    .unwrap_or(0)
                    .max(1)
            })
            .collect();
        let Some(widths) = fit(&natural, budget) else {
            return self.render_as_rows(width, first_prefix, rest_prefix);
        };
        let mut out = Vec::new();
        let prefix = |out: &Vec<Line<'static>>| {
            if out.is_empty() {
                first_prefix.to_vec()
            } else {
                rest_prefix.to_vec()
            }
        };
        for (r, row) in self.rows.iter().enumerate() {
            let header = r < self.header_rows;
            let cells: Vec<Vec<Line<'static>>> = widths
                .iter()
                .enumerate()
                .map(|(c, &w)| {
                    let cell = row.get(c).map(Vec::as_slice).unwrap_or_default();
                    if header {
                        let bold: Cell = cell
                            .iter()
                            .map(|s| {
                                Span::styled(s.content.clone(), s.style.patch(theme::strong()))
                            })
                            .collect();
                        wrap_spans(&bold, w, &[], &[])
                    } else {
                        wrap_spans(cell, w, &[], &[])
                    }
                })
                .collect();
            let height = cells.iter().map(Vec::len).max().unwrap_or(1);
            for k in 0..height {
                let mut spans = prefix(&out);
                for (c, &w) in widths.iter().enumerate() {
                    if c > 0 {
                        spans.push(Span::styled(SEPARATOR, theme::dim()));
                    }
                    let last = c + 1 == columns;
                    let line = cells[c].get(k);
                    let used = line.map_or(0, line_width);
                    let (before, after) = padding(self.align(c), w.saturating_sub(used));
                    if before > 0 {
                        spans.push(Span::raw(" ".repeat(before)));
                    }
                    if let Some(line) = line {
                        spans.extend(line.spans.iter().cloned());
                    }
                    if after > 0 && !last {
                        spans.push(Span::raw(" ".repeat(after)));
                    }
                }
                out.push(Line::from(spans));
            }
            if header && r + 1 == self.header_rows {
                let mut spans = prefix(&out);
                let rule: Vec<String> = widths.iter().map(|&w| "─".repeat(w)).collect();
                spans.push(Span::styled(rule.join(RULE_CROSS), theme::dim()));
                out.push(Line::from(spans));
            }
        }
        out
    }

    fn align(&self, column: usize) -> Alignment {
        self.aligns.get(column).copied().unwrap_or(Alignment::None)
    }

    /// Too narrow for columns: each row's cells on one wrapped line, separated by ` │ `.
    fn render_as_rows(
        &self,
        width: usize,
        first_prefix: &[Span<'static>],
        rest_prefix: &[Span<'static>],
    ) -> Vec<Line<'static>> {
        let mut out = Vec::new();
        for (r, row) in self.rows.iter().enumerate() {
            let mut spans: Cell = Vec::new();
            for (c, cell) in row.iter().enumerate() {
                if c > 0 {
                    spans.push(Span::styled(SEPARATOR, theme::dim()));
                }
                for span in cell {
                    let style = if r < self.header_rows {
                        span.style.patch(theme::strong())
                    } else {
                        span.style
                    };
                    spans.push(Span::styled(span.content.clone(), style));
                }
            }
            let first = if out.is_empty() {
                first_prefix
            } else {
                rest_prefix
            };
            out.extend(wrap_spans(&spans, width, first, rest_prefix));
        }
        out
    }
}

/// Column widths that fit `budget`: the natural ones when they fit, else every column capped
/// at the largest common width that fits (so the widest columns give way first), the spare
/// columns going one each to the capped ones. None when a column would get less than
/// [`MIN_COLUMN`].
fn fit(natural: &[usize], budget: usize) -> Option<Vec<usize>> {
    if natural.iter().sum::<usize>() <= budget {
        return Some(natural.to_vec());
    }
    let capped = |cap: usize| natural.iter().map(|&n| n.min(cap)).sum::<usize>();
    let (mut low, mut high) = (0, natural.iter().copied().max().unwrap_or(0));
    while low < high {
        let mid = (low + high).div_ceil(2);
        if capped(mid) <= budget {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    let cap = low;
    if natural.iter().any(|&n| n.min(cap) < MIN_COLUMN.min(n)) {
        return None;
    }
    let mut spare = budget - capped(cap);
    Some(
        natural
            .iter()
            .map(|&n| {
                if n > cap && spare > 0 {
                    spare -= 1;
                    cap + 1
                } else {
                    n.min(cap)
                }
            })
            .collect(),
    )
}

/// Spaces before and after a cell's text for `free` spare columns.
fn padding(align: Alignment, free: usize) -> (usize, usize) {
    match align {
        Alignment::Right => (free, 0),
        Alignment::Center => (free / 2, free - free / 2),
        Alignment::Left | Alignment::None => (0, free),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::highlight::HighlightCache;
    use crate::markdown::{plain, render};
    use ratatui::style::Modifier;

    fn md(src: &str, width: usize) -> Vec<String> {
        plain(&render(src, width, true, &mut HighlightCache::default()))
    }

    #[test]
    fn columns_align_as_the_delimiter_row_says() {
        let out = md(
            "| left | center | right | none |\n|:--|:-:|--:|---|\n| a | b | c | d |\n| long text | 中文 | 12345 | x |\n",
            80,
        );
        assert_eq!(
            out,
            vec![
                "left      │ center │ right │ none",
                "──────────┼────────┼───────┼─────",
                "a         │   b    │     c │ d",
                "long text │  中文  │ 12345 │ x",
            ]
        );
    }

    #[test]
    fn the_header_is_bold_and_cells_keep_their_styles() {
        let lines = render(
            "| **h** | x |\n|---|---|\n| `code` | *it* |\n",
            40,
            true,
            &mut HighlightCache::default(),
        );
        let header = lines[0].spans.iter().find(|s| s.content == "h").unwrap();
        assert!(header.style.add_modifier.contains(Modifier::BOLD));
        let code = lines[2].spans.iter().find(|s| s.content == "code").unwrap();
        assert_eq!(code.style, theme::inline_code());
    }

    #[test]
    fn a_wide_table_wraps_its_widest_cells_and_never_passes_the_width() {
        let src = "| id | description |\n|---|---|\n| 1 | a long description that cannot fit on one line of a narrow screen |\n";
        let lines = render(src, 30, true, &mut HighlightCache::default());
        for line in &lines {
            assert!(line_width(line) <= 30, "{:?}", plain(&lines));
        }
        assert_eq!(
            plain(&lines),
            vec![
                "id │ description",
                "───┼──────────────────────────",
                "1  │ a long description that",
                "   │ cannot fit on one line of",
                "   │ a narrow screen",
            ]
        );
    }

    #[test]
    fn tables_in_lists_and_quotes_keep_their_indentation() {
        assert_eq!(
            md("- item\n\n  | a | b |\n  |---|---|\n  | 1 | 2 |\n", 40),
            vec!["• item", "", "  a │ b", "  ──┼──", "  1 │ 2"]
        );
        assert_eq!(
            md("> | a | b |\n> |---|---|\n> | 1 | 2 |\n", 40),
            vec!["│ a │ b", "│ ──┼──", "│ 1 │ 2"]
        );
    }

    #[test]
    fn a_table_too_narrow_for_columns_falls_back_to_rows() {
        let out = md(
            "| alpha | beta | gamma |\n|---|---|---|\n| one | two | three |\n",
            12,
        );
        assert_eq!(out, vec!["alpha │ beta", "│ gamma", "one │ two │", "three"]);
    }

    #[test]
    fn natural_widths_when_they_fit() {
        assert_eq!(fit(&[4, 10, 2], 16), Some(vec![4, 10, 2]));
    }

    #[test]
    fn the_widest_columns_give_way_first() {
        assert_eq!(fit(&[4, 30, 20], 30), Some(vec![4, 13, 13]));
        assert_eq!(fit(&[4, 30, 20], 31), Some(vec![4, 14, 13]));
    }

    #[test]
    fn too_narrow_for_columns() {
        assert_eq!(fit(&[10, 10, 10], 8), None);
        assert_eq!(fit(&[1, 10], 4), Some(vec![1, 3]));
    }
}
