//! `cairn-sim run --rtos` and the scenario's `rtos` key on the test firmware `rtos_tasks`
//! (build/fw, from `make build`): per-task energy and trace tracks by task name, the same
//! results from the command line and from a scenario, and every bad spec or ELF exits 2 with
//! one line.

use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

mod firmware;
mod sim_cli;
use firmware::fw_path as fw;
use sim_cli::run;

fn tmp(name: &str) -> PathBuf {
    sim_cli::tmp("rtos-cli", name)
}

fn json(p: &PathBuf) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// Stats of a run of the test firmware with `extra` options.
fn stats(extra: &[&str], name: &str) -> Option<Value> {
    let elf = fw("test-rtos_tasks.elf")?;
    let s = tmp(name);
    let mut args = vec!["run", "--energy", "stm32l053", "--stats", s.to_str().unwrap()];
    args.extend_from_slice(extra);
    args.push(elf.to_str().unwrap());
    let (status, _, err) = run(&args);
    assert_eq!(status, 0, "{err}");
    Some(json(&s))
}

#[test]
fn energy_by_task_name_sums_to_the_total_and_trace_tracks_are_named() {
    let Some(elf) = fw("test-rtos_tasks.elf") else { return };
    let (s, t) = (tmp("named.json"), tmp("named-trace.json"));
    let (status, out, err) = run(&[
        "run",
        "--rtos",
        "freertos",
        "--energy",
        "stm32l053",
        "--stats",
        s.to_str().unwrap(),
        "--trace",
        t.to_str().unwrap(),
        elf.to_str().unwrap(),
    ]);
    assert_eq!(status, 0, "{out}{err}");
    let st = json(&s);
    let by_task = st["energy_fj"]["by_task"].as_object().unwrap();
    let keys: Vec<&str> = by_task.keys().map(|k| k.as_str()).collect();
    assert_eq!(keys, ["alpha", "beta", "gamma", "irq", "kernel", "peripherals"]);
    let sum: u64 = by_task.values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(sum, st["energy_fj"]["total"].as_u64().unwrap());
    let names: Vec<&str> =
        st["rtos"]["tasks"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["alpha", "beta", "gamma"]);
    assert!(st["rtos"]["switches"].as_u64().unwrap() >= 3);
    let tr = json(&t);
    let tracks: Vec<&str> = tr["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "M" && e["tid"].as_u64().unwrap_or(0) >= 16)
        .map(|e| e["args"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(tracks, ["alpha", "beta", "gamma"]);
}

#[test]
fn scenario_rtos_key_string_and_table_match_the_command_line() {
    let Some(cli) = stats(&["--rtos", "current=rr_kernel.cpus[1].current,name=pcLabel"], "cli.json") else { return };
    let by = |v: &Value| v["energy_fj"]["by_task"].clone();
    assert!(by(&cli).get("lbl-gamma").is_some(), "{}", by(&cli));
    let table = tmp("table.toml");
    std::fs::write(&table, "[rtos]\ncurrent = \"rr_kernel.cpus[1].current\"\nname = \"pcLabel\"\n").unwrap();
    let t = stats(&["--device", table.to_str().unwrap()], "table.json").unwrap();
    assert_eq!(by(&t), by(&cli));
    let string = tmp("string.toml");
    std::fs::write(&string, "rtos = \"freertos\"\n").unwrap();
    let s = stats(&["--device", string.to_str().unwrap()], "string.json").unwrap();
    let f = stats(&["--rtos", "freertos"], "freertos.json").unwrap();
    assert_eq!(by(&s), by(&f));
    assert!(by(&f).get("alpha").is_some());
    // --rtos wins over the scenario's key.
    let both =
        stats(&["--device", string.to_str().unwrap(), "--rtos", "current=pxCurrentTCB,name=pcLabel"], "both.json")
            .unwrap();
    assert!(by(&both).get("lbl-alpha").is_some(), "{}", by(&both));
}

fn bad(args: &[&str], want: &str) {
    let (status, out, err) = run(args);
    assert_eq!(status, 2, "{args:?}: {out}{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains(want), "{args:?}: {err}");
    assert!(!err.contains("panicked") && !err.contains("internal error"), "{err}");
    assert!(out.is_empty(), "nothing ran: {out}");
}

#[test]
fn bad_specs_and_elves_exit_2_with_one_line() {
    let Some(elf) = fw("test-rtos_tasks.elf") else { return };
    let e = elf.to_str().unwrap();
    bad(&["run", "--rtos", "ucos", e], "--rtos: unknown RTOS 'ucos'");
    bad(&["run", "--rtos", "current=a..b", e], "--rtos: current: 'a..b': expected an identifier");
    bad(&["run", "--rtos", "name=pcTaskName", e], "missing current=SYMBOL");
    bad(&["run", "--rtos", "zephyr", e], "no symbol '_kernel' in the ELF");
    bad(&["run", "--rtos", "current=pxCurrentTCB,name=pcTaskNam", e], "has no member 'pcTaskNam'");
    bad(&["run", "--rtos", "current=rr_kernel.cpus[9].current", e], "index 9 is out of bounds");
    let scen = tmp("bad-rtos.toml");
    std::fs::write(&scen, "rtos = \"current=\"\n").unwrap();
    bad(&["run", "--device", scen.to_str().unwrap(), e], "rtos: current: empty path");
    // A copy without debug information.
    let stripped = tmp("stripped.elf");
    let ok = Command::new("arm-none-eabi-objcopy")
        .args(["--strip-debug", e, stripped.to_str().unwrap()])
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if ok {
        bad(&["run", "--rtos", "freertos", stripped.to_str().unwrap()], "has no DWARF debug information");
    } else {
        eprintln!("skipping the stripped-ELF case: arm-none-eabi-objcopy not available");
    }
    // Cairn OS firmware has no FreeRTOS pointer.
    if let Some(demo) = fw("demo.elf") {
        bad(&["run", "--rtos", "freertos", demo.to_str().unwrap()], "no symbol 'pxCurrentTCB'");
    }
}
