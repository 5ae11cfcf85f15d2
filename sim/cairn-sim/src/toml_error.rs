//! TOML parse errors as one line: the `toml` crate's messages span several lines (a source
//! excerpt with a caret), and every error cairn-sim prints is one line naming file and key.

/// The non-empty lines of `msg`, trimmed and joined with spaces.
pub fn one_line(msg: &str) -> String {
    msg.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
}
