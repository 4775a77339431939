//! Exact decimal ↔ `f64` conversions in integer arithmetic, so that the page carries none of core's float parsing and
//! formatting (`dec2flt`, `flt2dec` and their `POWER_OF_FIVE_128` / cached-power tables: about 20 KB gzip of wasm that
//! does not compress; `scripts/budget.sh` fails if they come back).
//!
//! - [`parse_decimal`]: a JSON number's text to the nearest `f64` (ties to even), as Python's `float()` / `json.loads`
//!   and core's `str::parse` give it.
//! - [`fixed`]: a finite `f64` with a fixed number of decimals, correctly rounded from its exact binary value (ties to
//!   even), as Python's `'%.2f'` and core's `{:.2}` print it.
//!
//! It imports nothing of the crate.

/// The powers of ten an `f64` holds exactly (10^0 ..= 10^22): one multiplication or division by them is correctly
/// rounded (Clinger's fast path).
const EXACT_POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21,
    1e22,
];

/// Significant digits kept: a rounding boundary between two doubles (a midpoint) has at most 767 significant digits,
/// so the digits after the 800th only matter as "some nonzero digit follows", which one `1` digit stands for.
const MAX_DIGITS: usize = 800;

/// The nearest `f64` to a decimal number's text `[-+]digits[.digits][(e|E)[-+]digits]` (either digit run may be empty,
/// not both; the caller has checked the grammar), ties to even; ±inf beyond `f64`'s range, ±0 below it.
pub fn parse_decimal(text: &str) -> f64 {
    let b = text.as_bytes();
    let negative = b.first() == Some(&b'-');
    let mut i = usize::from(matches!(b.first(), Some(b'-' | b'+')));
    // The significant digits (no leading zeros) and the decimal exponent of the last one.
    let mut digits: Vec<u8> = Vec::new();
    let mut exp: i64 = 0;
    let mut dropped_nonzero = false;
    let mut in_frac = false;
    while i < b.len() {
        match b[i] {
            b'.' => in_frac = true,
            d @ b'0'..=b'9' => {
                if digits.is_empty() && d == b'0' {
                    if in_frac {
                        exp -= 1;
                    }
                } else if digits.len() < MAX_DIGITS {
                    digits.push(d - b'0');
                    if in_frac {
                        exp -= 1;
                    }
                } else {
                    dropped_nonzero |= d != b'0';
                    if !in_frac {
                        exp += 1;
                    }
                }
            }
            _ => break,
        }
        i += 1;
    }
    if i < b.len() {
        // The exponent: saturating, far beyond any range that matters.
        i += 1;
        let exp_negative = b.get(i) == Some(&b'-');
        i += usize::from(matches!(b.get(i), Some(b'-' | b'+')));
        let mut e: i64 = 0;
        for &d in &b[i..] {
            e = (e * 10 + i64::from(d.wrapping_sub(b'0'))).min(1 << 40);
        }
        exp += if exp_negative { -e } else { e };
    }
    if dropped_nonzero {
        digits.push(1);
        exp -= 1;
    }
    while digits.last() == Some(&0) {
        digits.pop();
        exp += 1;
    }
    let magnitude = unsigned(&digits, exp);
    if negative {
        -magnitude
    } else {
        magnitude
    }
}

/// `digits × 10^exp` (no leading or trailing zero digit) to the nearest `f64`.
fn unsigned(digits: &[u8], exp: i64) -> f64 {
    if digits.is_empty() {
        return 0.0;
    }
    // The value lies in [10^(k-1), 10^k).
    let k = digits.len() as i64 + exp;
    if k > 310 {
        return f64::INFINITY;
    }
    if k < -324 {
        return 0.0; // below 10^-325, less than half the smallest subnormal (2^-1075 ≈ 2.47e-324)
    }
    if digits.len() <= 15 && exp.abs() <= 22 {
        // Both operands exact (the integer < 10^15 < 2^53): one correctly rounded operation.
        let n = digits.iter().fold(0u64, |n, &d| n * 10 + u64::from(d)) as f64;
        let p = EXACT_POW10[exp.unsigned_abs() as usize];
        return if exp < 0 { n / p } else { n * p };
    }
    let mut num = Big::from_digits(digits);
    let mut den = Big::one();
    if exp >= 0 {
        num.mul_pow10(exp as u32);
    } else {
        den.mul_pow10((-exp) as u32);
    }
    // q = floor(num × 2^s / den) with 2^64 <= q < 2^66: the value is q × 2^-s, plus a nonzero remainder (sticky).
    let s = 65 - (num.bits() as i64 - den.bits() as i64);
    if s >= 0 {
        num.shl(s as usize);
    } else {
        den.shl((-s) as usize);
    }
    let (q, sticky) = num.div_small_quotient(&den, 67);
    let top = 127 - q.leading_zeros() as i64; // 64 or 65
    let e = top - s; // the binary exponent of q's top bit
    if e > 1023 {
        return f64::INFINITY;
    }
    // Bits kept: 53 for a normal double, fewer for a subnormal one (its last bit is 2^-1074).
    let keep = if e >= -1022 { 53 } else { e + 1075 };
    if keep < 0 {
        return 0.0; // below 2^-1075
    }
    let drop = (top + 1 - keep) as u32;
    let mut kept = (q >> drop) as u64;
    let rest = q & ((1u128 << drop) - 1);
    let half = 1u128 << (drop - 1);
    if rest > half || (rest == half && (sticky || kept % 2 == 1)) {
        kept += 1;
    }
    if e < -1022 {
        // Subnormal: the bits are the mantissa (a carry into 2^52 is the smallest normal, exponent field 1).
        return f64::from_bits(kept);
    }
    let (mut kept, mut e) = (kept, e);
    if kept == 1 << 53 {
        kept >>= 1;
        e += 1;
    }
    if e > 1023 {
        return f64::INFINITY;
    }
    f64::from_bits((((e + 1023) as u64) << 52) | (kept & ((1 << 52) - 1)))
}

/// An unsigned big integer, 32-bit limbs, least significant first.
struct Big(Vec<u32>);

impl Big {
    fn one() -> Big {
        Big(vec![1])
    }

    fn from_digits(digits: &[u8]) -> Big {
        let mut n = Big(Vec::new());
        for chunk in digits.chunks(9) {
            let (mut mul, mut add) = (1u32, 0u32);
            for &d in chunk {
                mul *= 10;
                add = add * 10 + u32::from(d);
            }
            n.mul_add(mul, add);
        }
        n
    }

    fn mul_add(&mut self, mul: u32, add: u32) {
        let mut carry = u64::from(add);
        for limb in &mut self.0 {
            let v = u64::from(*limb) * u64::from(mul) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    fn mul_pow10(&mut self, mut exp: u32) {
        while exp > 0 {
            let step = exp.min(9);
            self.mul_add(10u32.pow(step), 0);
            exp -= step;
        }
    }

    fn bits(&self) -> usize {
        match self.0.iter().rposition(|&l| l != 0) {
            Some(i) => 32 * i + 32 - self.0[i].leading_zeros() as usize,
            None => 0,
        }
    }

    fn shl(&mut self, by: usize) {
        let (words, bits) = (by / 32, by % 32);
        if bits > 0 {
            let mut carry = 0u32;
            for limb in &mut self.0 {
                let v = *limb;
                *limb = (v << bits) | carry;
                carry = v >> (32 - bits);
            }
            if carry > 0 {
                self.0.push(carry);
            }
        }
        if words > 0 {
            self.0.splice(0..0, std::iter::repeat_n(0, words));
        }
    }

    /// `self >= other << (32 * words)`.
    fn ge_shifted(&self, other: &Big, words: usize) -> bool {
        let len = self.0.len().max(other.0.len() + words);
        for i in (0..len).rev() {
            let a = self.0.get(i).copied().unwrap_or(0);
            let b = if i >= words {
                other.0.get(i - words).copied().unwrap_or(0)
            } else {
                0
            };
            if a != b {
                return a > b;
            }
        }
        true
    }

    /// `self -= other` (`self >= other`).
    fn sub(&mut self, other: &Big) {
        let mut borrow = 0i64;
        for (i, limb) in self.0.iter_mut().enumerate() {
            let v = i64::from(*limb) - i64::from(other.0.get(i).copied().unwrap_or(0)) - borrow;
            *limb = v as u32; // mod 2^32
            borrow = i64::from(v < 0);
        }
    }

    /// `floor(self / den)`, known to be below `2^bits` (bits <= 127), and whether a remainder is left; `self` keeps
    /// the remainder.
    fn div_small_quotient(&mut self, den: &Big, bits: usize) -> (u128, bool) {
        let mut q = 0u128;
        for i in (0..bits).rev() {
            let mut shifted = Big(den.0.clone());
            shifted.shl(i);
            q <<= 1;
            if self.ge_shifted(&shifted, 0) {
                self.sub(&shifted);
                q |= 1;
            }
        }
        (q, self.0.iter().any(|&l| l != 0))
    }
}

/// A finite `f` with `decimals` (at most 4) digits after the point: its exact binary value rounded half to even, as
/// Python's `'%.{decimals}f'` and core's `{:.decimals$}` print it; `inf`, `-inf`, `NaN` as core's `Display` does. `f`
/// must be below 2^100 in magnitude (qpath prints percentages and ratios of 64-bit sizes).
pub fn fixed(f: f64, decimals: u32) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    let sign = if f.is_sign_negative() { "-" } else { "" };
    if f.is_infinite() {
        return format!("{sign}inf");
    }
    let bits = f.abs().to_bits();
    let (biased, fraction) = ((bits >> 52) as i32, bits & ((1 << 52) - 1));
    let (m, e2) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), biased - 1075)
    };
    let scale = 10u128.pow(decimals);
    // |f| × 10^decimals, rounded half to even to an integer.
    let scaled: u128 = if e2 >= 0 {
        (u128::from(m) * scale) << e2
    } else {
        let n = u128::from(m) * scale; // < 2^67
        let shift = (-e2) as u32;
        if shift >= 70 {
            0 // below 2^-3: rounds to zero
        } else {
            let (q, rest) = (n >> shift, n & ((1u128 << shift) - 1));
            let half = 1u128 << (shift - 1);
            q + u128::from(rest > half || (rest == half && q % 2 == 1))
        }
    };
    let (int, frac) = (scaled / scale, scaled % scale);
    if decimals == 0 {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{frac:0width$}", width = decimals as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::{fixed, parse_decimal};
    use crate::test_rng::Rng;

    fn check(text: &str) {
        let want: f64 = text.parse().unwrap();
        assert_eq!(parse_decimal(text).to_bits(), want.to_bits(), "{text}");
    }

    /// The exact decimal text of `m × 2^e` (what a rounding boundary between two doubles is).
    fn exact(m: u64, e: i32) -> String {
        // m × 2^e = m × 5^-e / 10^-e for e < 0.
        let mut digits: Vec<u8> = m.to_string().bytes().map(|b| b - b'0').collect();
        let mul = |digits: &mut Vec<u8>, by: u32| {
            let mut carry = 0u32;
            for d in digits.iter_mut().rev() {
                let v = u32::from(*d) * by + carry;
                *d = (v % 10) as u8;
                carry = v / 10;
            }
            while carry > 0 {
                digits.insert(0, (carry % 10) as u8);
                carry /= 10;
            }
        };
        let text = |digits: &[u8]| digits.iter().map(|d| char::from(b'0' + d)).collect::<String>();
        if e >= 0 {
            for _ in 0..e {
                mul(&mut digits, 2);
            }
            text(&digits)
        } else {
            for _ in 0..-e {
                mul(&mut digits, 5);
            }
            format!("{}e{e}", text(&digits))
        }
    }

    #[test]
    fn parse_agrees_with_core() {
        for text in [
            "0",
            "-0",
            "0.0",
            "-0.0",
            "1",
            "-1",
            "1e400",
            "-1e400",
            "1e-400",
            "1e309",
            "1.7976931348623157e308",
            "1.7976931348623158e308",
            "1.7976931348623159e308",
            "2.2250738585072011e-308",
            "2.2250738585072014e-308",
            "4.9406564584124654e-324",
            "2.4703282292062327e-324",
            "2.4703282292062328e-324",
            "5e-324",
            "3e-324",
            "9007199254740993",
            "9007199254740992.5",
            "9007199254740993.0000000000000000000000001",
            "0.1",
            "0.2",
            "0.30000000000000004",
            "1e23",
            "8.98846567431158e307",
            "123456789012345678901234567890",
            "1e22",
            "1e-22",
            "123456789012345e22",
            "1.5e-45",
            "100000000000000000000000e-22",
            "0.000000000000000000000000000001e30",
            "1E5",
            "1e+5",
            "-12.5e-3",
            "10000.0",
            "1e-06",
            "0.02",
            "1000000.0",
            "1e99999999999999999999",
            "1e-99999999999999999999",
        ] {
            check(text);
        }
        let long = format!("0.{}1", "0".repeat(2000));
        check(&long);
        check(&format!("1{}", "0".repeat(400)));
        check(&format!("4.9406564584124654{}e-324", "9".repeat(1000)));
        // 2^-1075 exactly (half the smallest subnormal: ties to even, 0) and just above it (5e-324).
        let half_min = exact(1, -1075);
        check(&half_min);
        let (mantissa, exp) = half_min.split_once('e').unwrap();
        check(&format!("{mantissa}1e{exp}"));
        let mut rng = Rng(0x5eed_f10a_7000_0001);
        for _ in 0..20_000 {
            let f = f64::from_bits(rng.next() >> 1);
            if !f.is_finite() {
                continue;
            }
            check(&format!("{f:e}"));
            check(&format!("{f:.20e}"));
            check(&format!("{:.5e}", f));
            // The rounding boundaries next to f: (2m ± 1) × 2^(e-1), exactly, and one unit of their last digit
            // either side.
            let bits = f.to_bits();
            let (biased, fraction) = ((bits >> 52) as i32, bits & ((1 << 52) - 1));
            let (m, e) = if biased == 0 {
                (fraction, -1074)
            } else {
                (fraction | (1 << 52), biased - 1075)
            };
            if rng.next() % 8 == 0 {
                let mid = exact(2 * m + 1, e - 1);
                check(&mid);
                let (mantissa, exp) = mid.split_once('e').unwrap_or((&mid, "0"));
                check(&format!("{mantissa}1e{exp}"));
                check(&format!("{mantissa}0000000000000000000000000000000000001e{exp}"));
            }
            let digits = rng.next() % 30 + 1;
            let n: String = (0..digits).map(|_| char::from(b'0' + (rng.next() % 10) as u8)).collect();
            let exp = (rng.next() % 700) as i64 - 350;
            check(&format!("{n}e{exp}"));
            check(&format!("-0.{n}e{}", exp / 10));
        }
    }

    #[test]
    fn fixed_agrees_with_core() {
        let mut rng = Rng(0x5eed_f10a_7000_0002);
        let mut values = vec![
            0.0, -0.0, 0.125, 0.375, 0.625, 0.875, 2.675, 1.005, 0.005, 0.015, 0.0049999, 99.995, 1e-300, 5e-324, 1e20, 1.2e21,
            123.455, 0.5, 1.5, 2.5,
        ];
        for _ in 0..200_000 {
            let r = rng.next();
            values.push(match r % 4 {
                0 => {
                    let (d, m) = (rng.next() % 1_000_000 + 1, rng.next() % 100_000_000 + 1);
                    100.0 * d as f64 / m as f64
                }
                1 => (rng.next() % 100_000) as f64 / 8.0,
                2 => f64::from_bits(rng.next() >> 1) % 1e21,
                _ => (rng.next() % 1_000_000_000) as f64 / 1000.0,
            });
        }
        for v in values {
            if v.is_finite() && v.abs() < 1e30 {
                for d in 0..=4 {
                    assert_eq!(fixed(v, d), format!("{v:.*}", d as usize), "{v:e} with {d}");
                }
            }
        }
        assert_eq!(fixed(f64::INFINITY, 2), format!("{:.2}", f64::INFINITY));
        assert_eq!(fixed(f64::NAN, 2), format!("{:.2}", f64::NAN));
    }
}
