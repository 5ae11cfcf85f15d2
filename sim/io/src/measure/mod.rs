//! Measurements of what happened at the pins and ports: per-port activity, inter-arrival
//! jitter against an expected period, stimulus->response delay distributions with deadline
//! misses. Fed event by event in time order, in bounded memory; integer cycles/picoseconds
//! inside, seconds out.
pub mod delay;
pub mod dist;
pub mod jitter;
pub mod report;
pub mod signals;
