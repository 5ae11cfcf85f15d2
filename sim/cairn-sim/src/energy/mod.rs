//! Energy accounting on a processor: the model and its state are crate cairn-observe's
//! (`cairn_observe::energy`, re-exported here); these are the processor's hooks that feed
//! it (`hooks`), the static cycle cost the hooks charge by (`cost`), and the breakdown read
//! back from a machine (`report`).

pub use cairn_observe::energy::*;
pub mod cost;
pub mod hooks;
pub mod report;
