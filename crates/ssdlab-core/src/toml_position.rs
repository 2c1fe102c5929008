//! Where a key is written in a run file's TOML text: the line and column `FILE:LINE:COL: KEY`
//! errors name. The loader's, so that no layer below it parses TOML text.

use crate::source::{line_col, split_key, Segment};

/// A node of a parsed TOML document on the way down a key path.
#[derive(Clone, Copy)]
enum Node<'a> {
    Item(&'a toml_edit::Item),
    Table(&'a toml_edit::Table),
    Value(&'a toml_edit::Value),
}

impl<'a> Node<'a> {
    /// The child at `seg`, with the byte offset where it is written (its key, or the start of
    /// an array element or a `[[table]]` header).
    fn child(self, seg: &Segment<'_>) -> Option<(Option<usize>, Node<'a>)> {
        use toml_edit::Item;
        let start = |s: Option<std::ops::Range<usize>>| s.map(|r| r.start);
        match (self, seg) {
            (Node::Table(t), Segment::Key(k)) => t.get_key_value(k).map(|(kk, it)| (start(kk.span()), Node::Item(it))),
            (Node::Item(Item::Table(t)), Segment::Key(_)) => Node::Table(t).child(seg),
            (Node::Item(Item::Value(v)), _) => Node::Value(v).child(seg),
            (Node::Item(Item::ArrayOfTables(a)), Segment::Index(i)) => {
                a.get(*i).map(|t| (start(t.span()), Node::Table(t)))
            }
            (Node::Value(v), Segment::Key(k)) => v
                .as_inline_table()?
                .get_key_value(k)
                .map(|(kk, vv)| (start(kk.span()), Node::Item(vv))),
            (Node::Value(v), Segment::Index(i)) => v.as_array()?.get(*i).map(|vv| (start(vv.span()), Node::Value(vv))),
            _ => None,
        }
    }
}

/// Where `key` is written in TOML `text`: `Ok` with the key's position, or `Err` with the
/// position of its deepest ancestor written there (e.g. the `[[job]]` header of a job whose
/// key takes its default), `Err(None)` when no part of the path is.
pub fn toml_position(text: &str, key: &str) -> Result<(usize, usize), Option<(usize, usize)>> {
    let Ok(doc) = toml_edit::ImDocument::parse(text) else {
        return Err(None);
    };
    let segs = split_key(key);
    let mut node = Node::Table(doc.as_table());
    let mut deepest = None;
    for (n, seg) in segs.iter().enumerate() {
        let Some((at, child)) = node.child(seg) else {
            break;
        };
        if n + 1 == segs.len() {
            if let Some(o) = at {
                return Ok(line_col(text, o));
            }
        }
        deepest = at.or(deepest);
        node = child;
    }
    Err(deepest.map(|o| line_col(text, o)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_keys_are_found_at_their_line_and_column() {
        let text = "[device]\npreset = \"x\"\n[device.nand]\n  read = [1, 2]\n\n[[job]]\nbs = \"4k\"\n[[job]]\nname = \"b\"\n[job.trace]\n speed = 0\n";
        assert_eq!(toml_position(text, "device.nand.read"), Ok((4, 3)));
        assert_eq!(toml_position(text, "device.preset"), Ok((2, 1)));
        assert_eq!(toml_position(text, "job[0].bs"), Ok((7, 1)));
        assert_eq!(toml_position(text, "job[1].trace.speed"), Ok((11, 2)));
        // A key that takes its default: the enclosing table's line.
        assert_eq!(toml_position(text, "job[1].iodepth"), Err(Some((8, 1))));
        assert_eq!(toml_position(text, "device.nand.erase"), Err(Some((3, 9))));
        assert_eq!(toml_position(text, "precondition.mode"), Err(None));
        // Dotted keys and inline tables.
        let text = "device.nand.erase = \"1ms\"\njob = [{ bs = \"4k\" }, { iodepth = 0 }]\n";
        assert_eq!(toml_position(text, "device.nand.erase"), Ok((1, 13)));
        assert_eq!(toml_position(text, "job[1].iodepth"), Ok((2, 25)));
    }
}
