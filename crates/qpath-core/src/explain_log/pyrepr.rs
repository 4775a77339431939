//! A reader of the Python reprs vLLM's start-up log prints (`non-default args: {'model_tag': 'm', 'enforce_eager':
//! True, 'attention_config': AttentionConfig(backend=<AttentionBackendEnum.FLASHINFER: …>, …)}`) into JSON values:
//! `str` (either quote, with escapes), `int` / `float` (`inf`, `nan` as strings), `True` / `False` / `None`, lists,
//! tuples, sets, dicts, a call `Name(key=value, …)` (a dataclass repr) as an object of its keyword arguments, an
//! enum's `<Class.MEMBER: value>` as `"MEMBER"`, and a bare dotted name (`torch.bfloat16`) as its text.

use serde_json::{Map, Number, Value};

/// The deepest nesting read; deeper text is an error, not a stack overflow.
pub const MAX_DEPTH: usize = 64;

struct Reader<'a> {
    s: &'a [u8],
    text: &'a str,
    at: usize,
}

/// Reads one Python literal at the start of `text`; returns it and the number of bytes read, or why not.
pub fn read(text: &str) -> Result<(Value, usize), String> {
    let mut r = Reader {
        s: text.as_bytes(),
        text,
        at: 0,
    };
    let v = r.value(0)?;
    Ok((v, r.at))
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.'
}

impl Reader<'_> {
    fn blanks(&mut self) {
        while self.at < self.s.len() && self.s[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.at).copied()
    }

    fn expect(&mut self, b: u8) -> Result<(), String> {
        self.blanks();
        if self.peek() == Some(b) {
            self.at += 1;
            Ok(())
        } else {
            Err(format!("expected `{}` at byte {}", b as char, self.at))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, String> {
        if depth > MAX_DEPTH {
            return Err(format!("nested deeper than {MAX_DEPTH} levels"));
        }
        self.blanks();
        match self.peek() {
            None => Err("the text ends where a value should be".into()),
            Some(b'{') => self.dict(depth),
            Some(b'[') => self.seq(b']', depth),
            Some(b'(') => self.seq(b')', depth),
            Some(b'<') => self.enum_repr(),
            Some(b'\'' | b'"') => self.string().map(Value::String),
            Some(b'-' | b'+' | b'0'..=b'9') => self.number(),
            Some(b) if b.is_ascii_alphabetic() || b == b'_' => self.name_or_call(depth),
            Some(_) => Err(format!(
                "unexpected `{}` at byte {}",
                self.text[self.at..].chars().next().unwrap_or(' '),
                self.at
            )),
        }
    }

    fn dict(&mut self, depth: usize) -> Result<Value, String> {
        self.at += 1;
        let mut map = Map::new();
        loop {
            self.blanks();
            if self.peek() == Some(b'}') {
                self.at += 1;
                return Ok(Value::Object(map));
            }
            let key = match self.value(depth + 1)? {
                Value::String(s) => s,
                other => other.to_string(),
            };
            self.expect(b':')?;
            let v = self.value(depth + 1)?;
            map.insert(key, v);
            self.blanks();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {}
                _ => return Err(format!("expected `,` or `}}` at byte {}", self.at)),
            }
        }
    }

    fn seq(&mut self, close: u8, depth: usize) -> Result<Value, String> {
        self.at += 1;
        let mut items = Vec::new();
        loop {
            self.blanks();
            if self.peek() == Some(close) {
                self.at += 1;
                return Ok(Value::Array(items));
            }
            items.push(self.value(depth + 1)?);
            self.blanks();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(c) if c == close => {}
                _ => return Err(format!("expected `,` or `{}` at byte {}", close as char, self.at)),
            }
        }
    }

    /// `<AttentionBackendEnum.FLASHINFER: 'vllm…'>` → `"FLASHINFER"` (the member name is what the option takes).
    fn enum_repr(&mut self) -> Result<Value, String> {
        let start = self.at + 1;
        let end = self.text[start..].find('>').map(|i| start + i).ok_or("an unclosed `<…>`")?;
        let inner = &self.text[start..end];
        let head = inner.split(':').next().unwrap_or(inner).trim();
        let member = head.rsplit('.').next().unwrap_or(head);
        self.at = end + 1;
        Ok(Value::String(member.to_string()))
    }

    fn string(&mut self) -> Result<String, String> {
        let quote = self.s[self.at];
        self.at += 1;
        let mut out = String::new();
        loop {
            let rest = &self.text[self.at..];
            let stop = rest.find([quote as char, '\\']).ok_or("an unclosed string")?;
            out.push_str(&rest[..stop]);
            self.at += stop;
            if self.s[self.at] == quote {
                self.at += 1;
                return Ok(out);
            }
            // A backslash escape.
            let esc = self.text[self.at + 1..].chars().next().ok_or("an unclosed string")?;
            self.at += 1 + esc.len_utf8();
            let hex = |r: &mut Self, n: usize| -> Result<char, String> {
                let digits = r.text.get(r.at..r.at + n).ok_or("a short escape")?;
                let c = u32::from_str_radix(digits, 16)
                    .ok()
                    .and_then(char::from_u32)
                    .ok_or("a bad escape")?;
                r.at += n;
                Ok(c)
            };
            match esc {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                '0' => out.push('\0'),
                'x' => out.push(hex(self, 2)?),
                'u' => out.push(hex(self, 4)?),
                'U' => out.push(hex(self, 8)?),
                other => out.push(other),
            }
        }
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.at;
        while self.at < self.s.len() && (self.s[self.at].is_ascii_alphanumeric() || b"+-._".contains(&self.s[self.at])) {
            self.at += 1;
        }
        let t = self.text[start..self.at].replace('_', "");
        if let Ok(i) = t.parse::<i64>() {
            return Ok(Value::Number(i.into()));
        }
        // A decimal float (`0.9`, `1e-05`) through crate::float (core's float parsing stays out of the page).
        let digits = t.trim_start_matches(['-', '+']);
        let (mantissa, exponent) = digits.split_once(['e', 'E']).unwrap_or((digits, "0"));
        let (whole, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        let exponent = exponent.strip_prefix(['-', '+']).unwrap_or(exponent);
        let decimal = !(whole.is_empty() && frac.is_empty())
            && all_digits(whole)
            && all_digits(frac)
            && !exponent.is_empty()
            && all_digits(exponent);
        match decimal.then(|| Number::from_f64(crate::float::parse_decimal(&t))).flatten() {
            Some(n) => Ok(Value::Number(n)),
            None => Ok(Value::String(t)),
        }
    }

    fn name_or_call(&mut self, depth: usize) -> Result<Value, String> {
        let start = self.at;
        while self.at < self.s.len() && is_name_byte(self.s[self.at]) {
            self.at += 1;
        }
        let name = &self.text[start..self.at];
        // A string prefix (b'…', r'…', f'…').
        if matches!(self.peek(), Some(b'\'' | b'"')) && name.len() <= 2 && name.chars().all(|c| "bBrRuUfF".contains(c)) {
            return self.string().map(Value::String);
        }
        if self.peek() == Some(b'(') {
            return self.call(depth);
        }
        Ok(match name {
            "True" => Value::Bool(true),
            "False" => Value::Bool(false),
            "None" => Value::Null,
            "inf" | "nan" => Value::String(name.to_string()),
            _ => Value::String(name.to_string()),
        })
    }

    /// `Name(key=value, …)`: an object of the keyword arguments (positional ones keyed by their index).
    fn call(&mut self, depth: usize) -> Result<Value, String> {
        self.at += 1;
        let mut map = Map::new();
        let mut index = 0;
        loop {
            self.blanks();
            if self.peek() == Some(b')') {
                self.at += 1;
                return Ok(Value::Object(map));
            }
            let save = self.at;
            while self.at < self.s.len() && (self.s[self.at].is_ascii_alphanumeric() || self.s[self.at] == b'_') {
                self.at += 1;
            }
            let key = self.text[save..self.at].to_string();
            self.blanks();
            if !key.is_empty() && self.peek() == Some(b'=') {
                self.at += 1;
                let v = self.value(depth + 1)?;
                map.insert(key, v);
            } else {
                self.at = save;
                let v = self.value(depth + 1)?;
                map.insert(index.to_string(), v);
                index += 1;
            }
            self.blanks();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b')') => {}
                _ => return Err(format!("expected `,` or `)` at byte {}", self.at)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_reprs_of_a_non_default_args_line() {
        let text = "{'model_tag': 'meta-llama/Llama-3.1-8B-Instruct', 'enforce_eager': True, 'max_model_len': 8192, \
                    'gpu_memory_utilization': 0.9, 'kv_cache_dtype_skip_layers': ['0', 'sliding_window'], \
                    'speculative_config': {'method': \"eagle3\", 'num_speculative_tokens': 3}, 'tokenizer': None, \
                    'attention_config': AttentionConfig(backend=<AttentionBackendEnum.FLASHINFER: 'vllm.v1.x'>, \
                    flash_attn_version=3, use_trtllm_attention=False), 'dtype': torch.bfloat16, 'x': (1, -2.5e3), \
                    'esc': 'it\\'s\\n\\x41'}";
        let (v, n) = read(text).unwrap();
        assert_eq!(n, text.len());
        assert_eq!(
            v,
            json!({
                "model_tag": "meta-llama/Llama-3.1-8B-Instruct", "enforce_eager": true, "max_model_len": 8192,
                "gpu_memory_utilization": 0.9, "kv_cache_dtype_skip_layers": ["0", "sliding_window"],
                "speculative_config": {"method": "eagle3", "num_speculative_tokens": 3}, "tokenizer": null,
                "attention_config": {"backend": "FLASHINFER", "flash_attn_version": 3, "use_trtllm_attention": false},
                "dtype": "torch.bfloat16", "x": [1, -2500.0], "esc": "it's\nA"
            })
        );
    }

    #[test]
    fn bad_text_is_an_error_not_a_panic() {
        for bad in [
            "",
            "{",
            "{'a'",
            "{'a': }",
            "'open",
            "[1, 2",
            "<X.Y",
            "'\\x4'",
            "A(b=",
            "{'a': 1 'b': 2}",
            "\u{feff}",
        ] {
            assert!(read(bad).is_err(), "{bad:?}");
        }
        let deep = "[".repeat(MAX_DEPTH + 5);
        assert!(read(&deep).unwrap_err().contains("deeper"));
        // Multi-byte characters in strings and at an error's position.
        assert_eq!(read("'é✓'").unwrap().0, json!("é✓"));
        assert!(read("{'a': é}").is_err());
    }
}
