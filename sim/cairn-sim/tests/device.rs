//! Devices of several processors (`run --device` with `[[processor]]` tables) on the device
//! test firmware (kernel/tests/device, built to build/fw by `make build`): exact frame
//! timing from the bus parameters, a ping-pong round trip, a five-module broadcast, flow
//! control under a slow receiver, power control, every fault rule, the same results for any
//! scheduler quantum, and bad device files.

use std::path::{Path, PathBuf};

mod device_files;
mod firmware;
mod sim_cli;
use device_files::*;
use firmware::fw_path as fw;
use sim_cli::run;

const TAG: &str = "device";

fn tmp(name: &str) -> PathBuf {
    sim_cli::tmp(TAG, name)
}

fn device(name: &str, bus: &str, procs: &[(&str, &Path, &str)], extra: &str) -> PathBuf {
    device_files::device(TAG, name, bus, procs, extra)
}

fn run_device(file: &Path, extra: &[&str]) -> Run {
    device_files::run_device(TAG, file, false, extra)
}

#[test]
fn pingpong_frames_follow_the_tdma_timing_formula_and_the_round_trip_matches() {
    let Some(elf) = fw("device-pingpong.elf") else { return };
    let file = device(
        "pingpong",
        "slot = \"8us\"\nlatency = \"500ns\"",
        &[("hub", &elf, "32MHz"), ("leaf", &elf, "4MHz")],
        "",
    );
    let r = run_device(&file, &[]);
    assert_eq!(r.status, 0, "{}", r.err);
    let pongs = r.out.lines().filter(|l| l.starts_with("leaf: pong ")).count();
    assert_eq!(pongs, 8, "{}", r.out);
    assert!(r.out.contains("hub: pingpong done"));
    assert_eq!(r.frames.len(), 16);
    let slot = 8_000_000u64;
    for f in &r.frames {
        // Slots alternate hub, leaf: hub owns the even ones.
        let owner = if f[SRC] == "hub" { 0 } else { 1 };
        let q = num(f, QUEUED);
        let first = (0..).map(|k| (2 * k + owner) * slot).find(|&s| s >= q).unwrap();
        assert_eq!(num(f, START), first, "frame {f:?}");
        // (4 header + 8 payload bytes) at 64 MB/s = 187.5 ns, plus 500 ns latency.
        assert_eq!(num(f, ARRIVAL), first + 187_500 + 500_000, "frame {f:?}");
        assert_eq!(num(f, BYTES), 8);
    }
    // The hub times each round trip with SysTick from just before TX_SEND to RX_AVAIL seen:
    // the bus log's ping-queued to pong-arrival, in 32 MHz cycles, up to the polling loop.
    let rtts: Vec<u64> =
        r.out.lines().filter_map(|l| l.strip_prefix("hub: ping ")?.split(" rtt ").nth(1)?.parse().ok()).collect();
    assert_eq!(rtts.len(), 8);
    for (k, rtt) in rtts.iter().enumerate() {
        let (ping, pong) = (&r.frames[2 * k], &r.frames[2 * k + 1]);
        assert_eq!((ping[DST].as_str(), pong[DST].as_str()), ("leaf", "hub"));
        let expect = (num(pong, ARRIVAL) - num(ping, QUEUED)) * 32 / 1_000_000;
        assert!(rtt.abs_diff(expect) <= 16, "round trip {k}: firmware {rtt} cycles, bus log {expect}");
    }
}

#[test]
fn results_are_the_same_for_any_scheduler_quantum() {
    let Some(elf) = fw("device-broadcast.elf") else { return };
    let procs: Vec<(String, &str)> = (0..4).map(|i| (format!("m{i}"), if i == 0 { "32MHz" } else { "4MHz" })).collect();
    let procs: Vec<(&str, &Path, &str)> = procs.iter().map(|(n, c)| (n.as_str(), elf.as_path(), *c)).collect();
    let file = device("quanta", "slot = \"5us\"", &procs, "[processor.energy]\nprofile = \"stm32l053\"\n");
    let base = run_device(&file, &[]);
    assert_eq!(base.status, 0, "{}", base.err);
    for q in ["100ns", "1us", "3us"] {
        let r = run_device(&file, &["--quantum", q]);
        assert_eq!(r.out, base.out, "quantum {q}");
        assert_eq!(r.frames, base.frames, "quantum {q}");
        assert_eq!(simulated(&r.stats), simulated(&base.stats), "quantum {q}");
        assert!(r.stats["windows"].as_u64() > base.stats["windows"].as_u64(), "the quantum did cut the windows");
    }
}

#[test]
fn five_modules_broadcast_and_acknowledge() {
    let Some(_) = fw("device-broadcast.elf") else { return };
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../experiments/devices/five-modules.toml");
    let r = run_device(&file, &[]);
    assert_eq!(r.status, 0, "{}", r.err);
    for seq in 0..4 {
        assert!(r.out.contains(&format!("main: seq {seq} acks 4")), "{}", r.out);
        for (m, name) in ["radio", "sensor", "storage", "audio"].iter().enumerate() {
            assert!(r.out.contains(&format!("{name}: m{} got {seq} from 0", m + 1)), "{}", r.out);
        }
    }
    // 4 broadcasts, one frame each on the wire, and 16 acknowledgements.
    assert_eq!(r.frames.iter().filter(|f| f[DST] == "*").count(), 4);
    assert_eq!(r.stats["bus"]["frames"], 20);
    let total = r.stats["energy_joules"]["total"].as_f64().unwrap();
    let parts: f64 = r.stats["processors"]
        .as_object()
        .unwrap()
        .values()
        .map(|p| p["energy_joules"]["total"].as_f64().unwrap())
        .sum::<f64>()
        + r.stats["energy_joules"]["bus"].as_f64().unwrap();
    assert!((total - parts).abs() < 1e-12, "{total} vs {parts}");
    assert!(r.stats["energy_joules"]["bus"].as_f64().unwrap() > 0.0);
}

#[test]
fn a_slow_receiver_holds_the_sender_and_loses_nothing() {
    let Some(elf) = fw("device-flow.elf") else { return };
    let file = device("flow", "rx_fifo = 1", &[("fast", &elf, "32MHz"), ("slow", &elf, "4MHz")], "");
    let r = run_device(&file, &[]);
    assert_eq!(r.status, 0, "{}", r.err);
    assert!(r.out.contains("slow: received 32 errors 0"), "{}", r.out);
    assert!(r.stats["bus"]["flow_control_stalls"].as_u64().unwrap() > 0);
    assert!(r.frames.iter().any(|f| num(f, STALLS) > 0));
    // With one place in the FIFO, a frame to the slow module never goes before the previous
    // one was popped: never two on their way at once.
    let to_slow: Vec<&Vec<String>> = r.frames.iter().filter(|f| f[DST] == "slow").collect();
    assert_eq!(to_slow.len(), 32);
}

#[test]
fn power_off_and_wake_up_by_a_frame() {
    let Some(elf) = fw("device-power.elf") else { return };
    let file = device("power", "", &[("a", &elf, "32MHz"), ("b", &elf, "4MHz")], "");
    let r = run_device(&file, &[]);
    assert_eq!(r.status, 0, "{}", r.err);
    let b: Vec<&str> = r.out.lines().filter_map(|l| l.strip_prefix("b: ")).collect();
    assert_eq!(b, ["m1 boot", "m1 echo 1", "m1 off", "m1 boot", "m1 echo 2", "m1 boot", "m1 echo 3"]);
    assert!(r.out.contains("a: power done"));
    let power = &r.stats["processors"]["b"]["power"];
    assert_eq!((power["off"].as_u64(), power["on"].as_u64()), (Some(2), Some(2)));
    assert!(r.stats["processors"]["b"]["off_cycles"].as_u64().unwrap() > 0);
    assert_eq!(r.stats["bus"]["power_frames"], 2);
}

fn stream(name: &str, faults: &str) -> Option<Run> {
    let elf = fw("device-stream.elf")?;
    let file = device(name, "", &[("tx", &elf, "32MHz"), ("rx", &elf, "32MHz")], faults);
    Some(run_device(&file, &[]))
}

fn received(r: &Run) -> Vec<String> {
    r.out.lines().filter_map(|l| l.strip_prefix("rx: rx ")).map(String::from).collect()
}

#[test]
fn fault_rules_drop_corrupt_and_delay_frames() {
    let Some(clean) = stream("clean", "") else { return };
    assert_eq!(received(&clean), (0..10).map(|k| format!("{k} ok")).collect::<Vec<_>>(), "{}", clean.err);
    let dropped = stream("drop", "[[fault]]\naction = \"drop\"\nevery = 3\nsrc = \"tx\"\n").unwrap();
    assert_eq!(received(&dropped), ["0 ok", "1 ok", "3 ok", "4 ok", "6 ok", "7 ok", "9 ok"]);
    assert_eq!(dropped.stats["bus"]["dropped"], 3);
    assert_eq!(dropped.stats["faults"].as_array().unwrap().len(), 3);
    let corrupt = stream("corrupt", "[[fault]]\naction = \"corrupt\"\nfirst_bytes = [4]\n").unwrap();
    // The flipped bit is the payload's first: sequence 4 arrives as 5, marked corrupt.
    assert_eq!(received(&corrupt)[4], "5 bad");
    assert_eq!(received(&corrupt).iter().filter(|l| l.ends_with("bad")).count(), 1);
    let delayed = stream("delay", "[[fault]]\naction = \"delay\"\ndelay = \"1ms\"\ndst = \"rx\"\n").unwrap();
    assert_eq!(received(&delayed), received(&clean));
    for (d, c) in delayed.frames.iter().zip(&clean.frames) {
        assert_eq!(num(d, ARRIVAL) - num(d, START), num(c, ARRIVAL) - num(c, START) + 1_000_000_000);
    }
    let drops = "[[fault]]\naction = \"drop\"\nprobability = 0.5\n";
    let (a, b) = (stream("p1", drops).unwrap(), stream("p2", drops).unwrap());
    assert!(received(&a).len() < 10, "some frames dropped");
    assert_eq!(received(&a), received(&b), "same seed, same drops");
}

#[test]
fn module_faults_power_off_and_reset_at_a_time() {
    let Some(elf) = fw("device-stream.elf") else { return };
    let Some(hello) = fw("hello-8.elf") else { return };
    let file = device(
        "reset",
        "",
        &[("tx", &elf, "32MHz"), ("rx", &elf, "32MHz"), ("os", &hello, "25MHz")],
        "[[fault]]\naction = \"reset\"\nprocessor = \"os\"\nat = \"2ms\"\n[[fault]]\naction = \"power_off\"\nprocessor = \"rx\"\nat = \"100us\"\n",
    );
    let r = run_device(&file, &["--max-time", "60ms"]);
    let os = &r.stats["processors"]["os"];
    assert_eq!(os["power"]["resets"], 1, "{}", r.err);
    let faults = r.stats["faults"].as_array().unwrap();
    assert!(faults.iter().any(|f| f["action"] == "reset" && f["processor"] == "os" && f["time_s"] == 0.002));
    assert!(faults.iter().any(|f| f["action"] == "power_off" && f["processor"] == "rx"));
    // The receiver, off from 100 us, is powered on again by the next unicast frame.
    assert_eq!(r.stats["processors"]["rx"]["power"]["off"], 1);
    assert_eq!(r.stats["processors"]["rx"]["power"]["on"], 1);
}

#[test]
fn bad_device_files_exit_2_with_one_line_naming_file_and_key() {
    let Some(elf) = fw("device-pingpong.elf") else { return };
    let e = elf.display();
    let cases = [
        (format!("[[processor]]\nname = \"a\"\nfirmware = \"{e}\"\n[[processor]]\nname = \"a\"\nfirmware = \"{e}\"\n"), "processor.a.name"),
        (format!("[[processor]]\nname = \"a\"\nfirmware = \"{e}\"\n[[processor]]\nname = \"b\"\naddress = 0\nfirmware = \"{e}\"\n"), "processor.b.address"),
        ("[[processor]]\nname = \"a\"\nfirmware = \"nope.elf\"\n".to_string(), "processor.a.firmware"),
        (format!("[[processor]]\nname = \"a\"\nfirmware = \"{e}\"\nclok = 3\n"), "processor.a.clok"),
        (format!("[bus]\nslot = \"1us\"\n[[processor]]\nname = \"a\"\nfirmware = \"{e}\"\n"), "bus.slot"),
        (format!("[bus]\nspeed = 1\n[[processor]]\nname = \"a\"\nfirmware = \"{e}\"\n"), "bus.speed"),
        (format!("[bus]\nslot_order = [\"z\"]\n[[processor]]\nname = \"a\"\nfirmware = \"{e}\"\n"), "bus.slot_order"),
        (format!("[[processor]]\nname = \"a\"\nfirmware = \"{e}\"\ncore = \"msp430\"\n"), "processor.a.core"),
        (format!("[[processor]]\nname = \"a\"\nfirmware = \"{e}\"\n[[fault]]\naction = \"reset\"\nprocessor = \"q\"\nat = \"1ms\"\n"), "fault[0].processor"),
        (format!("[[processor]]\nname = \"a\"\nfirmware = \"{e}\"\n[[fault]]\naction = \"melt\"\n"), "fault[0].action"),
        (format!("[[processor]]\nfirmware = \"{e}\"\n"), "processor[0].name"),
        (format!("[[processor]]\nname = \"a\"\nfirmware = \"{e}\"\nboard = \"nope\"\n"), "processor.a: unknown board"),
        (
            format!("[[processor]]\nname = \"a\"\nfirmware = \"{e}\"\nclock = \"48MHz\"\n[processor.energy]\nprofile = \"stm32l053\"\n"),
            "processor.a: stm32l053: no voltage range",
        ),
    ];
    for (i, (text, key)) in cases.iter().enumerate() {
        let p = tmp(&format!("bad{i}.toml"));
        std::fs::write(&p, text).unwrap();
        let (status, out, err) = run(&["run", "--device", p.to_str().unwrap()]);
        assert_eq!(status, 2, "case {i}: {err}");
        assert!(out.is_empty());
        assert_eq!(err.lines().count(), 1, "case {i}: {err}");
        assert!(err.contains(&p.display().to_string()) && err.contains(key), "case {i}: expected {key}: {err}");
    }
    let good = tmp("good.toml");
    std::fs::write(&good, format!("[[processor]]\nname = \"a\"\nfirmware = \"{e}\"\n")).unwrap();
    let (status, _, err) = run(&["run", "--device", good.to_str().unwrap(), "--clock", "8MHz"]);
    assert_eq!(status, 2);
    assert!(err.starts_with("cairn-sim: --clock: not available with a device file"), "{err}");
    // An I/O scenario belongs to a processor (its io-log, to the device).
    let (status, _, err) = run(&["run", "--device", good.to_str().unwrap(), "--io", "x.toml"]);
    assert_eq!(status, 2);
    assert!(err.starts_with("cairn-sim: --io: not available with a device file"), "{err}");
    assert!(err.contains("set it per processor"), "{err}");
}

#[test]
fn console_dir_writes_each_processors_output_to_its_own_file() {
    let Some(elf) = fw("device-pingpong.elf") else { return };
    let file = device("consoles", "", &[("hub", &elf, "32MHz"), ("leaf", &elf, "4MHz")], "");
    let dir = tmp("consoles");
    std::fs::create_dir_all(&dir).unwrap();
    let (status, out, err) = run(&["run", "--device", file.to_str().unwrap(), "--console-dir", dir.to_str().unwrap()]);
    assert_eq!(status, 0, "{err}");
    assert!(out.is_empty());
    let leaf = std::fs::read_to_string(dir.join("leaf.txt")).unwrap();
    assert_eq!(leaf.lines().filter(|l| l.starts_with("pong ")).count(), 8, "{leaf}");
    assert!(std::fs::read_to_string(dir.join("hub.txt")).unwrap().ends_with("pingpong done\n"));
    let (status, _, err) = run(&["run", "--device", file.to_str().unwrap(), "--console-dir", "/nonexistent/x"]);
    assert_eq!((status, err.lines().count()), (2, 1), "{err}");
}

#[test]
fn frames_that_can_never_go_end_the_run_instead_of_spinning() {
    let Some(busy) = fw("device-busy-100.elf") else { return };
    let Some(hello) = fw("hello-8.elf") else { return };
    // The sender queues frames for a module whose program never pops its one-frame FIFO, and
    // exits; then that program exits too: the frames left can never go.
    let file = device("stuck", "rx_fifo = 1", &[("tx", &busy, "48MHz"), ("rx", &hello, "25MHz")], "");
    let r = run_device(&file, &["--max-time", "10s"]);
    assert_eq!(r.status, 0, "{}", r.err);
    assert_eq!(r.frames.len(), 1, "only the first frame found room");
    assert!(r.stats["simulated_seconds"].as_f64().unwrap() < 2.0, "{}", r.stats["simulated_seconds"]);
}

#[test]
fn a_module_fault_at_the_nth_trace_port_event() {
    let Some(hello) = fw("hello-8.elf") else { return };
    let Some(elf) = fw("device-stream.elf") else { return };
    // Cairn OS writes an event word per kernel event, its code in the top byte: reset the
    // module at its third handler start (CAIRN_EV_START = 0x02).
    let rule = "[[fault]]\naction = \"reset\"\nprocessor = \"os\"\non_trace = 0x02000000\ntrace_mask = 0xFF000000\ncount = 3\n";
    let file =
        device("trace-reset", "", &[("os", &hello, "25MHz"), ("tx", &elf, "32MHz"), ("rx", &elf, "32MHz")], rule);
    let r = run_device(&file, &["--max-time", "300ms"]);
    assert_eq!(r.stats["processors"]["os"]["power"]["resets"], 1, "{}", r.err);
    let faults = r.stats["faults"].as_array().unwrap();
    assert_eq!(faults.len(), 1);
    assert_eq!(faults[0]["action"], "reset");
    assert!(faults[0]["time_s"].as_f64().unwrap() > 0.0);
    // Once only: the count does not start again after the reset.
    let plain = run_device(
        &device("trace-plain", "", &[("os", &hello, "25MHz"), ("tx", &elf, "32MHz"), ("rx", &elf, "32MHz")], ""),
        &["--max-time", "300ms"],
    );
    assert_ne!(r.out, plain.out, "the reset changed what the module printed");
}

#[test]
fn each_modules_rtc_runs_at_its_crystals_true_frequency() {
    let Some(elf) = fw("device-rtc.elf") else { return };
    // Three modules at one core clock, crystals +20, -20 and 0 ppm; each sleeps until its
    // RTC reaches 32768 (one second of its crystal) and then runs the same code to its exit.
    let extra = |ppm: i32| format!("rtc_ppm = {ppm}\n");
    let mut text = String::new();
    for (name, ppm) in [("fast", 20), ("slow", -20), ("exact", 0)] {
        text.push_str(&format!(
            "[[processor]]\nname = \"{name}\"\nfirmware = \"{}\"\nclock = \"4MHz\"\n{}",
            elf.display(),
            extra(ppm)
        ));
    }
    let file = tmp("rtc.toml");
    std::fs::write(&file, text).unwrap();
    let r = run_device(&file, &[]);
    assert_eq!(r.status, 0, "{}", r.err);
    let cycles = |n: &str| r.stats["processors"][n]["cycles"].as_u64().unwrap();
    // The alarm's cycle: the first at or after 32768 ticks of 32768 × (1 + ppm) Hz, at 4 MHz.
    let alarm = |ppm: i64| (32_768u128 * 4_000_000 * 1_000_000).div_ceil((32_768 * (1_000_000 + ppm)) as u128) as u64;
    assert_eq!(cycles("exact") - cycles("fast"), alarm(0) - alarm(20));
    assert_eq!(cycles("slow") - cycles("exact"), alarm(-20) - alarm(0));
    // 40 µs apart after one second: the worst case between two ±20 ppm crystals.
    assert_eq!(cycles("slow") - cycles("fast"), 160);
    assert_eq!(r.stats["processors"]["fast"]["rtc_frequency_hz"], 32_768.655_36);
}
