//! The Cairn I/O of one machine, wired together: the devices (`periph::cairn_io`), the
//! scenario's drivers (`stimuli::driver`), the event buffer the devices log into, and the
//! observers that buffer is drained to (`observe`, `measure`). The dependencies point one
//! way: devices know nothing of drivers, drivers nothing of observers, and only this
//! module, at the machine's level, knows them all. The machine asks `next_at` only between
//! instructions (through `next_device_event`), so a run without a scenario pays nothing
//! per instruction.
//!
//! The log is either retained whole (the library's default, for tests and short runs) or,
//! with a stream attached (`Machine::stream_io`, what the CLI does), a small buffer that
//! [`IoSystem::drain`] hands to the stream's consumers in time order.

use crate::machine::Machine;
use crate::measure::report::Measure;
use crate::measure::signals::sorted;
use crate::observe::stream::{IoStream, EVENT_BUFFER, TIMELINE_BUFFER};
use crate::observe::timeline::Timeline;
use crate::observe::{io_log, vcd};
use crate::periph::adc::{AdcConfig, AnalogIn};
use crate::periph::cairn_io::CairnIo;
use crate::periph::io_event::EventLog;
use crate::scenario_io::{IoScenario, PortDir};
use crate::stimuli::adc_source::AdcInputs;
use crate::stimuli::driver::Drivers;
use serde_json::Value;
use std::io::Write;
use std::path::Path;

#[derive(Default)]
pub struct IoSystem {
    /// Cairn's devices (the machine's device table places them on the board).
    pub dev: CairnIo,
    /// What fires scenario events into them.
    drivers: Drivers,
    pub scenario: IoScenario,
    /// Whether a scenario was installed (reports then include the io section).
    pub installed: bool,
    pub clock_hz: u64,
    pub seed: u64,
    /// Earliest cycle at which a scheduled event is due (u64::MAX = none): a driver's
    /// firing or a periodic ADC conversion.
    pub next_at: u64,
    /// The event log: every event (retained), or those not yet drained to the stream. The
    /// CLI disables it when no output (stats, io-log, VCD) would read it.
    pub events: EventLog,
    pub timeline: Option<Timeline>,
    /// Consumers of the streamed log (`Machine::stream_io`).
    pub(crate) stream: Option<Box<IoStream>>,
    /// Events drained to the stream so far.
    streamed: u64,
}

impl IoSystem {
    pub fn new(clock_hz: u64) -> IoSystem {
        IoSystem { clock_hz, next_at: u64::MAX, ..Default::default() }
    }

    /// Install a scenario: its drivers, seeded from `seed` (one stream per stimulus), and
    /// the ADC's configuration and signal sources.
    pub fn install(&mut self, sc: IoScenario, seed: u64) {
        let deliveries: Vec<(u64, u8, u32)> = sc
            .ports
            .iter()
            .filter(|p| p.dir == PortDir::In)
            .flat_map(|p| p.deliveries.iter().map(move |&(t, v)| (t, p.index, v)))
            .collect();
        self.drivers = Drivers::new(&sc.stimuli, &deliveries, seed, self.clock_hz);
        let wiring = sc.adc.as_ref().map(|a| {
            let config = AdcConfig { rate_hz: a.rate_hz, bits: a.bits, range: a.range, channels: a.channels.len() };
            let input: Box<dyn AnalogIn> = Box::new(AdcInputs { channels: a.channels.clone(), seed });
            (config, input)
        });
        self.dev.adc.connect(wiring, self.clock_hz);
        self.scenario = sc;
        self.seed = seed;
        self.installed = true;
        self.next_at = self.earliest();
    }

    /// Register state back to reset values (SYSRESETREQ); the scenario's schedule goes on.
    pub fn reset_registers(&mut self) {
        self.dev.reset_registers();
    }

    /// ADC conversions performed (on read and periodic), for energy accounting.
    #[inline]
    pub fn adc_conversions(&self) -> u64 {
        self.dev.adc.conversions
    }

    fn earliest(&self) -> u64 {
        self.drivers.earliest().0.min(self.dev.adc.next_at())
    }

    /// Fire everything due at or before `now`, in time order, each logged at its own cycle.
    /// At one cycle the drivers go before the ADC's periodic conversion.
    pub fn process(&mut self, now: u64) {
        loop {
            let (due, source) = self.drivers.earliest();
            let adc = self.dev.adc.next_at();
            let cycle = due.min(adc);
            if cycle > now {
                break;
            }
            // Nothing logged from here on is earlier than this (see `make_room`).
            self.next_at = cycle;
            if due <= adc {
                self.make_room(1, cycle);
                self.drivers.fire(source, cycle, &mut self.dev, &mut self.events);
            } else {
                self.make_room(self.dev.adc.events_per_conversion(), cycle);
                self.dev.adc.periodic_conversion(cycle, &mut self.events);
            }
        }
        self.next_at = self.earliest();
    }

    /// Before the devices log up to `n` events at `cycle`: with a stream attached, drain
    /// the buffer if they would not fit, so it never grows past EVENT_BUFFER. Scheduled
    /// events not yet logged are at `next_at` or later (during `process`, at the one being
    /// logged or later), stores at the current cycle or later: nothing earlier than this
    /// watermark can still come.
    #[inline]
    fn make_room(&mut self, n: usize, cycle: u64) {
        if self.stream.is_some() && self.events.enabled && self.events.len() + n > EVENT_BUFFER {
            self.drain(cycle.min(self.next_at));
        }
    }

    /// Hand everything logged at or before cycle `upto` to the stream, in time order
    /// (events stable-sorted by cycle, then merged with the timeline for the VCD), and drop
    /// it from the buffers. The caller guarantees nothing earlier than `upto` is logged
    /// later. Does nothing without a stream.
    pub fn drain(&mut self, upto: u64) {
        let Some(stream) = self.stream.as_deref_mut() else { return };
        self.events.sort_by_key(|e| e.cycle);
        let k = self.events.partition_point(|e| e.cycle <= upto);
        // Without a VCD of its own the timeline is kept whole: a device's waveform takes it
        // at the end (device/outputs.rs).
        match self.timeline.as_mut().filter(|_| stream.has_vcd()) {
            Some(tl) => {
                tl.power.sort_by_key(|p| p.0);
                tl.exceptions.sort_by_key(|x| x.0);
                let kp = tl.power.partition_point(|p| p.0 <= upto);
                let kx = tl.exceptions.partition_point(|x| x.0 <= upto);
                stream.feed(&self.events[..k], &tl.power[..kp], &tl.exceptions[..kx]);
                tl.power.drain(..kp);
                tl.exceptions.drain(..kx);
            }
            None => stream.feed(&self.events[..k], &[], &[]),
        }
        self.events.drain(..k);
        self.streamed += k as u64;
    }

    /// Events drained to the stream so far.
    pub fn streamed_events(&self) -> u64 {
        self.streamed
    }

    /// The streamed measurements, when a stream is attached.
    pub fn streamed_measure(&self) -> Option<&Measure> {
        self.stream.as_deref().map(|s| s.measure())
    }

    /// Capacity of the in-memory buffers (events, power timeline, exception timeline): the
    /// most each ever held, as they never shrink. Bounded with a stream attached.
    pub fn buffer_capacity(&self) -> (usize, usize, usize) {
        let (p, x) = self.timeline.as_ref().map_or((0, 0), |t| (t.power.capacity(), t.exceptions.capacity()));
        (self.events.capacity(), p, x)
    }

    /// A device access in the Cairn I/O is about to log at `now`: keep the stream's buffer bounded.
    #[inline]
    pub(crate) fn before_access(&mut self, now: u64) {
        self.make_room(1, now);
    }

    /// A device changed its own schedule (the ADC's CTRL was written).
    pub(crate) fn reschedule(&mut self) {
        self.next_at = self.earliest();
    }
}

impl Machine {
    /// Stream the I/O outputs of this run: measurements for the stats (always), the io-log
    /// CSV and the VCD to these files, created now (an error is the CLI's one-line message).
    /// Call after the I/O scenario is installed.
    pub fn stream_io(&mut self, io_log: Option<&Path>, vcd: Option<&Path>) -> Result<(), String> {
        let stream = IoStream::create(&self.io.scenario, self.config.clock_hz, io_log, vcd)?;
        if stream.has_vcd() {
            self.record_timeline();
        }
        self.io.events.enabled = true;
        self.io.stream = Some(Box::new(stream));
        Ok(())
    }

    /// Drain what is left and complete the streamed outputs. Returns the first write error
    /// as the CLI's one-line message. The measurements stay for `io_json`.
    pub fn finish_io_stream(&mut self) -> Result<(), String> {
        self.io.drain(u64::MAX);
        let board = &mut self.0.sys;
        let Some(stream) = board.io.stream.as_deref_mut() else { return Ok(()) };
        stream.complete(&board.io.scenario, board.config.clock_hz, board.io.timeline.is_some())
    }

    /// At an instruction boundary with streamed outputs: drain the buffers once they are
    /// half full; after a write error, end the run here (the CLI then reports the error).
    pub(crate) fn io_stream_service(&mut self) {
        let vcd = self.io.stream.as_ref().is_some_and(|s| s.has_vcd());
        let tl = self.io.timeline.as_ref().filter(|_| vcd).map_or(0, |t| t.power.len().max(t.exceptions.len()));
        if self.io.events.len() >= EVENT_BUFFER / 2 || tl >= TIMELINE_BUFFER / 2 {
            let upto = self.cycles.min(self.io.next_at);
            self.io.drain(upto);
        }
        if self.io.stream.as_ref().is_some_and(|s| s.failed()) {
            self.cycle_limit = self.cycle_limit.min(self.cycles);
        }
    }
}

/// Whether the run has anything to report under `io`.
pub fn has_io(m: &Machine) -> bool {
    m.io.installed || !m.io.events.is_empty() || m.io.streamed_events() > 0
}

/// The `io` stats section. With streamed outputs (`Machine::stream_io`) the measurements
/// were made during the run; otherwise they are made now from the retained event log.
pub fn io_json(m: &Machine) -> Value {
    let sc = &m.io.scenario;
    let mut meas = match m.io.streamed_measure() {
        Some(meas) => meas.clone(),
        None => Measure::new(sc, m.config.clock_hz),
    };
    for e in sorted(&m.io.events) {
        meas.feed(&e);
    }
    let mut json = meas.json(sc);
    // The interrupt a stimulus line raises is the board's to say (its stimulus controller's
    // `irq` list), not the measurements'.
    let irqs =
        m.config.board.devices.iter().find(|d| d.kind == crate::board::DeviceKind::CairnStimulus).map(|d| &d.irq);
    if let Some(stimuli) = json.get_mut("stimuli").and_then(Value::as_object_mut) {
        for s in stimuli.values_mut() {
            let line = s["line"].as_u64().unwrap_or(u64::MAX) as usize;
            s["irq"] = irqs.and_then(|v| v.get(line)).map_or(Value::Null, |&n| Value::from(n));
        }
    }
    json
}

/// The io-log CSV of a retained event log, at once.
pub fn write_io_log(m: &Machine, w: &mut impl Write) -> std::io::Result<()> {
    io_log::write_retained(&m.io.scenario, m.config.clock_hz, &m.io.events, w)
}

/// The VCD of a retained event log and timeline, at once.
pub fn write_vcd(m: &Machine, w: &mut impl Write) -> std::io::Result<()> {
    vcd::write_retained(&m.io.scenario, m.config.clock_hz, &m.io.events, m.io.timeline.as_ref(), w)
}
