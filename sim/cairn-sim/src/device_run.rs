//! `cairn-sim run --device DEVICE.toml` for a device file: build each processor as a lone
//! run would (board, firmware, I/O scenario, energy, RTOS watch), connect their bus
//! controllers, run the device scheduler, print every processor's console lines with its
//! name in front, in simulated-time order, and write the device's statistics and outputs
//! (trace, waveform, io-log, bus log).

use super::{attach_observers, board_config, fail, load_firmware, option_value, RunArgs};
use super::{stack_check_option, EXIT_LIMIT, EXIT_LOCKUP, EXIT_STACK};
use cairn_sim::console::{diagnostic, Stream, TimedLines};
use cairn_sim::device::bus::Bus;
use cairn_sim::device::cosim::{Device, Ending, Processor, State};
use cairn_sim::device::file::DeviceFile;
use cairn_sim::gdb::device_runner::DeviceRunner;
use cairn_sim::machine::Stop;
use cairn_sim::observe::io_log::{write_device, DevicePart};
use cairn_sim::out_file::OutFile;
use cairn_sim::periph::bus_ctrl::Link;
use cairn_sim::report::lockup_report;
use cairn_sim::time::PS_PER_S;
use cairn_sim::trace::TraceLog;
use cairn_sim::units::{parse_duration_ps, parse_uint};
use std::io::Write;
use std::path::Path;

/// Options that set one processor's parameters: in a device file they belong to each
/// processor's table.
fn refuse_single_processor_options(args: &RunArgs) {
    let given = [
        ("FIRMWARE", args.firmware.is_some()),
        ("--energy", args.energy.is_some()),
        ("--voltage-range", args.voltage_range.is_some()),
        ("--rtos", args.rtos.is_some()),
        ("--clock", args.clock.is_some()),
        ("--io", args.io.is_some()),
        ("--flash-size", args.flash_size.is_some()),
        ("--sram-size", args.sram_size.is_some()),
        ("--flash-wait-states", args.flash_wait_states.is_some()),
        ("--mul-cycles", args.mul_cycles.is_some()),
        ("--board", args.board != "mps2-an385"),
    ];
    if let Some((name, _)) = given.iter().find(|g| g.1) {
        fail(format_args!(
            "{name}: not available with a device file (set it per processor in the device file; docs/device.md)"
        ));
    }
}

pub fn run(args: &RunArgs, path: &Path) -> i32 {
    refuse_single_processor_options(args);
    let seed = option_value("--seed", args.seed.as_deref(), |s| parse_uint(s, 0, u64::MAX)).unwrap_or(0);
    let max_instructions =
        option_value("--max-instructions", args.max_instructions.as_deref(), |s| parse_uint(s, 0, u64::MAX));
    let ps = |name: &str, v: Option<&str>| {
        option_value(name, v, parse_duration_ps)
            .map(|p| u64::try_from(p).unwrap_or_else(|_| fail(format!("{name}: too long"))))
    };
    let max_time = ps("--max-time", args.max_time.as_deref());
    let quantum = ps("--quantum", args.quantum.as_deref());
    if quantum == Some(0) {
        fail("--quantum: must be longer than 0");
    }
    let gdb_port = option_value("--gdb", args.gdb.as_deref(), |s| parse_uint(s, 0, u16::MAX as u64).map(|p| p as u16));
    if args.gdb_processor.is_some() && gdb_port.is_none() {
        fail("--gdb-processor: only with --gdb");
    }
    let stack_check = stack_check_option(args);
    let file = DeviceFile::load(path).unwrap_or_else(|e| fail(e));
    // Checked before any firmware is loaded, like the device file's own mistakes.
    let debugged = gdb_port.map(|_| {
        let names: Vec<&str> = file.processors.iter().map(|p| p.name.as_str()).collect();
        match &args.gdb_processor {
            Some(n) => names.iter().position(|x| x == n).unwrap_or_else(|| {
                fail(format_args!(
                    "--gdb-processor: {} has no processor named '{n}' (it has {})",
                    path.display(),
                    names.join(", ")
                ))
            }),
            None if names.len() == 1 => 0,
            None => fail(format_args!(
                "--gdb-processor: required with --gdb for a device of {} processors ({})",
                names.len(),
                names.join(", ")
            )),
        }
    });
    let stats_file = args.stats.as_deref().map(|p| OutFile::create(p).unwrap_or_else(|e| fail(e)));
    let bus_log = args.bus_log.as_deref().map(|p| OutFile::create(p).unwrap_or_else(|e| fail(e)));
    let trace_file = args.trace.as_deref().map(|p| OutFile::create(p).unwrap_or_else(|e| fail(e)));
    let vcd_file = args.vcd.as_deref().map(|p| OutFile::create(p).unwrap_or_else(|e| fail(e)));
    let io_log_file = args.io_log.as_deref().map(|p| OutFile::create(p).unwrap_or_else(|e| fail(e)));
    let addresses: Vec<u8> = file.processors.iter().map(|p| p.address).collect();
    let powered: Vec<bool> = file.processors.iter().map(|p| p.power_on).collect();
    let mut procs = Vec::new();
    for (index, mut spec) in file.processors.into_iter().enumerate() {
        let defaults = RunArgs { board: "mps2-an385".into(), ..Default::default() };
        let cfg = board_config(&defaults, &spec.scenario)
            .unwrap_or_else(|e| fail(format_args!("{}: processor.{}: {e}", path.display(), spec.name)));
        if !cfg.board.devices.iter().any(|d| d.kind == cairn_sim::board::DeviceKind::CairnBusCtrl) {
            fail(format_args!(
                "{}: processor.{}.board: {} has no cairn-bus-ctrl device",
                path.display(),
                spec.name,
                cfg.board.name
            ));
        }
        let firmware = spec.firmware.clone();
        let (mut m, bytes, rtos) = load_firmware(cfg, &firmware, &spec.scenario);
        if let Some(io) = spec.scenario.io.take() {
            m.check_uart_inputs(&io)
                .unwrap_or_else(|e| fail(format_args!("{}: processor.{}.{e}", path.display(), spec.name)));
            m.install_io_scenario(io, seed);
        }
        // The io-log and the waveform are written from each processor's whole event log at
        // the end, in the device's one time; the stats alone measure it as it streams by.
        if args.io_log.is_some() || args.vcd.is_some() {
            m.io.events.enabled = true;
        } else if args.stats.is_some() {
            m.stream_io(None, None).unwrap_or_else(|e| fail(e));
        } else {
            m.io.events.enabled = false;
        }
        // The device's waveform is written from each processor's whole timeline, at the end.
        if args.vcd.is_some() {
            m.record_timeline();
        }
        // Each processor's part of the device trace is kept in memory: the parts are joined
        // in file order at the end, whatever order the scheduler ran them in.
        if args.trace.is_some() {
            m.trace = Some(TraceLog::device_part(index, &spec.name, m.config.clock_hz));
        }
        m.console = Box::new(TimedLines::default());
        m.reset();
        m.processor_name = Some(spec.name.clone());
        attach_observers(&mut m, &bytes, &spec.scenario, rtos, stack_check, &firmware.display().to_string());
        m.rtc.set_ppm(spec.rtc_ppm);
        m.bus_ctrl.link = Some(Link {
            address: spec.address,
            modules: addresses.clone(),
            max_frame: file.bus.max_frame,
            tx_fifo: file.bus.tx_fifo,
        });
        procs.push(Processor::new(spec.name, m, spec.power_on));
    }
    let bus = Bus::new(file.bus, addresses, powered, &file.faults, seed);
    let mut d = Device::new(file.name, procs, bus, file.faults);
    d.quantum = quantum;
    d.limit_ps = max_time;
    d.max_instructions = max_instructions.unwrap_or(u64::MAX);
    let names: Vec<String> = d.procs.iter().map(|p| p.name.clone()).collect();
    // Per-processor console files: complete or absent, like every other output.
    let mut console_files: Vec<OutFile> = match &args.console_dir {
        Some(dir) => {
            if !dir.is_dir() {
                fail(format_args!("--console-dir: {}: not a directory", dir.display()));
            }
            names.iter().map(|n| OutFile::create(&dir.join(format!("{n}.txt"))).unwrap_or_else(|e| fail(e))).collect()
        }
        None => Vec::new(),
    };
    let start = std::time::Instant::now();
    let mut out_error: Option<String> = None;
    let ending = {
        let stdout = std::io::stdout();
        let stderr = std::io::stderr();
        let mut emit = |i: usize, l: &cairn_sim::console::TimedLine| {
            let prefixed = || [format!("{}: ", names[i]).as_bytes(), &l.bytes].concat();
            let r = match l.stream {
                _ if !console_files.is_empty() => console_files[i].write_all(&l.bytes),
                Stream::Stdout => {
                    let mut out = stdout.lock();
                    out.write_all(&prefixed()).and_then(|_| out.flush())
                }
                Stream::Stderr => stderr.lock().write_all(&prefixed()),
            };
            if let Err(e) = r {
                if e.kind() != std::io::ErrorKind::BrokenPipe && out_error.is_none() {
                    out_error = Some(format!("cannot write the firmware's output: {e}"));
                }
            }
        };
        if let (Some(port), Some(k)) = (gdb_port, debugged) {
            // The session drives the device; when it ends (the debugger saw the processor
            // exit, or left) the device has been run on to its end without it.
            if let Err(e) = cairn_sim::gdb::serve_runner(DeviceRunner::new(&mut d, k, &mut emit), port) {
                fail(format_args!("--gdb: {e}"));
            }
        }
        d.run(&mut emit)
    };
    let host_seconds = start.elapsed().as_secs_f64();
    if let Some(e) = out_error {
        fail(e);
    }
    let statuses: Vec<i32> = d
        .procs
        .iter()
        .map(|p| match (&p.exit, &p.end) {
            (Some(code), _) => code & 0xff,
            (None, Some(Stop::Limit)) => EXIT_LIMIT,
            (None, Some(Stop::StackOverflow { .. })) => EXIT_STACK,
            (None, Some(_)) => EXIT_LOCKUP,
            (None, None) => 0,
        })
        .collect();
    let status = match &ending {
        Ending::Limit => {
            diagnostic(format_args!(
                "cairn-sim: limit reached at {:.6} s of simulated time",
                d.now as f64 / PS_PER_S as f64
            ));
            EXIT_LIMIT
        }
        Ending::Lockup(i) => {
            let p = &d.procs[*i];
            match p.end {
                Some(Stop::Lockup { kind, pc, ipsr }) => {
                    diagnostic(format_args!("{}: {}", p.name, lockup_report(&p.m, kind, pc, ipsr)));
                    EXIT_LOCKUP
                }
                Some(Stop::StackOverflow { pc, msp }) => {
                    let what = cairn_sim::stack_guard::overflow_message(&p.m, pc, msp);
                    diagnostic(format_args!("cairn-sim: {}: {what}", p.name));
                    EXIT_STACK
                }
                _ => {
                    diagnostic(format_args!("cairn-sim: {}: stopped at a breakpoint with no debugger", p.name));
                    EXIT_LOCKUP
                }
            }
        }
        Ending::Quiescent => {
            let exited = d.procs.iter().any(|p| p.exit.is_some());
            match statuses.iter().zip(&d.procs).find(|(s, p)| p.exit.is_some() && **s != 0) {
                Some((s, _)) => *s,
                None if exited => 0,
                None => {
                    let asleep: Vec<&str> =
                        d.procs.iter().filter(|p| p.state != State::Done).map(|p| p.name.as_str()).collect();
                    diagnostic(format_args!(
                        "cairn-sim: no processor exited and none can wake ({} asleep or off, no frame on its way)",
                        asleep.join(", ")
                    ));
                    EXIT_LOCKUP
                }
            }
        }
    };
    for f in console_files {
        f.commit().unwrap_or_else(|e| fail(e));
    }
    if let Some(mut f) = bus_log {
        let names: Vec<&str> = d.procs.iter().map(|p| p.name.as_str()).collect();
        let mut text =
            String::from("id,src,dst,bytes,power,queued_ps,start_ps,arrival_ps,stalls,dropped,corrupt,fault_rule\n");
        for r in &d.bus.log {
            text.push_str(&format!(
                "{},{},{},{},{},{},{},{},{},{},{},{}\n",
                r.id,
                names[r.src],
                r.dst.map_or("*", |i| names[i]),
                r.bytes,
                r.power.map_or("", |on| if on { "on" } else { "off" }),
                r.queued_ps,
                r.start_ps,
                r.arrival_ps,
                r.stalls,
                r.dropped as u8,
                r.corrupt as u8,
                r.fault_rule.map_or(String::new(), |k| k.to_string()),
            ));
        }
        if let Err(e) = f.write_all(text.as_bytes()) {
            fail(format_args!("cannot write {}: {e}", f.path().display()));
        }
        f.commit().unwrap_or_else(|e| fail(e));
    }
    if let Some(f) = trace_file {
        let mut parts = Vec::new();
        for p in &mut d.procs {
            if let Some(t) = p.m.trace.take() {
                parts.push(t.finish(p.end_cycle(d.now), &f.path().display().to_string()).unwrap_or_else(|e| fail(e)));
            }
        }
        write_output(f, |w| cairn_sim::device::outputs::write_trace(&d, &parts, w));
    }
    if let Some(f) = io_log_file {
        let parts: Vec<DevicePart> = d
            .procs
            .iter()
            .map(|p| DevicePart {
                processor: &p.name,
                scenario: &p.m.io.scenario,
                clock_hz: p.m.config.clock_hz,
                events: &p.m.io.events,
            })
            .collect();
        write_output(f, |w| write_device(&parts, w));
    }
    if let Some(f) = vcd_file {
        write_output(f, |w| cairn_sim::device::outputs::write_vcd(&d, w));
    }
    if let Some(mut f) = stats_file {
        for p in &mut d.procs {
            p.m.finish_io_stream().unwrap_or_else(|e| fail(e));
        }
        let json = cairn_sim::device::report::device_json(&d, host_seconds, status, &statuses);
        let text = serde_json::to_string_pretty(&json).unwrap_or_default() + "\n";
        if let Err(e) = f.write_all(text.as_bytes()) {
            fail(format_args!("cannot write {}: {e}", f.path().display()));
        }
        f.commit().unwrap_or_else(|e| fail(e));
    }
    status
}

/// Write a whole output through a buffer and put it in place, or end the run with the
/// CLI's one-line message.
fn write_output(f: OutFile, write: impl FnOnce(&mut std::io::BufWriter<OutFile>) -> std::io::Result<()>) {
    let path = f.path().display().to_string();
    let mut w = std::io::BufWriter::new(f);
    let f = write(&mut w)
        .and_then(|_| w.into_inner().map_err(|e| e.into_error()))
        .unwrap_or_else(|e| fail(format_args!("cannot write {path}: {e}")));
    f.commit().unwrap_or_else(|e| fail(e));
}
