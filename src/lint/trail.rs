//! The pointers of a walk over a schema, kept as links and spelled out only for the nodes a
//! finding names. A pointer repeats every key above it, so spelling one out for each node
//! walked cost the schema's depth times its size (1 MB of nested long names: 839 MB built),
//! while a link costs one entry per node.

use std::fmt::Write;

use serde_json::Value;

use crate::json::push_token;
use crate::schema::{At, Member};

/// One step down from a node.
#[derive(Clone, Copy)]
pub(super) enum Step<'v> {
    Key(&'v str),
    Index(usize),
}

/// The nodes walked, each as its parent's index and the step from it; node 0 is the root,
/// at `base`.
pub(super) struct Trail<'v> {
    base: &'v str,
    links: Vec<(usize, Step<'v>)>,
}

impl<'v> Trail<'v> {
    pub const ROOT: usize = 0;

    pub fn new(base: &'v str) -> Trail<'v> {
        Trail { base, links: vec![(Self::ROOT, Step::Index(0))] }
    }

    /// The node one `step` below `parent`.
    pub fn push(&mut self, parent: usize, step: Step<'v>) -> usize {
        self.links.push((parent, step));
        self.links.len() - 1
    }

    /// The subschemas a keyword `key` of the schema at `place` holds, each with its node; the
    /// keyword's own node is added only when it holds some.
    pub fn members(&mut self, place: usize, key: &'v str, members: Vec<Member<'v>>) -> Vec<(&'v Value, usize)> {
        if members.is_empty() {
            return Vec::new();
        }
        let here = self.push(place, Step::Key(key));
        let node = |m: &Member<'v>, trail: &mut Self| match m.at {
            At::Whole => here,
            At::Index(i) => trail.push(here, Step::Index(i)),
            At::Key(name) => trail.push(here, Step::Key(name)),
        };
        members.iter().map(|m| (m.value, node(m, self))).collect()
    }

    /// `node`'s JSON Pointer, spelled out.
    pub fn pointer(&self, mut node: usize) -> String {
        let mut steps = Vec::new();
        while node != Self::ROOT {
            let (parent, step) = self.links[node];
            steps.push(step);
            node = parent;
        }
        let mut out = self.base.to_string();
        for step in steps.into_iter().rev() {
            match step {
                Step::Key(key) => push_token(&mut out, key),
                Step::Index(i) => write!(out, "/{i}").expect("writing to a String"),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_are_spelled_out_from_their_links() {
        let mut t = Trail::new("/outputSchema");
        let props = t.push(Trail::ROOT, Step::Key("properties"));
        let a = t.push(props, Step::Key("a/b~c"));
        let items = t.push(a, Step::Key("anyOf"));
        let first = t.push(items, Step::Index(0));
        assert_eq!(t.pointer(Trail::ROOT), "/outputSchema");
        assert_eq!(t.pointer(first), "/outputSchema/properties/a~1b~0c/anyOf/0");
        assert_eq!(t.pointer(props), "/outputSchema/properties");
    }
}
