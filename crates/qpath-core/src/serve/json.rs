//! Ordered JSON: Python dicts keep insertion order, and so do vLLM's messages (serde_json's Map sorts its keys).

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Map;

/// A JSON value as `json.loads` makes it: objects keep their key order (a repeated key keeps its first position and
/// takes the last value, like a Python dict).
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Value {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    /// A float JSON cannot write: `nan`, `inf`, `-inf` (from `NaN`, `Infinity`, `-Infinity` or `1e309`).
    Float(f64),
    String(String),
    Array(Vec<Value>),
    Object(Obj),
}

/// An insertion-ordered JSON object, with an index from key to position so that building one with n keys costs
/// O(n log n), not O(n²) (50,000 dotted keys merge into one `--hf-overrides` dict).
#[derive(Clone, Debug, Default)]
pub(super) struct Obj {
    entries: Vec<(String, Value)>,
    /// A B-tree (24 bytes, not a hash map's 48) so that a [`Value`] stays small: it sits in every pydantic error.
    index: BTreeMap<String, usize>,
}

impl PartialEq for Obj {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries
    }
}

impl Obj {
    pub(super) fn new() -> Self {
        Obj::default()
    }
    pub(super) fn get(&self, k: &str) -> Option<&Value> {
        self.index.get(k).map(|&i| &self.entries[i].1)
    }
    pub(super) fn get_mut(&mut self, k: &str) -> Option<&mut Value> {
        self.index.get(k).map(|&i| &mut self.entries[i].1)
    }
    pub(super) fn contains_key(&self, k: &str) -> bool {
        self.index.contains_key(k)
    }
    pub(super) fn insert(&mut self, k: String, v: Value) {
        match self.index.get(&k) {
            Some(&i) => self.entries[i].1 = v,
            None => {
                self.index.insert(k.clone(), self.entries.len());
                self.entries.push((k, v));
            }
        }
    }
    pub(super) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    pub(super) fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }
}

impl IntoIterator for Obj {
    type Item = (String, Value);
    type IntoIter = std::vec::IntoIter<(String, Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Self {
        Value::Number(n.into())
    }
}

impl From<u64> for Value {
    fn from(n: u64) -> Self {
        Value::Number(n.into())
    }
}

impl From<f64> for Value {
    fn from(f: f64) -> Self {
        serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
    }
}

impl Value {
    pub(super) fn to_serde(&self) -> serde_json::Value {
        match self {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Number(n) => serde_json::Value::Number(n.clone()),
            Value::Float(f) => non_finite_marker(*f),
            Value::String(s) => serde_json::Value::String(s.clone()),
            Value::Array(a) => serde_json::Value::Array(a.iter().map(Value::to_serde).collect()),
            Value::Object(m) => serde_json::Value::Object(to_serde_map(m)),
        }
    }
}

/// How Python's `json.dumps` writes a float JSON has no number for.
pub(super) fn json_non_finite(f: f64) -> &'static str {
    if f.is_nan() {
        "NaN"
    } else if f > 0.0 {
        "Infinity"
    } else {
        "-Infinity"
    }
}

/// serde_json has no NaN or infinity: in the `--hf-overrides` map such a float is this string, which
/// [`restore_non_finite`] turns back into `NaN` / `Infinity` / `-Infinity` in written JSON and
/// [`non_finite_of`] recognises.
pub const NON_FINITE_MARKER: &str = "\u{0}qpath-non-finite:";

fn non_finite_marker(f: f64) -> serde_json::Value {
    serde_json::Value::String(format!("{NON_FINITE_MARKER}{}", json_non_finite(f)))
}

/// The JSON word (`NaN`, `Infinity`, `-Infinity`) of a marked non-finite float in an overrides map.
pub fn non_finite_of(v: &serde_json::Value) -> Option<&str> {
    v.as_str()?.strip_prefix(NON_FINITE_MARKER)
}

/// serde_json's text of a map holding marked non-finite floats, with each marker written as Python's `json.dumps`
/// writes the float.
pub fn restore_non_finite(json: &str) -> String {
    let mut out = json.to_string();
    for word in ["NaN", "-Infinity", "Infinity"] {
        out = out.replace(&format!("\"\\u0000qpath-non-finite:{word}\""), word);
    }
    out
}

/// A Python `int` as a JSON value: an integer when it fits 64 bits, else the nearest `f64`.
pub(super) fn int_value(n: i128) -> Value {
    if let Ok(i) = i64::try_from(n) {
        Value::from(i)
    } else if let Ok(u) = u64::try_from(n) {
        Value::from(u)
    } else {
        Value::from(n as f64)
    }
}

/// The serde_json map of an object (keys sorted, the last of a repeated key kept), built by inserting: collecting
/// into it would sort through core's sort and add its code to the page (see [`crate::order`]).
pub(super) fn to_serde_map(m: &Obj) -> Map<String, serde_json::Value> {
    let mut map = Map::new();
    for (k, v) in m.iter() {
        map.insert(k.clone(), v.to_serde());
    }
    map
}

/// Compact JSON (serde_json's formatting), keys in order.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let string = |s: &str| serde_json::Value::String(s.to_string()).to_string();
        match self {
            Value::Null => f.write_str("null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Number(n) => write!(f, "{n}"),
            Value::Float(x) => f.write_str(json_non_finite(*x)),
            Value::String(s) => f.write_str(&string(s)),
            Value::Array(a) => {
                f.write_str("[")?;
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{x}")?;
                }
                f.write_str("]")
            }
            Value::Object(m) => {
                f.write_str("{")?;
                for (i, (k, x)) in m.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{}:{x}", string(k))?;
                }
                f.write_str("}")
            }
        }
    }
}

/// Why [`loads`] did not return a value.
#[derive(Debug, PartialEq)]
pub(super) enum LoadsError {
    /// `json.loads` raises `JSONDecodeError` (a `ValueError`).
    Invalid,
    /// Input `json.loads` reads but qpath cannot hold or would not follow (nesting past
    /// [`MAX_JSON_DEPTH`](super::limits::MAX_JSON_DEPTH), a lone surrogate, an integer past the float range): the
    /// whole "qpath cannot model this: …" text.
    CannotModel(String),
}

/// Python's `json.loads` on a `str` (the C scanner, `strict=True`): `NaN`, `Infinity` and `-Infinity` are floats, a
/// number with a fraction or exponent is `float(...)` (`1e309` is `inf`), an integer keeps its value, control
/// characters inside strings are errors, a repeated key keeps its first position and its last value. One pass, so the
/// cost is linear in the text; nesting is bounded by [`MAX_JSON_DEPTH`](super::limits::MAX_JSON_DEPTH).
pub(super) fn loads(s: &str) -> Result<Value, LoadsError> {
    let mut p = Loads {
        b: s.as_bytes(),
        i: 0,
        src: s,
    };
    p.ws();
    let v = p.value(0)?;
    p.ws();
    if p.i != p.b.len() {
        return Err(LoadsError::Invalid);
    }
    Ok(v)
}

struct Loads<'a> {
    b: &'a [u8],
    i: usize,
    src: &'a str,
}

impl Loads<'_> {
    fn ws(&mut self) {
        while matches!(self.b.get(self.i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, lit: &str) -> bool {
        let ok = self.b[self.i..].starts_with(lit.as_bytes());
        if ok {
            self.i += lit.len();
        }
        ok
    }

    fn value(&mut self, depth: usize) -> Result<Value, LoadsError> {
        match self.b.get(self.i) {
            Some(b'{') | Some(b'[') if depth >= super::limits::MAX_JSON_DEPTH => Err(LoadsError::CannotModel(format!(
                "qpath cannot model this: JSON nested deeper than {} levels (serve::limits::MAX_JSON_DEPTH); Python's \
                 json.loads raises RecursionError near its recursion limit (1000 frames by default, vLLM's own frames \
                 included), which argparse does not catch",
                super::limits::MAX_JSON_DEPTH
            ))),
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => self.string().map(Value::String),
            _ if self.eat("null") => Ok(Value::Null),
            _ if self.eat("true") => Ok(Value::Bool(true)),
            _ if self.eat("false") => Ok(Value::Bool(false)),
            _ if self.eat("NaN") => Ok(Value::Float(f64::NAN)),
            _ if self.eat("Infinity") => Ok(Value::Float(f64::INFINITY)),
            _ if self.eat("-Infinity") => Ok(Value::Float(f64::NEG_INFINITY)),
            _ => self.number(),
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value, LoadsError> {
        self.i += 1;
        let mut out = Obj::new();
        self.ws();
        if self.eat("}") {
            return Ok(Value::Object(out));
        }
        loop {
            self.ws();
            if self.b.get(self.i) != Some(&b'"') {
                return Err(LoadsError::Invalid);
            }
            let k = self.string()?;
            self.ws();
            if !self.eat(":") {
                return Err(LoadsError::Invalid);
            }
            self.ws();
            let v = self.value(depth)?;
            out.insert(k, v);
            self.ws();
            if self.eat("}") {
                return Ok(Value::Object(out));
            }
            if !self.eat(",") {
                return Err(LoadsError::Invalid);
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value, LoadsError> {
        self.i += 1;
        let mut out = Vec::new();
        self.ws();
        if self.eat("]") {
            return Ok(Value::Array(out));
        }
        loop {
            self.ws();
            out.push(self.value(depth)?);
            self.ws();
            if self.eat("]") {
                return Ok(Value::Array(out));
            }
            if !self.eat(",") {
                return Err(LoadsError::Invalid);
            }
        }
    }

    /// `-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?`: without fraction and exponent a Python int, else `float(text)`.
    fn number(&mut self) -> Result<Value, LoadsError> {
        let start = self.i;
        let digits = |p: &mut Self| {
            let s = p.i;
            while p.b.get(p.i).is_some_and(u8::is_ascii_digit) {
                p.i += 1;
            }
            p.i - s
        };
        self.eat("-");
        match self.b.get(self.i) {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return Err(LoadsError::Invalid),
        }
        let int_end = self.i;
        if self.b.get(self.i) == Some(&b'.') && self.b.get(self.i + 1).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
            digits(self);
        }
        if matches!(self.b.get(self.i), Some(b'e' | b'E')) {
            let save = self.i;
            self.i += 1;
            if matches!(self.b.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if digits(self) == 0 {
                self.i = save;
            }
        }
        let text = &self.src[start..self.i];
        if self.i == int_end {
            if let Ok(n) = text.parse::<i64>() {
                return Ok(Value::from(n));
            }
            if let Ok(n) = text.parse::<u64>() {
                return Ok(Value::from(n));
            }
            let f = crate::float::parse_decimal(text);
            if f.is_infinite() {
                return Err(LoadsError::CannotModel(format!(
                    "qpath cannot model this: the JSON integer {}… has {} digits (Python keeps it exactly; qpath holds \
                     integers as 64-bit or float numbers)",
                    &text[..text.len().min(20)],
                    text.trim_start_matches('-').len()
                )));
            }
            return Ok(Value::from(f));
        }
        let f = crate::float::parse_decimal(text);
        Ok(if f.is_finite() { Value::from(f) } else { Value::Float(f) })
    }

    /// A JSON string: escapes, `\uXXXX` with surrogate pairs joined; a raw control character is an error.
    fn string(&mut self) -> Result<String, LoadsError> {
        self.i += 1;
        let mut out = String::new();
        loop {
            let run_start = self.i;
            while self.b.get(self.i).is_some_and(|&c| c != b'"' && c != b'\\' && c >= 0x20) {
                self.i += 1;
            }
            out.push_str(&self.src[run_start..self.i]);
            match self.b.get(self.i) {
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    let c = self.escape()?;
                    out.push(c);
                }
                _ => return Err(LoadsError::Invalid),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, LoadsError> {
        let h = self.src.get(self.i..self.i + 4).ok_or(LoadsError::Invalid)?;
        if !h.bytes().all(|c| c.is_ascii_hexdigit()) {
            return Err(LoadsError::Invalid);
        }
        self.i += 4;
        u32::from_str_radix(h, 16).map_err(|_| LoadsError::Invalid)
    }

    fn escape(&mut self) -> Result<char, LoadsError> {
        let c = *self.b.get(self.i).ok_or(LoadsError::Invalid)?;
        self.i += 1;
        Ok(match c {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hi = self.hex4()?;
                let code = if (0xd800..0xdc00).contains(&hi) && self.b[self.i..].starts_with(b"\\u") {
                    let save = self.i;
                    self.i += 2;
                    let lo = self.hex4()?;
                    if (0xdc00..0xe000).contains(&lo) {
                        0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)
                    } else {
                        self.i = save;
                        hi
                    }
                } else {
                    hi
                };
                char::from_u32(code).ok_or_else(|| {
                    LoadsError::CannotModel(format!(
                        "qpath cannot model this: the lone surrogate \\u{code:04x} in a JSON string (Python keeps it \
                         in a str; Rust strings cannot hold it)"
                    ))
                })?
            }
            _ => return Err(LoadsError::Invalid),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> String {
        super::super::python::py_repr(&loads(s).unwrap_or_else(|e| panic!("{s}: {e:?}")))
    }

    /// Each case's expected value is `repr(json.loads(s))` as CPython 3.11 prints it.
    #[test]
    fn loads_reads_what_pythons_json_loads_reads() {
        for (s, repr) in [
            ("NaN", "nan"),
            ("Infinity", "inf"),
            ("-Infinity", "-inf"),
            ("1e309", "inf"),
            ("-1e309", "-inf"),
            ("1e-400", "0.0"),
            ("-0", "0"),
            ("1.5E+2", "150.0"),
            ("12345678901234567890", "12345678901234567890"),
            (" \t\n[1, 2.0, true, null] \r", "[1, 2.0, True, None]"),
            (r#"{"a": 1, "b": 2, "a": 3}"#, "{'a': 3, 'b': 2}"),
            (r#""\ud83d\ude00 \u200b \/""#, "'😀 \\u200b /'"),
            (
                r#"{"rope_theta": NaN, "x": [Infinity, -Infinity]}"#,
                "{'rope_theta': nan, 'x': [inf, -inf]}",
            ),
        ] {
            assert_eq!(ok(s), repr, "{s}");
        }
    }

    #[test]
    fn loads_rejects_what_pythons_json_loads_rejects() {
        for s in [
            "",
            "nan",
            "-NaN",
            "infinity",
            "01",
            "1.",
            "1e",
            "-",
            "+1",
            ".5",
            "[1,]",
            "{\"a\":1,}",
            "{'a': 1}",
            "tru",
            "\"\u{1}\"",
            "\"a",
            "[1] 2",
            "\u{feff}1",
            "\"\\x41\"",
            "\"\\u12\"",
        ] {
            assert_eq!(loads(s), Err(LoadsError::Invalid), "{s:?}");
        }
    }

    #[test]
    fn loads_names_what_qpath_cannot_hold() {
        let deep = format!(
            "{}{}",
            "[".repeat(crate::serve::limits::MAX_JSON_DEPTH + 1),
            "]".repeat(crate::serve::limits::MAX_JSON_DEPTH + 1)
        );
        assert!(matches!(loads(&deep), Err(LoadsError::CannotModel(m)) if m.contains("nested deeper than 900 levels")));
        let at_cap = format!(
            "{}{}",
            "[".repeat(crate::serve::limits::MAX_JSON_DEPTH),
            "]".repeat(crate::serve::limits::MAX_JSON_DEPTH)
        );
        assert!(loads(&at_cap).is_ok());
        assert!(matches!(loads(r#""\ud800""#), Err(LoadsError::CannotModel(m)) if m.contains("lone surrogate \\ud800")));
        assert!(matches!(loads(&"9".repeat(400)), Err(LoadsError::CannotModel(m)) if m.contains("400 digits")));
    }

    #[test]
    fn objects_with_many_keys_keep_order_and_last_values() {
        let mut o = Obj::new();
        for i in 0..50_000 {
            o.insert(format!("k{}", i % 25_000), Value::from(i as i64));
        }
        assert_eq!(o.iter().count(), 25_000);
        assert_eq!(
            o.iter().next().map(|(k, v)| (k.as_str(), v.to_string())),
            Some(("k0", "25000".to_string()))
        );
        assert_eq!(o.get("k24999"), Some(&Value::from(49_999i64)));
    }
}
