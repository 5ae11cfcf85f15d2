//! Parsing of the numeric values given on the command line or in scenario files:
//! durations, frequencies, sizes and plain counts. Every source of a value (a command-line
//! string, a TOML string, integer or float) goes through the same function here, via
//! [`number_text`] for TOML, so a value refused in one form is refused in every form, with
//! the valid range in the message.

/// Parse a simulated duration such as `10ms`, `2s`, `1.5us`, `250ns`, `100ps` into picoseconds.
pub fn parse_duration_ps(s: &str) -> Result<u128, String> {
    let s = s.trim();
    let split = s.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let scale: u128 = match unit {
        "s" | "" => 1_000_000_000_000,
        "ms" => 1_000_000_000,
        "us" => 1_000_000,
        "ns" => 1_000,
        "ps" => 1,
        _ => return Err(format!("invalid duration '{s}': unit must be s, ms, us, ns or ps")),
    };
    let value = parse_decimal(num, scale).ok_or_else(|| format!("invalid duration '{s}'"))?;
    Ok(value)
}

/// Parse a data rate in bytes per second: `64MB/s`, `500kB/s`, `1000000` (powers of 1000).
pub fn parse_byte_rate(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let scale: u128 = match unit {
        "" | "B/s" => 1,
        "kB/s" => 1_000,
        "MB/s" => 1_000_000,
        "GB/s" => 1_000_000_000,
        _ => return Err(format!("invalid rate '{t}': unit must be B/s, kB/s, MB/s or GB/s")),
    };
    match parse_decimal(num, scale) {
        Some(v) if (1..=1_000_000_000_000).contains(&v) => Ok(v as u64),
        _ => Err(format!("invalid rate '{t}': expected from 1 B/s to 1000 GB/s")),
    }
}

/// Parse a frequency: `25000000`, `25MHz`, `32.768kHz`, `48M`.
pub fn parse_hz(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let scale: u128 = match unit.to_ascii_lowercase().as_str() {
        "" | "hz" => 1,
        "k" | "khz" => 1_000,
        "m" | "mhz" => 1_000_000,
        "g" | "ghz" => 1_000_000_000,
        _ => return Err(format!("invalid frequency '{s}': use Hz, kHz, MHz or GHz")),
    };
    match parse_decimal(num, scale) {
        Some(v) if v >= 1 && v <= u32::MAX as u128 * 4 => Ok(v as u64),
        _ => Err(format!("invalid frequency '{s}': must be a whole number of Hz from 1 Hz to 17 GHz")),
    }
}

/// Parse a byte size: `4096`, `64K`, `4M`, `64KiB`.
pub fn parse_size(s: &str) -> Result<u32, String> {
    let t = s.trim();
    let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let scale: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" | "kb" => 1024,
        "m" | "mib" | "mb" => 1024 * 1024,
        _ => return Err(format!("invalid size '{s}': use bytes, K or M")),
    };
    let v: u64 = num.parse().map_err(|_| format!("invalid size '{s}'"))?;
    match v.checked_mul(scale) {
        Some(b) if (1024..=256 << 20).contains(&b) && b.is_multiple_of(4) => Ok(b as u32),
        _ => Err(format!("invalid size '{s}': must be a multiple of 4 between 1 KiB and 256 MiB")),
    }
}

/// A non-negative integer between `lo` and `hi`: counts, seeds, ports, wait states.
pub fn parse_uint(s: &str, lo: u64, hi: u64) -> Result<u64, String> {
    let t = s.trim();
    let v: u64 = match t.parse() {
        Ok(v) if t.bytes().all(|b| b.is_ascii_digit()) => v,
        _ if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) => {
            return Err(format!("{t} is out of range {lo}..={hi}"));
        }
        _ => return Err(format!("{t} is not a non-negative integer")),
    };
    if (lo..=hi).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{v} is out of range {lo}..={hi}"))
    }
}

/// Flash wait states (`--flash-wait-states`, `[memory] flash_wait_states`, a profile's
/// `wait_states_above`): 0 to 15.
pub fn parse_wait_states(s: &str) -> Result<u32, String> {
    parse_uint(s, 0, 15).map(|w| w as u32)
}

/// A TOML value of a numeric key as the text the parsers above take: a string as written,
/// an integer or a finite float in decimal (`25e6` is `25000000`). Converting instead of
/// casting keeps integers from being truncated and ranges from being skipped.
pub fn number_text(v: &toml::Value) -> Result<String, String> {
    match v {
        toml::Value::String(s) => Ok(s.clone()),
        toml::Value::Integer(i) => Ok(i.to_string()),
        toml::Value::Float(x) if x.is_finite() => Ok(format!("{x}")),
        toml::Value::Float(x) => Err(format!("{x} is not a finite number")),
        other => Err(format!("expected a number or a string, found {}", other.type_str())),
    }
}

/// A numeric TOML key, checked by the same parser as its command-line option whatever its
/// TOML type. The error names the key.
pub fn numeric<T>(key: &str, v: &toml::Value, parse: impl Fn(&str) -> Result<T, String>) -> Result<T, String> {
    number_text(v).and_then(|t| parse(&t)).map_err(|e| format!("{key}: {e}"))
}

/// A TOML number (integer or float) that `ok` accepts; otherwise the error names the key,
/// shows the value and says what was `expected`.
pub fn toml_float(key: &str, v: &toml::Value, ok: impl Fn(f64) -> bool, expected: &str) -> Result<f64, String> {
    match v.as_float().or(v.as_integer().map(|i| i as f64)) {
        Some(x) if ok(x) => Ok(x),
        _ => Err(format!("{key}: {}: expected {expected}", crate::toml_error::shown(v))),
    }
}

/// Exact decimal parsing: "1.25" with scale 1000 -> 1250. None when malformed or fractional.
fn parse_decimal(num: &str, scale: u128) -> Option<u128> {
    if num.is_empty() {
        return None;
    }
    let (int, frac) = match num.split_once('.') {
        Some((i, f)) => (i, f),
        None => (num, ""),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.chars().all(|c| c.is_ascii_digit()) || !frac.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let int_v: u128 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let mut v = int_v.checked_mul(scale)?;
    let mut unit = scale;
    for d in frac.chars() {
        if !unit.is_multiple_of(10) {
            return None; // finer than the unit allows
        }
        unit /= 10;
        v = v.checked_add(d.to_digit(10)? as u128 * unit)?;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ps("10ms"), Ok(10_000_000_000));
        assert_eq!(parse_duration_ps("2s"), Ok(2_000_000_000_000));
        assert_eq!(parse_duration_ps("1.5us"), Ok(1_500_000));
        assert_eq!(parse_duration_ps("3"), Ok(3_000_000_000_000));
        assert!(parse_duration_ps("10 parsecs").is_err());
        assert!(parse_duration_ps("ms").is_err());
        assert!(parse_duration_ps("-1s").is_err());
        assert!(parse_duration_ps("1.5ps").is_err());
    }

    #[test]
    fn frequencies_and_sizes() {
        assert_eq!(parse_hz("25MHz"), Ok(25_000_000));
        assert_eq!(parse_hz("32.768kHz"), Ok(32_768));
        assert_eq!(parse_hz("48000000"), Ok(48_000_000));
        assert!(parse_hz("0").is_err());
        assert!(parse_hz("fast").is_err());
        assert_eq!(parse_size("64K"), Ok(65536));
        assert_eq!(parse_size("4M"), Ok(4 << 20));
        assert!(parse_size("3").is_err());
        assert!(parse_size("1G").is_err());
    }

    #[test]
    fn counts_and_toml_numbers() {
        assert_eq!(parse_uint("15", 0, 15), Ok(15));
        assert_eq!(parse_uint("-1", 0, 15), Err("-1 is not a non-negative integer".into()));
        assert_eq!(parse_uint("16", 0, 15), Err("16 is out of range 0..=15".into()));
        assert_eq!(
            parse_uint("99999999999999999999", 0, 15),
            Err("99999999999999999999 is out of range 0..=15".into())
        );
        assert_eq!(parse_uint("many", 0, 15), Err("many is not a non-negative integer".into()));
        assert_eq!(number_text(&toml::Value::Integer(-5)), Ok("-5".into()));
        assert_eq!(number_text(&toml::Value::Float(25e6)), Ok("25000000".into()));
        assert_eq!(number_text(&toml::Value::Float(1.5)), Ok("1.5".into()));
        assert!(number_text(&toml::Value::Float(f64::NAN)).is_err());
        // An integer that a 32-bit cast would truncate to a valid size is refused.
        assert!(parse_size(&number_text(&toml::Value::Integer((1 << 32) + 65536)).unwrap()).is_err());
    }
}
