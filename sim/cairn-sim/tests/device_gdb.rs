//! `cairn-sim run --device D.toml --gdb PORT --gdb-processor NAME`: gdb-multiarch, in batch
//! mode, debugs one processor of a two-module ping-pong device (build/fw/device-pingpong.elf,
//! built by `make build`). The debugger must see that processor (its breakpoints, its bus
//! controller's address), and the device must come out exactly as it does without a
//! debugger: the same console lines, bus frames and statistics. Needs gdb-multiarch; set
//! CAIRN_SKIP_GDB_TESTS=1 to skip the sessions on a machine without it.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod device_files;
mod firmware;
mod sim_cli;
use device_files::simulated;
use firmware::fw_path as fw;
use sim_cli::{run, SIM};

const GDB: &str = "gdb-multiarch";
const TIMEOUT: Duration = Duration::from_secs(60);

fn tmp(name: &str) -> PathBuf {
    sim_cli::tmp("device-gdb", name)
}

fn gdb_present() -> bool {
    let ok = Command::new(GDB).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status();
    if ok.is_ok_and(|s| s.success()) {
        return true;
    }
    if std::env::var_os("CAIRN_SKIP_GDB_TESTS").is_some() {
        eprintln!("skipping: {GDB} not installed (CAIRN_SKIP_GDB_TESTS is set)");
        return false;
    }
    panic!("{GDB} not installed (set CAIRN_SKIP_GDB_TESTS=1 to skip the gdb tests)");
}

/// The ping-pong device: hub (module 0, 32 MHz) pings leaf (module 1, 4 MHz) eight times.
fn pingpong(elf: &Path) -> PathBuf {
    let mut text = String::from("name = \"pingpong\"\n[bus]\nslot = \"8us\"\nlatency = \"500ns\"\n");
    for (name, clock) in [("hub", "32MHz"), ("leaf", "4MHz")] {
        text.push_str(&format!(
            "[[processor]]\nname = \"{name}\"\nfirmware = \"{}\"\nclock = \"{clock}\"\n",
            elf.display()
        ));
    }
    let p = tmp("pingpong.toml");
    std::fs::write(&p, text).unwrap();
    p
}

fn wait_or_kill(child: &mut Child, what: &str) -> i32 {
    let start = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s.code().unwrap_or(-1);
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not finish within {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What a device run left: exit status, stdout, stderr, the bus log and the stats.
struct Outcome {
    status: i32,
    out: String,
    err: String,
    frames: String,
    stats: Value,
}

/// Everything in the stats but the host's own figures.
/// Run the device, with a gdb-multiarch session of `commands` on `processor` if given.
/// Returns the run's outcome and what gdb printed.
fn device_run(tag: &str, file: &Path, elf: &Path, gdb: Option<(&str, &[&str])>) -> (Outcome, String) {
    let p = |ext: &str| tmp(&format!("{tag}.{ext}"));
    let mut cmd = Command::new(SIM);
    cmd.args(["run", "--device"]).arg(file).arg("--stats").arg(p("json")).arg("--bus-log").arg(p("csv"));
    if let Some((processor, _)) = gdb {
        cmd.args(["--gdb", "0", "--gdb-processor", processor]);
    }
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(p("stdout")).unwrap())
        .stderr(std::fs::File::create(p("stderr")).unwrap())
        .spawn()
        .unwrap();
    let mut gdb_text = String::new();
    if let Some((_, commands)) = gdb {
        let port = wait_for_port(&mut child, &p("stderr"));
        let mut g = Command::new(GDB);
        g.args(["-batch", "-nx", "-ex", "set pagination off", "-ex", "set confirm off"]).arg(elf);
        g.arg("-ex").arg(format!("target remote 127.0.0.1:{port}"));
        for c in commands {
            g.arg("-ex").arg(c);
        }
        let log = p("gdb");
        let f = std::fs::File::create(&log).unwrap();
        let mut gc = g.stdin(Stdio::null()).stdout(f.try_clone().unwrap()).stderr(f).spawn().unwrap();
        let status = wait_or_kill(&mut gc, "gdb");
        gdb_text = std::fs::read_to_string(&log).unwrap();
        assert_eq!(status, 0, "gdb failed:\n{gdb_text}");
    }
    let status = wait_or_kill(&mut child, "cairn-sim");
    let read = |ext: &str| std::fs::read_to_string(p(ext)).unwrap_or_default();
    let stats = serde_json::from_str(&read("json")).unwrap_or(Value::Null);
    let o = Outcome { status, out: read("stdout"), err: read("stderr"), frames: read("csv"), stats };
    (o, gdb_text)
}

fn wait_for_port(child: &mut Child, stderr: &Path) -> u16 {
    let marker = "cairn-sim: waiting for gdb on 127.0.0.1:";
    let start = Instant::now();
    loop {
        let text = std::fs::read_to_string(stderr).unwrap_or_default();
        let complete = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
        if let Some(rest) = complete.lines().find_map(|l| l.strip_prefix(marker)) {
            return rest.trim().parse().unwrap();
        }
        if let Some(s) = child.try_wait().unwrap() {
            panic!("cairn-sim exited early ({s}): {text}");
        }
        assert!(start.elapsed() < TIMEOUT, "cairn-sim never printed '{marker}PORT': {text}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn assert_same_device(a: &Outcome, b: &Outcome, gdb: &str) {
    let ctx = format!("--- gdb ---\n{gdb}\n--- stderr ---\n{}", b.err);
    assert_eq!(b.status, a.status, "{ctx}");
    assert_eq!(b.out, a.out, "console output\n{ctx}");
    assert_eq!(b.frames, a.frames, "bus log\n{ctx}");
    assert_eq!(simulated(&b.stats), simulated(&a.stats), "stats\n{ctx}");
}

#[test]
fn a_breakpoint_in_the_leaf_stops_the_leaf_and_the_device_comes_out_the_same() {
    let Some(elf) = fw("device-pingpong.elf") else { return };
    if !gdb_present() {
        return;
    }
    let file = pingpong(&elf);
    let (base, _) = device_run("plain", &file, &elf, None);
    assert_eq!(base.status, 0, "{}", base.err);
    assert_eq!(base.out.lines().filter(|l| l.starts_with("leaf: pong ")).count(), 8, "{}", base.out);

    let (r, out) = device_run(
        "leaf",
        &file,
        &elf,
        Some((
            "leaf",
            &[
                "break bus_send",
                "continue",
                r#"printf "PCAT %d\n", $pc == (unsigned)bus_send"#,
                r#"printf "ID 0x%08x\n", *(unsigned *)0x41005000"#,
                r#"printf "DEST %d\n", dest"#,
                "stepi",
                "continue",
                r#"printf "PCAT %d\n", $pc == (unsigned)bus_send"#,
                "monitor stats",
                "delete",
                "continue",
            ],
        )),
    );
    let ctx = format!("--- gdb ---\n{out}\n--- stderr ---\n{}", r.err);
    // The leaf answers each ping with bus_send; the hub never calls it.
    assert_eq!(out.matches("Breakpoint 1, bus_send (").count(), 2, "{ctx}");
    assert_eq!(out.matches("PCAT 1").count(), 2, "{ctx}");
    // ID: address 1 of 2 modules, connected.
    assert!(out.contains("ID 0x00010201"), "{ctx}");
    assert!(out.contains("DEST 0"), "the pong goes to the hub\n{ctx}");
    // The leaf's clock is 4 MHz: its own statistics, not the hub's.
    assert!(out.contains("at 4000000 Hz"), "{ctx}");
    // The hub exits and the leaf waits for a frame that never comes: the device's end.
    assert!(out.contains("Program received signal SIGSTOP"), "{ctx}");
    assert!(r.err.contains("with leaf asleep"), "{ctx}");
    assert_same_device(&base, &r, &out);
}

#[test]
fn continuing_the_hub_to_its_exit_changes_nothing() {
    let Some(elf) = fw("device-pingpong.elf") else { return };
    if !gdb_present() {
        return;
    }
    let file = pingpong(&elf);
    let (base, _) = device_run("plain2", &file, &elf, None);
    let (r, out) = device_run("hub", &file, &elf, Some(("hub", &["continue"])));
    assert!(out.contains("exited normally"), "{out}\n{}", r.err);
    // The session ends at the hub's exit; the device's end (the leaf asleep for good, the
    // statistics up to then) comes after it, with no debugger.
    assert_same_device(&base, &r, &out);
}

#[test]
fn stepping_and_watching_the_leaf_changes_nothing() {
    let Some(elf) = fw("device-pingpong.elf") else { return };
    if !gdb_present() {
        return;
    }
    let file = pingpong(&elf);
    let (base, _) = device_run("plain3", &file, &elf, None);
    // Step the leaf one instruction at a time while it sleeps until a ping arrives, then
    // watch the sequence number in the buffer the next ping goes to (which also runs the
    // leaf one instruction at a time).
    let (r, out) = device_run(
        "leafstep",
        &file,
        &elf,
        Some((
            "leaf",
            &[
                "break bus_recv_wait",
                "continue",
                "stepi 400",
                "next",
                "next",
                "finish",
                "delete",
                "watch -l *(unsigned *)buf",
                "continue",
                "continue",
                "delete",
                "continue",
            ],
        )),
    );
    assert!(out.contains("Breakpoint 1, bus_recv_wait"), "{out}\n{}", r.err);
    assert_eq!(
        out.matches("Hardware watchpoint 2: -location *(unsigned *)buf\n\nOld value").count(),
        2,
        "{out}\n{}",
        r.err
    );
    assert_same_device(&base, &r, &out);
}

#[test]
fn gdb_processor_mistakes_end_the_run_with_one_line() {
    let Some(elf) = fw("device-pingpong.elf") else { return };
    let file = pingpong(&elf);
    let f = file.to_str().unwrap();
    let cases: [(&[&str], &str); 3] = [
        (&["--gdb", "0", "--gdb-processor", "nosuch"], "no processor named 'nosuch'"),
        (&["--gdb", "0"], "--gdb-processor: required"),
        (&["--gdb-processor", "leaf"], "--gdb-processor: only with --gdb"),
    ];
    for (extra, want) in cases {
        let mut args = vec!["run", "--device", f];
        args.extend_from_slice(extra);
        let (status, out, err) = run(&args);
        assert_eq!(status, 2, "{extra:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{extra:?}: {err}");
        assert!(err.contains(want), "{extra:?}: {err}");
        assert!(out.is_empty() && !err.contains("waiting for gdb"), "{extra:?}: nothing ran");
    }
    let (status, _, err) = run(&["run", "--gdb", "0", "--gdb-processor", "leaf", elf.to_str().unwrap()]);
    assert_eq!(status, 2, "{err}");
    assert!(err.contains("--gdb-processor: only with a device file"), "{err}");
}
