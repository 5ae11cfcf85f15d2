//! Command-line front end.
pub mod report;
