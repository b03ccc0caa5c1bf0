//! The structs of an object tree with the values of their fields, kept after the walk: what
//! the linter and the topic names read from a frame.

use std::fmt;

use kwire::codec::Uuid;
use kwire_schema::describe::{Name, Node, Value, Visit};

/// A value kept from a tree.
#[derive(Debug, Clone, PartialEq)]
pub enum Owned {
    /// An integer.
    Int(i64),
    /// A string, as Kafka reads it (each byte sequence that is not UTF-8 replaced by U+FFFD).
    Str(String),
    /// A Uuid.
    Uuid(Uuid),
    /// Anything else.
    Other,
}

/// A struct of a tree and its fields that are values, in order.
#[derive(Debug, Clone)]
pub struct Struct {
    /// The field that holds it (an array's name for its elements).
    pub field: String,
    /// Where it starts in the frame.
    pub offset: usize,
    /// Its fields that are values: name, value, offset.
    pub fields: Vec<(String, Owned, usize)>,
}

impl Struct {
    /// The integer field `name`.
    pub fn int(&self, name: &str) -> Option<i64> {
        self.fields.iter().find_map(|(n, v, _)| match v {
            Owned::Int(i) if n == name => Some(*i),
            _ => None,
        })
    }

    /// The string field `name`.
    pub fn str(&self, name: &str) -> Option<&str> {
        self.fields.iter().find_map(|(n, v, _)| match v {
            Owned::Str(s) if n == name => Some(s.as_str()),
            _ => None,
        })
    }

    /// The Uuid field `name`.
    pub fn uuid(&self, name: &str) -> Option<Uuid> {
        self.fields.iter().find_map(|(n, v, _)| match v {
            Owned::Uuid(u) if n == name => Some(*u),
            _ => None,
        })
    }
}

/// The structs of a tree, each with its value fields.
#[derive(Debug, Default)]
pub struct Structs {
    /// The name of the node at each depth on the way to the current node.
    path: Vec<String>,
    /// Structs still open: their depth and what they hold so far.
    open: Vec<(usize, Struct)>,
    /// Structs closed, in the order they ended.
    pub done: Vec<Struct>,
}

impl Visit for Structs {
    /// Takes a node: closes the structs it leaves, opens the one it starts or adds its value.
    fn node(&mut self, n: &Node<'_>) -> fmt::Result {
        let d = n.depth;
        while self.open.last().is_some_and(|(depth, _)| *depth >= d) {
            if let Some((_, s)) = self.open.pop() {
                self.done.push(s);
            }
        }
        self.path.truncate(d);
        let field = match n.name {
            // A tagged entry's value is named as its field.
            Name::Plain("value") => d
                .checked_sub(1)
                .and_then(|p| self.path.get(p))
                .cloned()
                .unwrap_or_default(),
            Name::Plain(s) => s.to_owned(),
            // An element is named as its array.
            Name::Indexed(s, _) => d
                .checked_sub(1)
                .and_then(|p| self.path.get(p))
                .cloned()
                .unwrap_or_else(|| s.to_owned()),
            Name::UnknownTag(_) => String::new(),
        };
        self.path.push(field.clone());
        if n.value == Value::Struct {
            self.open.push((
                d,
                Struct {
                    field,
                    offset: n.offset,
                    fields: Vec::new(),
                },
            ));
            return Ok(());
        }
        let value = match n.value {
            Value::Str(s, _) => Owned::Str(s.to_string_lossy().into_owned()),
            Value::Uuid(u) => Owned::Uuid(u),
            v => v.int().map_or(Owned::Other, Owned::Int),
        };
        if let Some((depth, s)) = self.open.last_mut()
            && depth.saturating_add(1) == d
        {
            s.fields.push((field, value, n.offset));
        }
        Ok(())
    }
}

impl Structs {
    /// Closes what is still open.
    pub fn finish(&mut self) {
        while let Some((_, s)) = self.open.pop() {
            self.done.push(s);
        }
    }
}
