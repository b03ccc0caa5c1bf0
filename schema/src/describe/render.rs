//! Rendering a tree as aligned text: name (drawn as a tree), type, value, `[offset, size]` and
//! description columns.

use core::fmt::{self, Write};

use super::{DescribeError, MAX_DEPTH, Node, Visit, visit_request_frame, visit_response_frame};
use kwire::api::ApiKey;

/// Counts the bytes written through it.
#[derive(Debug, Default)]
struct Count(usize);

impl Write for Count {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 = self.0.saturating_add(s.len());
        Ok(())
    }
}

fn width(d: impl fmt::Display) -> usize {
    let mut c = Count(0);
    // Counting cannot fail; a failing Display impl counts as what it wrote.
    let _ = write!(c, "{d}");
    c.0
}

/// The `[0x0004, 11B]` column.
struct Span(usize, Option<usize>);

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.1 {
            Some(n) => write!(f, "[{:#06x}, {n}B]", self.0),
            None => write!(f, "[{:#06x}, ?]", self.0),
        }
    }
}

const fn clamp(depth: usize) -> usize {
    if depth > MAX_DEPTH { MAX_DEPTH } else { depth }
}

/// Column widths, found by a first pass over the tree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Widths {
    name: usize,
    ty: usize,
    value: usize,
    span: usize,
}

impl Visit for Widths {
    fn node(&mut self, n: &Node<'_>) -> fmt::Result {
        let indent = clamp(n.depth).saturating_mul(4);
        self.name = self.name.max(indent.saturating_add(width(n.name)));
        self.ty = self.ty.max(width(n.ty));
        self.value = self.value.max(width(n.value));
        self.span = self.span.max(width(Span(n.offset, n.size)));
        Ok(())
    }
}

/// Prints nodes as aligned rows. Build it with [`Renderer::measure`] (a first walk that finds
/// the column widths), then walk the same tree again with it as the visitor.
#[derive(Debug)]
pub struct Renderer<'w, W: Write + ?Sized> {
    out: &'w mut W,
    widths: Widths,
    /// Whether the ancestor at each depth has siblings still to come (draws `|`).
    open: [bool; MAX_DEPTH],
}

/// Spaces between columns.
const GAP: usize = 2;

impl<'w, W: Write + ?Sized> Renderer<'w, W> {
    /// Measures the tree `walk` produces, for rendering into `out`.
    pub fn measure(
        out: &'w mut W,
        walk: impl FnOnce(&mut dyn Visit) -> Result<(), DescribeError>,
    ) -> Self {
        let mut widths = Widths::default();
        // The tree up to an error is measured; the error itself is reported by the second walk.
        let _ = walk(&mut widths);
        Self {
            out,
            widths,
            open: [false; MAX_DEPTH],
        }
    }

    fn pad(&mut self, written: usize, column: usize) -> fmt::Result {
        let target = column.saturating_add(GAP);
        for _ in written..target {
            self.out.write_char(' ')?;
        }
        Ok(())
    }
}

impl<W: Write + ?Sized> Visit for Renderer<'_, W> {
    fn node(&mut self, n: &Node<'_>) -> fmt::Result {
        let depth = clamp(n.depth);
        for k in 1..depth {
            let bar = self.open.get(k).copied().unwrap_or(false);
            self.out.write_str(if bar { "|   " } else { "    " })?;
        }
        if depth > 0 {
            self.out.write_str("+-- ")?;
        }
        write!(self.out, "{}", n.name)?;
        let indent = depth.saturating_mul(4);
        self.pad(indent.saturating_add(width(n.name)), self.widths.name)?;
        write!(self.out, "{}", n.ty)?;
        self.pad(width(n.ty), self.widths.ty)?;
        write!(self.out, "{}", n.value)?;
        self.pad(width(n.value), self.widths.value)?;
        let span = Span(n.offset, n.size);
        write!(self.out, "{span}")?;
        if !n.about.is_none() {
            self.pad(width(&span), self.widths.span)?;
            write!(self.out, "{}", n.about)?;
        }
        self.out.write_char('\n')?;
        if let Some(open) = self.open.get_mut(depth) {
            *open = !n.last;
        }
        Ok(())
    }
}

/// Renders the tree of `walk` into `out`, which walks it twice (the first walk measures the
/// columns); on a decoding error, the tree up to it and then a line `error: …` naming the
/// offset. [`write_request_frame`] is `render` of [`visit_request_frame`]; a walk through
/// [`Reveal`](super::Reveal) shows credentials.
///
/// # Errors
///
/// As `walk`.
pub fn render<W: Write + ?Sized>(
    out: &mut W,
    walk: impl Fn(&mut dyn Visit) -> Result<(), DescribeError>,
) -> Result<(), DescribeError> {
    let mut r = Renderer::measure(out, &walk);
    let result = walk(&mut r);
    if let Err(DescribeError::Decode(e)) = result {
        writeln!(r.out, "error: {e}")?;
    }
    result
}

/// Writes the object tree of a request frame (size prefix included).
///
/// # Errors
///
/// As [`visit_request_frame`]; on a decoding error the tree up to the failure and an `error:`
/// line have been written.
pub fn write_request_frame<W: Write + ?Sized>(
    frame: &[u8],
    out: &mut W,
) -> Result<(), DescribeError> {
    render(out, |v| visit_request_frame(frame, v))
}

/// Writes the object tree of a response frame of `api_key` at `version`.
///
/// # Errors
///
/// As [`write_request_frame`].
pub fn write_response_frame<W: Write + ?Sized>(
    frame: &[u8],
    api_key: ApiKey,
    version: i16,
    out: &mut W,
) -> Result<(), DescribeError> {
    render(out, |v| visit_response_frame(frame, api_key, version, v))
}
