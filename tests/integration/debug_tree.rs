//! A value's `Debug` text parsed back into a tree, for tests that compare decoded values field
//! by field: the derived `Debug` of the generated structs names every field, and so does that of
//! other implementations' types.
#![allow(dead_code)]

#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// `Name { field: value, .. }`
    Struct(String, Vec<(String, Node)>),
    /// `Name(value, ..)`, including `Some(..)`.
    Tuple(String, Vec<Node>),
    /// `[value, ..]`
    List(Vec<Node>),
    /// A string literal, unescaped.
    Str(String),
    /// A byte string literal (`b"\x01a"`), unescaped.
    Bytes(Vec<u8>),
    /// Anything else: numbers, `true`, `None`, `12 bytes`.
    Atom(String),
}

struct DebugParser<'s> {
    s: &'s [u8],
    i: usize,
}

impl DebugParser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i] == b' ' {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) {
        self.ws();
        assert_eq!(
            self.s.get(self.i).copied(),
            Some(c),
            "expected {:?} at {} in {}",
            c as char,
            self.i,
            String::from_utf8_lossy(self.s)
        );
        self.i += 1;
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }

    fn value(&mut self) -> Node {
        match self.peek() {
            Some(b'"') => Node::Str(String::from_utf8(self.string()).unwrap()),
            Some(b'b') if self.s.get(self.i + 1) == Some(&b'"') => {
                self.i += 1;
                Node::Bytes(self.string())
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                while self.peek() != Some(b']') {
                    items.push(self.value());
                    if self.peek() == Some(b',') {
                        self.i += 1;
                    }
                }
                self.i += 1;
                Node::List(items)
            }
            _ => {
                let start = self.i;
                while self.i < self.s.len() && !b",()[]{}".contains(&self.s[self.i]) {
                    self.i += 1;
                }
                let word = std::str::from_utf8(&self.s[start..self.i])
                    .unwrap()
                    .trim()
                    .to_string();
                match self.s.get(self.i) {
                    Some(b'(') => {
                        self.i += 1;
                        let mut items = Vec::new();
                        while self.peek() != Some(b')') {
                            items.push(self.value());
                            if self.peek() == Some(b',') {
                                self.i += 1;
                            }
                        }
                        self.i += 1;
                        Node::Tuple(word, items)
                    }
                    Some(b'{') => {
                        self.i += 1;
                        let mut fields = Vec::new();
                        while self.peek() != Some(b'}') {
                            let start = self.i;
                            while self.s[self.i] != b':' {
                                self.i += 1;
                            }
                            let name = std::str::from_utf8(&self.s[start..self.i])
                                .unwrap()
                                .trim()
                                .to_string();
                            self.eat(b':');
                            fields.push((name, self.value()));
                            if self.peek() == Some(b',') {
                                self.i += 1;
                            }
                        }
                        self.i += 1;
                        Node::Struct(word, fields)
                    }
                    _ => Node::Atom(word),
                }
            }
        }
    }

    /// A string or byte string literal's contents, unescaped.
    fn string(&mut self) -> Vec<u8> {
        self.eat(b'"');
        let mut out = Vec::new();
        loop {
            let c = self.s[self.i];
            self.i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let e = self.s[self.i];
                    self.i += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'0' => out.push(0),
                        b'x' => {
                            let hex = std::str::from_utf8(&self.s[self.i..self.i + 2]).unwrap();
                            out.push(u8::from_str_radix(hex, 16).unwrap());
                            self.i += 2;
                        }
                        b'u' => {
                            let close = self.s[self.i..].iter().position(|&b| b == b'}').unwrap();
                            let code =
                                std::str::from_utf8(&self.s[self.i + 1..self.i + close]).unwrap();
                            let ch =
                                char::from_u32(u32::from_str_radix(code, 16).unwrap()).unwrap();
                            let mut buf = [0u8; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                            self.i += close + 1;
                        }
                        other => out.push(other),
                    }
                }
                other => out.push(other),
            }
        }
        out
    }
}

/// The tree of a value's `Debug` text.
pub fn debug_tree(value: &dyn std::fmt::Debug) -> Node {
    parse(&format!("{value:?}"))
}

/// The tree of a `Debug` text.
pub fn parse(text: &str) -> Node {
    let mut p = DebugParser {
        s: text.as_bytes(),
        i: 0,
    };
    let node = p.value();
    assert_eq!(p.i, text.len(), "Debug text not fully parsed: {text}");
    node
}

/// Looks through `Some(..)`.
pub fn unwrap_some(mut node: &Node) -> &Node {
    while let Node::Tuple(name, items) = node {
        if name == "Some" && items.len() == 1 {
            node = &items[0];
        } else {
            break;
        }
    }
    node
}
