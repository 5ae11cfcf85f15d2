//! TOML parse errors as one line: the `toml` crate's messages span several lines (a source
//! excerpt with a caret), and every error cairn-sim prints is one line naming file and key.

/// The non-empty lines of `msg`, trimmed and joined with spaces.
pub fn one_line(msg: &str) -> String {
    msg.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
}

/// A TOML value as an error message shows it: `'text'`, `3`, `true`, or its type.
pub fn shown(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("'{s}'"),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => f.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        other => format!("a {}", other.type_str()),
    }
}
