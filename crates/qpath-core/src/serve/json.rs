//! Ordered JSON: Python dicts keep insertion order, and so do vLLM's messages (serde_json's Map sorts its keys).

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Map;

/// A JSON value as `json.loads` makes it: objects keep their key order (a repeated key keeps its first position and
/// takes the last value, like a Python dict).
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Value {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Value>),
    Object(Obj),
}

/// An insertion-ordered JSON object.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Obj(Vec<(String, Value)>);

impl Obj {
    pub(super) fn new() -> Self {
        Obj(Vec::new())
    }
    pub(super) fn get(&self, k: &str) -> Option<&Value> {
        self.0.iter().find(|(key, _)| key == k).map(|(_, v)| v)
    }
    pub(super) fn get_mut(&mut self, k: &str) -> Option<&mut Value> {
        self.0.iter_mut().find(|(key, _)| key == k).map(|(_, v)| v)
    }
    pub(super) fn contains_key(&self, k: &str) -> bool {
        self.get(k).is_some()
    }
    pub(super) fn insert(&mut self, k: String, v: Value) {
        match self.get_mut(&k) {
            Some(slot) => *slot = v,
            None => self.0.push((k, v)),
        }
    }
    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub(super) fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.0.iter().map(|(k, v)| (k, v))
    }
}

impl IntoIterator for Obj {
    type Item = (String, Value);
    type IntoIter = std::vec::IntoIter<(String, Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
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
            Value::String(s) => serde_json::Value::String(s.clone()),
            Value::Array(a) => serde_json::Value::Array(a.iter().map(Value::to_serde).collect()),
            Value::Object(m) => serde_json::Value::Object(to_serde_map(m)),
        }
    }
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

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Value;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
                Ok(Value::Bool(b))
            }
            fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
                Ok(Value::from(n))
            }
            fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
                Ok(Value::from(n))
            }
            fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
                Ok(Value::from(n))
            }
            fn visit_str<E>(self, s: &str) -> Result<Value, E> {
                Ok(Value::String(s.to_string()))
            }
            fn visit_string<E>(self, s: String) -> Result<Value, E> {
                Ok(Value::String(s))
            }
            fn visit_unit<E>(self) -> Result<Value, E> {
                Ok(Value::Null)
            }
            fn visit_none<E>(self) -> Result<Value, E> {
                Ok(Value::Null)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
                let mut out = Vec::new();
                while let Some(x) = seq.next_element()? {
                    out.push(x);
                }
                Ok(Value::Array(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
                let mut out = Obj::new();
                while let Some((k, v)) = map.next_entry::<String, Value>()? {
                    out.insert(k, v);
                }
                Ok(Value::Object(out))
            }
        }
        d.deserialize_any(V)
    }
}
