//! Cairn's scenario-driven devices in the Cairn window (GPIO, I/O ports, ADC, stimulus
//! controller), their schedule of future scenario events, and the log of everything that
//! happened at the pins. The machine asks `next_at` only between instructions (through
//! `next_device_event`), so a run without a scenario pays nothing per instruction.
//!
//! The log is either retained whole (the library's default, for tests and short runs) or,
//! with a stream attached (`Machine::stream_io`, what the CLI does), a small buffer that
//! [`IoSystem::drain`] hands to the stream's consumers in time order.

use super::adc::{self, AdcRegs};
use super::gpio::Gpio;
use super::io_ports::{IoPorts, PORTS};
use super::stim_ctrl::{StimCtrl, LINES};
use crate::io_stream::{IoStream, EVENT_BUFFER};
use crate::measure::report::Measure;
use crate::scenario_io::{IoScenario, PortDir};
use crate::stimuli::irq_gen::Generator;
use crate::stimuli::{cycle_to_ps, ps_to_cycle};

pub const GPIO_BASE: u32 = 0x4100_1000;
pub const PORTS_BASE: u32 = 0x4100_2000;
pub const ADC_BASE: u32 = 0x4100_3000;
pub const STIM_BASE: u32 = 0x4100_4000;
/// IRQ numbers (external interrupt k is exception 16 + k); QEMU's mps2-an385 leaves 16-23 unused.
pub const INPUT_IRQ: u32 = 16;
pub const ADC_IRQ: u32 = 17;
pub const STIM_IRQ_BASE: u32 = 18;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoKind {
    /// A stimulus fired (index: stimulus number in the scenario, value: sequence number).
    Stimulus,
    /// A scenario value arrived on an input port.
    Input,
    /// An ADC conversion (index: channel, value: code).
    Adc,
    /// Firmware wrote an output port.
    Output,
    /// Firmware wrote a GPIO register (value: all pin levels after the write).
    Gpio,
}

impl IoKind {
    pub fn name(self) -> &'static str {
        match self {
            IoKind::Stimulus => "stimulus",
            IoKind::Input => "input",
            IoKind::Adc => "adc",
            IoKind::Output => "output",
            IoKind::Gpio => "gpio",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoEvent {
    pub cycle: u64,
    pub kind: IoKind,
    pub index: u8,
    pub value: u32,
}

/// Power state as recorded for the VCD.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PowerState {
    Run = 0,
    Sleep = 1,
    DeepSleep = 2,
}

/// Changes recorded only when a waveform is wanted (`--vcd`). With a stream attached these
/// hold only what was not drained yet.
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    pub power: Vec<(u64, PowerState)>,
    /// (cycle, pending, active) exception bitmaps whenever they changed.
    pub exceptions: Vec<(u64, u64, u64)>,
    /// The last (pending, active) recorded.
    last_exceptions: Option<(u64, u64)>,
}

impl Timeline {
    /// Record the exception bitmaps if they changed.
    #[inline]
    pub fn note_exceptions(&mut self, cycle: u64, pending: u64, active: u64) {
        if self.last_exceptions != Some((pending, active)) {
            self.last_exceptions = Some((pending, active));
            self.exceptions.push((cycle, pending, active));
        }
    }
}

#[derive(Default)]
pub struct IoSystem {
    pub gpio: Gpio,
    pub ports: IoPorts,
    pub adc: AdcRegs,
    pub stim: StimCtrl,
    pub scenario: IoScenario,
    /// Whether a scenario was installed (reports then include the io section).
    pub installed: bool,
    pub clock_hz: u64,
    pub seed: u64,
    gens: Vec<Generator>,
    /// Input-port deliveries (cycle, port, value) in time order, and the next one.
    inputs: Vec<(u64, u8, u32)>,
    input_pos: usize,
    /// Next periodic ADC conversion index k (instant k / rate).
    adc_k: u64,
    /// Earliest cycle at which a scheduled scenario event is due (u64::MAX = none).
    pub next_at: u64,
    /// The event log: every event (retained), or those not yet drained to the stream.
    pub events: Vec<IoEvent>,
    /// Keep the event log (on by default). The CLI turns it off when no output
    /// (stats, io-log, VCD) would read it.
    pub log_events: bool,
    pub timeline: Option<Timeline>,
    /// Consumers of the streamed log (`Machine::stream_io`).
    pub(crate) stream: Option<Box<IoStream>>,
    /// Events drained to the stream so far.
    streamed: u64,
    /// ADC conversions performed (on read and periodic), for energy accounting.
    pub adc_conversions: u64,
}

impl IoSystem {
    pub fn new(clock_hz: u64) -> IoSystem {
        IoSystem { clock_hz, next_at: u64::MAX, log_events: true, ..Default::default() }
    }

    /// Install a scenario; generators are seeded from `seed`, one stream per stimulus.
    pub fn install(&mut self, sc: IoScenario, seed: u64) {
        self.gens = sc.stimuli.iter().enumerate().map(|(i, s)| Generator::new(s.clone(), seed, i as u64)).collect();
        let mut inputs: Vec<(u64, u8, u32)> = Vec::new();
        for p in sc.ports.iter().filter(|p| p.dir == PortDir::In) {
            for &(t, v) in &p.deliveries {
                inputs.push((ps_to_cycle(t, self.clock_hz), p.index, v));
            }
        }
        // Stable: deliveries at the same cycle keep scenario order.
        inputs.sort_by_key(|e| e.0);
        self.inputs = inputs;
        self.input_pos = 0;
        self.scenario = sc;
        self.seed = seed;
        self.installed = true;
        self.refresh_next(0);
    }

    /// Register state back to reset values (SYSRESETREQ); the scenario's schedule goes on.
    pub fn reset_registers(&mut self) {
        self.gpio = Gpio::default();
        self.ports = IoPorts::default();
        self.adc = AdcRegs::default();
        self.stim = StimCtrl::default();
    }

    fn adc_period_ps(&self) -> Option<f64> {
        let a = self.scenario.adc.as_ref()?;
        (a.rate_hz > 0.0).then(|| crate::stimuli::PS_PER_S as f64 / a.rate_hz)
    }

    fn adc_cycle(&self, k: u64) -> u64 {
        let ps = self.adc_period_ps().map(|p| (p * k as f64).round()).unwrap_or(f64::MAX);
        if ps >= u64::MAX as f64 {
            u64::MAX
        } else {
            ps_to_cycle(ps as u64, self.clock_hz)
        }
    }

    fn next_adc(&self) -> u64 {
        if self.adc.periodic() && self.adc_period_ps().is_some() {
            self.adc_cycle(self.adc_k)
        } else {
            u64::MAX
        }
    }

    /// The next (cycle, source) due: source 0..n = generator, n = input, n + 1 = ADC.
    fn earliest(&self) -> (u64, usize) {
        let mut best = (u64::MAX, usize::MAX);
        for (i, g) in self.gens.iter().enumerate() {
            if let Some(ps) = g.peek() {
                let c = ps_to_cycle(ps, self.clock_hz);
                if c < best.0 {
                    best = (c, i);
                }
            }
        }
        let n = self.gens.len();
        if let Some(&(c, _, _)) = self.inputs.get(self.input_pos) {
            if c < best.0 {
                best = (c, n);
            }
        }
        let c = self.next_adc();
        if c < best.0 {
            best = (c, n + 1);
        }
        best
    }

    fn refresh_next(&mut self, _now: u64) {
        self.next_at = self.earliest().0;
    }

    /// Fire everything due at or before `now`, in time order, each logged at its own cycle.
    pub fn process(&mut self, now: u64) {
        loop {
            let (cycle, src) = self.earliest();
            if cycle > now {
                break;
            }
            // Nothing logged from here on is earlier than this (see `log`).
            self.next_at = cycle;
            let n = self.gens.len();
            if src < n {
                let line = self.gens[src].spec.line as usize;
                let seq = self.stim.fire(line);
                self.gens[src].advance();
                self.log(cycle, IoKind::Stimulus, src as u8, seq);
            } else if src == n {
                let (_, port, value) = self.inputs[self.input_pos];
                self.input_pos += 1;
                self.ports.deliver(port as usize, value);
                self.log(cycle, IoKind::Input, port, value);
            } else {
                self.adc_k += 1;
                self.convert_all(cycle);
                self.adc.complete();
            }
        }
        self.next_at = self.earliest().0;
    }

    fn log(&mut self, cycle: u64, kind: IoKind, index: u8, value: u32) {
        if self.log_events {
            if self.events.len() >= EVENT_BUFFER && self.stream.is_some() {
                // Scheduled events not yet logged are at `next_at` or later (during
                // `process`, at the one being logged or later), stores at the current
                // cycle or later: nothing earlier than this watermark can still come.
                self.drain(cycle.min(self.next_at));
            }
            self.events.push(IoEvent { cycle, kind, index, value });
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
        match self.timeline.as_mut() {
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
        self.stream.as_deref().map(|s| &s.measure)
    }

    /// Capacity of the in-memory buffers (events, power timeline, exception timeline): the
    /// most each ever held, as they never shrink. Bounded with a stream attached.
    pub fn buffer_capacity(&self) -> (usize, usize, usize) {
        let (p, x) = self.timeline.as_ref().map_or((0, 0), |t| (t.power.capacity(), t.exceptions.capacity()));
        (self.events.capacity(), p, x)
    }

    fn convert(&mut self, ch: usize, cycle: u64) -> u32 {
        let Some(a) = self.scenario.adc.as_ref() else { return 0 };
        let Some(c) = a.channels.get(ch) else { return 0 };
        let v = c.value(cycle_to_ps(cycle, self.clock_hz), self.seed);
        let code = adc::to_code(v, a.range.0, a.range.1, a.bits);
        self.adc.data[ch] = code;
        self.adc_conversions += 1;
        self.log(cycle, IoKind::Adc, ch as u8, code);
        code
    }

    fn convert_all(&mut self, cycle: u64) {
        let n = self.scenario.adc.as_ref().map_or(0, |a| a.channels.len());
        for ch in 0..n {
            self.convert(ch, cycle);
        }
    }

    /// Interrupt lines as a bitmap of external IRQ numbers.
    pub fn irq_lines(&self) -> u32 {
        let mut lines = (self.ports.irq() as u32) << INPUT_IRQ;
        lines |= (self.adc.irq() as u32) << ADC_IRQ;
        lines |= (self.stim.status & ((1 << LINES) - 1)) << STIM_IRQ_BASE;
        lines
    }

    /// Read a word-aligned register in the Cairn window (other than the trace port).
    pub fn read(&mut self, addr: u32, now: u64) -> u32 {
        let off = addr & 0xfff;
        match addr & !0xfff {
            GPIO_BASE => self.gpio.read(off),
            PORTS_BASE => self.ports.read(off),
            ADC_BASE => self.adc_read(off, now),
            STIM_BASE => self.stim.read(off),
            _ => 0,
        }
    }

    fn adc_read(&mut self, off: u32, now: u64) -> u32 {
        let nchan = self.scenario.adc.as_ref().map_or(0, |a| a.channels.len());
        if let Some(ch) = AdcRegs::data_index(off) {
            if ch >= nchan {
                return 0;
            }
            return if self.adc.periodic() { self.adc.data[ch] } else { self.convert(ch, now) };
        }
        match off {
            adc::CTRL => self.adc.ctrl,
            adc::STATUS => self.adc.status,
            adc::NCHAN => nchan as u32,
            adc::RATE_HZ => self.scenario.adc.as_ref().map_or(0, |a| a.rate_hz.round() as u32),
            adc::BITS => self.scenario.adc.as_ref().map_or(0, |a| a.bits),
            _ => 0,
        }
    }

    /// Write a word-aligned register in the Cairn window (other than the trace port).
    pub fn write(&mut self, addr: u32, value: u32, now: u64) {
        let off = addr & 0xfff;
        match addr & !0xfff {
            GPIO_BASE => {
                if let Some(levels) = self.gpio.write(off, value) {
                    self.log(now, IoKind::Gpio, 0, levels);
                }
            }
            PORTS_BASE => {
                if let Some(port) = self.ports.write(off, value) {
                    debug_assert!(port < PORTS);
                    self.log(now, IoKind::Output, port as u8, value);
                }
            }
            ADC_BASE => match off {
                adc::CTRL => {
                    let was = self.adc.periodic();
                    self.adc.ctrl = value & (adc::CTRL_PERIODIC | adc::CTRL_IRQ_EN);
                    if self.adc.periodic() && !was {
                        // Conversions stay on the global grid k / rate: the first is the next grid instant.
                        let mut k =
                            self.adc_period_ps().map_or(0, |p| (cycle_to_ps(now, self.clock_hz) as f64 / p) as u64);
                        while self.adc_cycle(k) <= now {
                            k += 1;
                        }
                        self.adc_k = k;
                    }
                    self.next_at = self.earliest().0;
                }
                adc::CLEAR => self.adc.status &= !value,
                _ => {}
            },
            STIM_BASE => self.stim.write(off, value),
            _ => {}
        }
    }
}
