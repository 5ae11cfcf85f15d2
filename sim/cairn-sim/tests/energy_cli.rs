//! `cairn-sim run` with energy profiles and scenario files: bad scenarios exit 2 with one
//! line naming the key; attribution on real kernel firmware (build/fw, from `make build`);
//! deterministic stats.

use std::path::PathBuf;

mod firmware;
mod sim_cli;
use firmware::fw_path as fw;
use sim_cli::run;

fn tmp(name: &str) -> PathBuf {
    sim_cli::tmp("energy-cli", name)
}

fn bad_scenario(text: &str, key: &str) {
    let p = tmp(&format!("bad-{}.toml", key.replace('.', "_")));
    std::fs::write(&p, text).unwrap();
    let (status, _, err) = run(&["run", "--device", p.to_str().unwrap(), "nonexistent.elf"]);
    assert_eq!(status, 2, "{text}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains(p.to_str().unwrap()), "names the file: {err}");
    assert!(err.contains(&format!("{key}:")), "names {key}: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_scenarios_exit_2_with_one_line_naming_the_key() {
    bad_scenario("colour = \"blue\"\n", "colour");
    bad_scenario("clock = [1]\n", "clock");
    bad_scenario("[energy]\nprofile = \"foo\"\n", "energy.profile");
    bad_scenario("[energy]\nprofile = \"stm32l053\"\nvoltage_v = \"high\"\n", "energy");
    bad_scenario("[memory]\nsram = -4\n", "memory.sram");
    bad_scenario("[measure]\nenergy = 3\n", "measure");
    bad_scenario("[categories]\nkernel = 7\n", "categories.kernel");
    bad_scenario("[energy]\nprofile = \"/no/such/profile.toml\"\n", "energy.profile");
    bad_scenario("this is not toml", "");
    let (status, _, err) = run(&["run", "--device", "/no/such/scenario.toml", "x.elf"]);
    assert_eq!(status, 2);
    assert!(err.contains("/no/such/scenario.toml"), "{err}");
    let (status, _, err) = run(&["run", "--energy", "foo", "x.elf"]);
    assert_eq!((status, err.trim_end().lines().count()), (2, 1), "{err}");
    assert!(err.contains("unknown profile \"foo\" (known: stm32l053, nrf51822)"), "{err}");
}

#[test]
fn scenario_io_sections_work_with_energy() {
    let Some(elf) = fw("hello.elf") else { return };
    let p = tmp("with_io.toml");
    std::fs::write(
        &p,
        "[energy]\nprofile = \"nrf51822\"\n[[stimulus]]\nname = \"tick\"\nkind = \"periodic\"\nperiod = \"1ms\"\nline = 0\n[pin.led]\nindex = 3\n",
    )
    .unwrap();
    let v = stats(&["--device", p.to_str().unwrap(), "--max-time", "10ms", elf.to_str().unwrap()], "with_io.json");
    assert!(v["energy_joules"]["total"].as_f64().unwrap() > 0.0, "{v}");
    // At 1, 2, ..., 9 ms: the run stops at 10 ms, before the tenth.
    assert_eq!(v["io"]["stimuli"]["tick"]["fired"].as_u64(), Some(9), "{}", v["io"]);
    // A bad I/O key in a scenario: one line naming the file and the key, exit 2.
    std::fs::write(&p, "[[stimulus]]\nname = \"tick\"\nkind = \"periodic\"\nperiod = \"0ms\"\nline = 0\n").unwrap();
    let (status, _, err) = run(&["run", "--device", p.to_str().unwrap(), elf.to_str().unwrap()]);
    assert_eq!((status, err.trim_end().lines().count()), (2, 1), "{err}");
    assert!(err.contains("with_io.toml") && err.contains("stimulus[0].period"), "{err}");
}

fn stats(args: &[&str], name: &str) -> serde_json::Value {
    let out = tmp(name);
    let mut all: Vec<&str> = vec!["run", "--stats", out.to_str().unwrap()];
    all.extend_from_slice(args);
    let (status, _, err) = run(&all);
    assert!(status == 0 || status == 124, "{status}: {err}");
    serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap()
}

fn sum(v: &serde_json::Value) -> u64 {
    v.as_object().unwrap().values().map(|x| x.as_u64().unwrap()).sum()
}

#[test]
fn kernel_firmware_attribution_by_category_task_and_function() {
    let Some(elf) = fw("hello.elf") else { return };
    let s = stats(&["--energy", "stm32l053", "--max-time", "1s", elf.to_str().unwrap()], "hello.json");
    let fj = &s["energy_fj"];
    let total = fj["total"].as_u64().unwrap();
    assert!(total > 0);
    for k in ["by_state", "by_category", "by_task"] {
        assert_eq!(sum(&fj[k]), total, "{k} sums to the total");
    }
    for c in ["handler", "kernel", "user", "idle", "timer"] {
        assert!(fj["by_category"][c].as_u64().unwrap_or(0) > 0, "category {c}: {}", fj["by_category"]);
    }
    for t in ["kernel", "irq", "task1", "task2"] {
        assert!(fj["by_task"][t].as_u64().unwrap_or(0) > 0, "task {t}: {}", fj["by_task"]);
    }
    assert!(fj["by_state"]["deep_sleep"].as_u64().unwrap() > 0, "{}", fj["by_state"]);
    let idle = &s["idle"];
    assert!(idle["periods"].as_u64().unwrap() >= 3, "{idle}");
    assert!(idle["percent"].as_f64().unwrap() > 90.0, "{idle}");
    let prof = s["profile"].as_array().unwrap();
    let row = |name: &str| prof.iter().find(|r| r["symbol"] == name).unwrap_or_else(|| panic!("{name} in profile"));
    assert_eq!(row("pendsv_handler")["category"], "handler");
    assert!(row("pendsv_handler")["calls"].as_u64().unwrap() > 0, "exception entries count as calls");
    assert!(row("memset")["calls"].as_u64().unwrap() > 0, "BL calls are counted");
    assert_eq!(row("hello_task")["category"], "user");
}

#[test]
fn category_map_from_a_scenario_overrides_the_defaults() {
    let Some(elf) = fw("hello.elf") else { return };
    let p = tmp("cats.toml");
    std::fs::write(
        &p,
        format!(
            "firmware = \"{}\"\nclock = \"16MHz\"\n[energy]\nprofile = \"stm32l053\"\n[categories]\napp = [\"hello_*\", \"timer_task\"]\nlibc = \"sym:mem*\"\nheap = \"file:heap.c\"\nsched = \"file:kernel/core/sched.c\"\n",
            elf.display()
        ),
    )
    .unwrap();
    let s = stats(&["--device", p.to_str().unwrap(), "--max-time", "100ms"], "cats.json");
    let prof = s["profile"].as_array().unwrap();
    let cat = |name: &str| prof.iter().find(|r| r["symbol"] == name).map(|r| r["category"].clone());
    assert_eq!(cat("hello_task").unwrap(), "app");
    assert_eq!(cat("memset").unwrap(), "libc");
    // file: patterns see the STT_FILE of local (static) functions.
    assert_eq!(cat("alloc_for").unwrap(), "heap");
    // ... and DWARF's compilation units give global functions their file.
    assert_eq!(cat("cairn_sched_init").unwrap(), "sched");
    assert_eq!(s["clock_hz"], 16_000_000);
}

#[test]
fn energy_runs_are_deterministic() {
    let Some(elf) = fw("hello.elf") else { return };
    let args = ["--energy", "nrf51822", "--max-time", "300ms", elf.to_str().unwrap()];
    let mut a = stats(&args, "det-a.json");
    let mut b = stats(&args, "det-b.json");
    for v in [&mut a, &mut b] {
        let o = v.as_object_mut().unwrap();
        o.remove("host_seconds");
        o.remove("mips");
    }
    assert_eq!(a, b);
}

#[test]
fn trace_has_task_slices_power_counters_and_interrupt_instants() {
    let Some(elf) = fw("hello.elf") else { return };
    let out = tmp("trace.json");
    let (status, _, err) = run(&[
        "run",
        "--energy",
        "stm32l053",
        "--max-time",
        "500ms",
        "--trace",
        out.to_str().unwrap(),
        elf.to_str().unwrap(),
    ]);
    assert_eq!(status, 124, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let ev = doc["traceEvents"].as_array().unwrap();
    let has = |f: &dyn Fn(&serde_json::Value) -> bool| ev.iter().any(f);
    assert!(has(&|e| e["ph"] == "M" && e["args"]["name"] == "task 1"), "task track named");
    let begins = ev.iter().filter(|e| e["ph"] == "B" && e["name"] == "task 1").count();
    let ends = ev.iter().filter(|e| e["ph"] == "E" && e["name"] == "task 1").count();
    assert!(begins > 0 && begins == ends, "task 1 slices balanced: {begins} B, {ends} E");
    assert!(has(&|e| e["ph"] == "C" && e["name"] == "power state" && e["args"]["state"] == 2), "deep sleep");
    assert!(has(&|e| e["ph"] == "C" && e["name"] == "supply current (uA)"), "current track");
    assert!(has(&|e| e["ph"] == "X" && e["name"] == "wake-up"), "wake-up slices");
    assert!(has(&|e| e["ph"] == "i" && e["tid"] == 4), "interrupt instants");
}

#[test]
fn command_line_firmware_wins_over_the_scenario() {
    let Some(elf) = fw("hello.elf") else { return };
    let p = tmp("fw.toml");
    std::fs::write(&p, "firmware = \"no-such-firmware.elf\"\n").unwrap();
    let (status, _, err) = run(&["run", "--device", p.to_str().unwrap(), "--max-time", "1ms", elf.to_str().unwrap()]);
    assert_eq!(status, 124, "{err}");
    let (status, _, err) = run(&["run", "--device", p.to_str().unwrap()]);
    assert_eq!(status, 2);
    assert!(err.contains("no-such-firmware.elf"), "{err}");
}

#[test]
fn profile_file_relative_to_the_scenario() {
    let Some(elf) = fw("hello.elf") else { return };
    let dir = tmp("profdir");
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../profiles/nrf51822.toml")).unwrap();
    std::fs::write(dir.join("mine.toml"), text.replace("name = \"nrf51822\"", "name = \"mine\"")).unwrap();
    std::fs::write(dir.join("s.toml"), "[energy]\nprofile = \"mine.toml\"\n").unwrap();
    let s = stats(
        &["--device", dir.join("s.toml").to_str().unwrap(), "--max-time", "10ms", elf.to_str().unwrap()],
        "prof.json",
    );
    assert_eq!(s["energy_model"]["profile"], "mine");
    std::fs::write(dir.join("bad.toml"), "version = 1\nname = \"x\"\n").unwrap();
    std::fs::write(dir.join("s2.toml"), "[energy]\nprofile = \"bad.toml\"\n").unwrap();
    let (status, _, err) = run(&["run", "--device", dir.join("s2.toml").to_str().unwrap(), elf.to_str().unwrap()]);
    assert_eq!((status, err.trim_end().lines().count()), (2, 1), "{err}");
    assert!(err.contains("energy.profile:") && err.contains("bad.toml"), "{err}");
}
