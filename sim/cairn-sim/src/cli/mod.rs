//! Command-line front end.
pub mod report;
pub mod units;
