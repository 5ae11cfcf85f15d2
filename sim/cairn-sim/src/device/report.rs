//! The `--stats` document of a device: each processor's single-processor statistics under
//! `processors.NAME`, the bus's, the faults injected, and the device's totals (energy =
//! the processors' + the bus's).

use super::cosim::{Device, State};
use crate::report::stats_json;
use crate::time::PS_PER_S;
use serde_json::json;

fn seconds(ps: u64) -> f64 {
    ps as f64 / PS_PER_S as f64
}

pub fn device_json(d: &Device, host_seconds: f64, exit_status: i32, statuses: &[i32]) -> serde_json::Value {
    let mut processors = serde_json::Map::new();
    let mut energy_fj: u128 = 0;
    let mut instructions = 0u64;
    for (p, &status) in d.procs.iter().zip(statuses) {
        let mut s = stats_json(&p.m, host_seconds, status);
        if let Some(o) = s.as_object_mut() {
            o.insert(
                "state".into(),
                json!(match p.state {
                    State::Running => "running",
                    State::Asleep => "asleep",
                    State::Off => "off",
                    State::Done => "done",
                }),
            );
            o.insert("off_cycles".into(), json!(p.m.off_cycles));
            o.insert("power".into(), json!({"off": p.powered_off, "on": p.powered_on, "resets": p.resets}));
            o.insert("rtc_frequency_hz".into(), json!(p.m.rtc.frequency_uhz() as f64 / 1e6));
        }
        energy_fj += s.pointer("/energy_fj/total").and_then(|v| v.as_u64()).unwrap_or(0) as u128;
        instructions += p.m.instructions;
        processors.insert(p.name.clone(), s);
    }
    let st = &d.bus.stats;
    let frames = st.frames.max(1) as f64;
    let bus_j = d.bus.energy_j(d.now);
    let names: Vec<&str> = d.procs.iter().map(|p| p.name.as_str()).collect();
    let faults: Vec<serde_json::Value> = d
        .faults
        .iter()
        .map(|f| json!({"time_s": seconds(f.at_ps), "rule": f.rule, "action": f.action, "processor": names[f.processor]}))
        .chain(d.bus.log.iter().filter(|r| r.fault_rule.is_some()).map(|r| {
            json!({
                "time_s": seconds(r.start_ps),
                "rule": r.fault_rule,
                "action": if r.dropped { "drop" } else if r.corrupt { "corrupt" } else { "delay" },
                "frame": r.id,
                "src": names[r.src],
            })
        }))
        .collect();
    json!({
        "device": d.name,
        "exit_status": exit_status,
        "simulated_seconds": seconds(d.now),
        "host_seconds": host_seconds,
        "instructions": instructions,
        "mips": if host_seconds > 0.0 { instructions as f64 / host_seconds / 1e6 } else { 0.0 },
        "windows": d.windows,
        "energy_joules": {
            "total": energy_fj as f64 * 1e-15 + bus_j,
            "processors": energy_fj as f64 * 1e-15,
            "bus": bus_j,
        },
        "bus": {
            "frames": st.frames,
            "bytes": st.bytes,
            "utilisation": if d.now > 0 { st.wire_ps as f64 / d.now as f64 } else { 0.0 },
            "mean_latency_s": if st.frames > 0 { st.latency_ps_sum as f64 / frames / PS_PER_S as f64 } else { 0.0 },
            "max_latency_s": seconds(st.latency_ps_max),
            "flow_control_stalls": st.stalls,
            "dropped": st.dropped,
            "corrupted": st.corrupted,
            "delayed": st.delayed,
            "power_frames": st.power_frames,
            "lookahead_s": seconds(d.bus.params.lookahead()),
        },
        "faults": faults,
        "processors": processors,
    })
}
