//! Python's number parsing and reprs, as vLLM's messages show them: `int()`, `float()`, `str.lower/upper/strip`,
//! vLLM's `human_readable_int`, `repr()` of strings, floats and JSON values, and `json.dumps`.

use super::json::Value;

/// `str.strip()`: Unicode whitespace plus the ASCII separators U+001C–U+001F.
pub(super) fn py_strip(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

/// `int(s)` (base 10) as canonical decimal text: surrounding whitespace, a sign, `_` between digits.
fn py_int_text(s: &str) -> Option<String> {
    let t = py_strip(s);
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let bytes = digits.as_bytes();
    if bytes.is_empty() || !bytes.iter().all(|b| b.is_ascii_digit() || *b == b'_') {
        return None;
    }
    if bytes.first() == Some(&b'_') || bytes.last() == Some(&b'_') || digits.contains("__") {
        return None;
    }
    let clean: String = digits.chars().filter(|c| *c != '_').collect();
    let trimmed = clean.trim_start_matches('0');
    Some(match (trimmed.is_empty(), neg) {
        (true, _) => "0".to_string(),
        (false, true) => format!("-{trimmed}"),
        (false, false) => trimmed.to_string(),
    })
}

/// `int(s)`: `Ok(None)` for a valid integer beyond `i128`.
pub(crate) fn py_int(s: &str) -> Result<Option<i128>, ()> {
    py_int_text(s).map(|t| t.parse::<i128>().ok()).ok_or(())
}

/// `str.lower()` restricted to what can change a comparison with vLLM's ASCII names and choices: ASCII letters, and the
/// one non-ASCII letter Python lowers to ASCII (U+212A KELVIN SIGN → `k`). Other non-ASCII letters are kept as typed,
/// so an error message echoes `Ä` where Python would echo `ä`; the verdict (valid or not) is the same. This keeps
/// Unicode's case tables (about 10 KB compressed) out of the page.
pub(crate) fn py_lower(s: &str) -> String {
    s.chars()
        .map(|c| if c == '\u{212A}' { 'k' } else { c.to_ascii_lowercase() })
        .collect()
}

/// `str.upper()` restricted like [`py_lower`]: ASCII letters, and the non-ASCII letters Python raises to ASCII (dotless
/// ı → I, long ſ → S, ß → SS, and the Latin ligatures ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ).
pub(crate) fn py_upper(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        out.push_str(match c {
            '\u{131}' => "I",
            '\u{17F}' => "S",
            '\u{DF}' => "SS",
            '\u{FB00}' => "FF",
            '\u{FB01}' => "FI",
            '\u{FB02}' => "FL",
            '\u{FB03}' => "FFI",
            '\u{FB04}' => "FFL",
            '\u{FB05}' | '\u{FB06}' => "ST",
            _ => {
                out.push(c.to_ascii_uppercase());
                continue;
            }
        });
    }
    out
}

/// `float(s)`.
pub(super) fn py_float(s: &str) -> Option<f64> {
    let t = py_strip(s);
    let chars: Vec<char> = t.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if *c == '_' {
            let before = i
                .checked_sub(1)
                .and_then(|j| chars.get(j))
                .is_some_and(|d| d.is_ascii_digit());
            let after = chars.get(i + 1).is_some_and(|d| d.is_ascii_digit());
            if !(before && after) {
                return None;
            }
        }
    }
    let clean: String = chars.into_iter().filter(|c| *c != '_').collect();
    let body = clean.trim_start_matches(['+', '-']);
    let lower = body.to_ascii_lowercase();
    if clean.len() - body.len() > 1 {
        return None;
    }
    if lower == "nan" {
        return Some(f64::NAN);
    }
    if lower == "inf" || lower == "infinity" {
        return Some(if clean.starts_with('-') {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        });
    }
    // Python's decimal grammar: digits with at most one point, at least one digit, then an optional exponent
    // `e`/`E`, an optional sign and at least one digit.
    let (mantissa, exponent) = match body.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e.strip_prefix(['+', '-']).unwrap_or(e))),
        None => (body, None),
    };
    let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mantissa_ok = digits(int) && digits(frac) && !(int.is_empty() && frac.is_empty());
    if !mantissa_ok || exponent.is_some_and(|e| e.is_empty() || !digits(e)) {
        return None;
    }
    Some(decimal_to_f64(&clean))
}

/// The `f64` nearest a decimal literal that [`py_float`] has checked (`[+-]digits[.digits][e[+-]digits]`, either digit
/// run may be empty but not both, no `_`), ±inf beyond `f64`'s range, as Python's `float()` gives: correctly rounded
/// by [`crate::float::parse_decimal`] (the `json.loads` reader's conversion too), without core's `str::parse` tables.
pub(super) fn decimal_to_f64(literal: &str) -> f64 {
    crate::float::parse_decimal(literal)
}

pub(super) enum HrErr {
    Invalid,
    /// `ArgumentTypeError`: "Decimals are not allowed with binary suffixes like K. …".
    Decimal(String),
}

/// Decimal text times a small factor.
fn mul_decimal(digits: &str, factor: u64) -> String {
    let mut out: Vec<u8> = Vec::new();
    let mut carry: u128 = 0;
    for b in digits.bytes().rev() {
        let d = u128::from(b.saturating_sub(b'0'));
        let v = d * u128::from(factor) + carry;
        out.push(b'0' + (v % 10) as u8);
        carry = v / 10;
    }
    while carry > 0 {
        out.push(b'0' + (carry % 10) as u8);
        carry /= 10;
    }
    while out.len() > 1 && out.last() == Some(&b'0') {
        out.pop();
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// `human_readable_int` (utils/argparse_utils.py) as decimal text: `1k` → 1000, `1K` → 1024, `25.6k` → 25600.
pub(super) fn human_readable_int_text(value: &str) -> Result<String, HrErr> {
    let v = py_strip(value);
    let mut chars = v.chars();
    let suffix = chars.next_back();
    let number = chars.as_str();
    let is_number = {
        let (a, b) = number.split_once('.').unwrap_or((number, ""));
        !a.is_empty()
            && a.bytes().all(|c| c.is_ascii_digit())
            && (!number.contains('.') || (!b.is_empty() && b.bytes().all(|c| c.is_ascii_digit())))
    };
    if let (Some(s), true) = (suffix, is_number) {
        let decimal = match s {
            'k' => Some(1e3),
            'm' => Some(1e6),
            'g' => Some(1e9),
            't' => Some(1e12),
            _ => None,
        };
        let binary: Option<u64> = match s {
            'K' => Some(1 << 10),
            'M' => Some(1 << 20),
            'G' => Some(1 << 30),
            'T' => Some(1 << 40),
            _ => None,
        };
        if let Some(mult) = decimal {
            let f = decimal_to_f64(number) * mult;
            if !f.is_finite() {
                return Err(HrErr::Invalid);
            }
            return Ok(integer_text(f));
        }
        if let Some(mult) = binary {
            if number.contains('.') {
                return Err(HrErr::Decimal(format!(
                    "Decimals are not allowed with binary suffixes like {s}. Did you mean to use {number}{} instead?",
                    s.to_ascii_lowercase()
                )));
            }
            let digits = number.trim_start_matches('0');
            return Ok(mul_decimal(if digits.is_empty() { "0" } else { digits }, mult));
        }
    }
    py_int_text(v).ok_or(HrErr::Invalid)
}

pub(super) fn human_readable_int(value: &str) -> Result<Option<i128>, HrErr> {
    human_readable_int_text(value).map(|t| t.parse::<i128>().ok())
}

/// `repr(str)`.
pub(crate) fn py_str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() || super::escape::is_hidden(c) => {
                let n = c as u32;
                if n < 0x100 {
                    out.push_str(&format!("\\x{n:02x}"));
                } else {
                    out.push_str(&format!("\\u{n:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// `repr(float)`: shortest round-trip digits, fixed notation for exponents -4..16, else `1e+16` style.
pub(super) fn py_float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let (digits, exp) = shortest_digits(f);
    let sign = if f.is_sign_negative() { "-" } else { "" };
    if (-4..16).contains(&exp) {
        if exp >= 0 {
            let e = exp as usize;
            let int_part: String = if digits.len() > e {
                digits[..=e].to_string()
            } else {
                format!("{digits}{}", "0".repeat(e + 1 - digits.len()))
            };
            let frac = if digits.len() > e + 1 { &digits[e + 1..] } else { "0" };
            format!("{sign}{int_part}.{frac}")
        } else {
            format!("{sign}0.{}{digits}", "0".repeat((-exp - 1) as usize))
        }
    } else {
        let (first, rest) = digits.split_at(1.min(digits.len()));
        let frac = if rest.is_empty() { String::new() } else { format!(".{rest}") };
        format!("{sign}{first}{frac}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
    }
}

/// The shortest digits that round-trip a finite `f` (no sign, no leading or trailing zeros; `"0"` for zero) and the
/// decimal exponent of the first one: what `repr` prints (David Gay's shortest mode: the fewest digits that read back as
/// `f`, and of those the nearest to `f`). Computed exactly in decimal: `f`, and the two midpoints to its neighbours, are
/// integers times a power of ten; the answer is the first precision whose correctly rounded `f` lies between the
/// midpoints (on one too when `f`'s mantissa is even, as reading rounds ties to even). This replaces core's `{:e}`, whose
/// float-formatting code and tables would add about 7 KB compressed to the page.
pub(super) fn shortest_digits(f: f64) -> (String, i32) {
    let bits = f.abs().to_bits();
    let (biased, fraction) = ((bits >> 52) as i32, bits & ((1 << 52) - 1));
    if biased == 0 && fraction == 0 {
        return ("0".into(), 0);
    }
    let (m, e2) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), biased - 1075)
    };
    // f = 4m * 2^(e2-2); the midpoints are (4m + 2) and (4m - 2) times the same, or 4m - 1 below a power of two
    // (the gap to the next smaller double is half as wide there).
    let lower_gap = if fraction == 0 && biased > 1 { 1 } else { 2 };
    let e = e2 - 2;
    let (scale, q) = if e >= 0 {
        (pow_decimal(2, e as u32), 0)
    } else {
        (pow_decimal(5, (-e) as u32), e)
    };
    let value = mul_decimal(&scale, 4 * m);
    let high = mul_decimal(&scale, 4 * m + 2);
    let low = mul_decimal(&scale, 4 * m - lower_gap);
    let inclusive = m % 2 == 0;
    let cmp = |a: &str, b: &str| a.len().cmp(&b.len()).then_with(|| a.cmp(b));
    for p in 1..=value.len() {
        let (head, rest) = value.split_at(p);
        let half = format!("5{}", "0".repeat(rest.len().saturating_sub(1)));
        let up = match cmp(rest, &half) {
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Equal => head.bytes().last().is_some_and(|d| (d - b'0') % 2 == 1),
            std::cmp::Ordering::Less => false,
        };
        let rounded = if up { add_one(head) } else { head.to_string() };
        let candidate = format!("{rounded}{}", "0".repeat(rest.len()));
        let above_low = match cmp(&candidate, &low) {
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Equal => inclusive,
            std::cmp::Ordering::Less => false,
        };
        let below_high = match cmp(&candidate, &high) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Equal => inclusive,
            std::cmp::Ordering::Greater => false,
        };
        if above_low && below_high {
            let exponent = candidate.len() as i32 - 1 + q;
            return (candidate.trim_end_matches('0').to_string(), exponent);
        }
    }
    (value.trim_end_matches('0').to_string(), value.len() as i32 - 1 + q)
}

/// `base^exp` in decimal digits, for the small bases [`shortest_digits`] and [`integer_text`] scale by.
fn pow_decimal(base: u64, exp: u32) -> String {
    let mut text = "1".to_string();
    let mut left = exp;
    while left > 0 {
        let step = left.min(if base == 2 { 63 } else { 27 });
        text = mul_decimal(&text, base.pow(step));
        left -= step;
    }
    text
}

/// A decimal digit string plus one.
fn add_one(digits: &str) -> String {
    let mut out: Vec<u8> = digits.bytes().collect();
    for d in out.iter_mut().rev() {
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1;
            return String::from_utf8(out).unwrap_or_default();
        }
    }
    format!("1{}", String::from_utf8(out).unwrap_or_default())
}

/// `str(int(f))` for a finite `f`: every digit of its integer part (a float beyond 2^64 is an exact integer, so its text
/// is the mantissa times a power of two, multiplied out in decimal).
pub(super) fn integer_text(f: f64) -> String {
    let t = f.trunc();
    let sign = if t < 0.0 { "-" } else { "" };
    let a = t.abs();
    if a < 18_446_744_073_709_551_616.0 {
        return format!("{sign}{}", a as u64);
    }
    let bits = a.to_bits();
    let mantissa = (bits & ((1 << 52) - 1)) | (1 << 52);
    let shift = ((bits >> 52) & 0x7ff) as u32 - 1075;
    format!("{sign}{}", mul_decimal(&pow_decimal(2, shift), mantissa))
}

fn py_number(n: &serde_json::Number) -> String {
    if n.is_i64() || n.is_u64() {
        n.to_string()
    } else {
        py_float_repr(n.as_f64().unwrap_or(f64::NAN))
    }
}

/// `repr()` of the Python value `json.loads` makes of a JSON value.
pub(super) fn py_repr(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => py_number(n),
        Value::Float(f) => py_float_repr(*f),
        Value::String(s) => py_str_repr(s),
        Value::Array(a) => format!("[{}]", a.iter().map(py_repr).collect::<Vec<_>>().join(", ")),
        Value::Object(m) => {
            format!(
                "{{{}}}",
                m.iter()
                    .map(|(k, v)| format!("{}: {}", py_str_repr(k), py_repr(v)))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    }
}

pub(super) fn py_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() || n.is_u64() => "int",
        Value::Number(_) | Value::Float(_) => "float",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

/// `json.dumps(value)` with Python's defaults (`", "` / `": "` separators, `ensure_ascii=True`).
pub(super) fn py_json_dumps(v: &Value) -> String {
    fn string(s: &str, out: &mut String) {
        out.push('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                c if c.is_ascii() && (c as u32) >= 0x20 => out.push(c),
                c => {
                    let mut buf = [0u16; 2];
                    for unit in c.encode_utf16(&mut buf) {
                        out.push_str(&format!("\\u{unit:04x}"));
                    }
                }
            }
        }
        out.push('"');
    }
    fn go(v: &Value, out: &mut String) {
        match v {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Number(n) => out.push_str(&py_number(n)),
            Value::Float(f) => out.push_str(super::json::json_non_finite(*f)),
            Value::String(s) => string(s, out),
            Value::Array(a) => {
                out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    go(x, out);
                }
                out.push(']');
            }
            Value::Object(m) => {
                out.push('{');
                for (i, (k, x)) in m.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    string(k, out);
                    out.push_str(": ");
                    go(x, out);
                }
                out.push('}');
            }
        }
    }
    let mut out = String::new();
    go(v, &mut out);
    out
}
