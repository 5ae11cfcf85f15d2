//! TOML -> IoScenario. Every error names the key path (`stimulus[2].rate_hz: must be > 0`)
//! so one line on stderr tells the user what to fix. Unknown keys are errors: a typo
//! must not silently drop a stimulus.

use super::*;
use crate::periph::adc::CHANNELS;
use crate::periph::io_ports::PORTS;
use crate::periph::stim_ctrl::LINES;
use crate::stimuli::adc_source::{self, Source};
use crate::stimuli::irq_gen::StimulusKind;
use crate::time::PS_PER_S;
use crate::units::parse_duration_ps;
use std::path::Path;
use toml::{Table, Value};

mod uart_input;

/// Top-level scenario keys this module owns.
pub const IO_KEYS: &[&str] = &["stimulus", "pin", "port", "adc", "io", "uart_input"];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IoScenarioError {
    /// Key path, e.g. `stimulus[2].rate_hz` (or a file name for file-level errors).
    pub path: String,
    pub message: String,
}

impl std::fmt::Display for IoScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl std::error::Error for IoScenarioError {}

type R<T> = Result<T, IoScenarioError>;

fn err<T>(path: impl Into<String>, message: impl Into<String>) -> R<T> {
    Err(IoScenarioError { path: path.into(), message: message.into() })
}

/// A table being read, with its key path.
struct Tab<'a> {
    t: &'a Table,
    path: String,
}

impl<'a> Tab<'a> {
    fn new(t: &'a Table, path: impl Into<String>) -> Self {
        Tab { t, path: path.into() }
    }

    fn key(&self, k: &str) -> String {
        if self.path.is_empty() {
            k.to_string()
        } else {
            format!("{}.{k}", self.path)
        }
    }

    fn only(&self, allowed: &[&str]) -> R<()> {
        for k in self.t.keys() {
            if !allowed.contains(&k.as_str()) {
                return err(self.key(k), format!("unknown key (expected one of: {})", allowed.join(", ")));
            }
        }
        Ok(())
    }

    fn get(&self, k: &str) -> Option<&'a Value> {
        self.t.get(k)
    }

    fn str(&self, k: &str) -> R<Option<&'a str>> {
        match self.get(k) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(v) => err(self.key(k), format!("expected a string, found {}", v.type_str())),
        }
    }

    fn req_str(&self, k: &str) -> R<&'a str> {
        self.str(k)?.map_or_else(|| err(self.key(k), "missing required key"), Ok)
    }

    fn float(&self, k: &str) -> R<Option<f64>> {
        match self.get(k) {
            None => Ok(None),
            Some(Value::Float(x)) if x.is_finite() => Ok(Some(*x)),
            Some(Value::Integer(i)) => Ok(Some(*i as f64)),
            Some(Value::Float(_)) => err(self.key(k), "must be a finite number"),
            Some(v) => err(self.key(k), format!("expected a number, found {}", v.type_str())),
        }
    }

    fn req_float(&self, k: &str) -> R<f64> {
        self.float(k)?.map_or_else(|| err(self.key(k), "missing required key"), Ok)
    }

    fn int(&self, k: &str, lo: i64, hi: i64) -> R<Option<i64>> {
        match self.get(k) {
            None => Ok(None),
            Some(Value::Integer(i)) if (lo..=hi).contains(i) => Ok(Some(*i)),
            Some(Value::Integer(_)) => err(self.key(k), format!("must be in {lo}..={hi}")),
            Some(v) => err(self.key(k), format!("expected an integer, found {}", v.type_str())),
        }
    }

    /// A duration: a string with a unit (`"250us"`) or a number of seconds.
    fn duration(&self, k: &str) -> R<Option<u64>> {
        let ps = match self.get(k) {
            None => return Ok(None),
            Some(Value::String(s)) => parse_duration_ps(s).or_else(|e| err(self.key(k), e))?,
            Some(Value::Integer(i)) if *i >= 0 => *i as u128 * PS_PER_S as u128,
            Some(Value::Float(x)) if x.is_finite() && *x >= 0.0 => (x * PS_PER_S as f64).round() as u128,
            Some(Value::Integer(_) | Value::Float(_)) => return err(self.key(k), "must be >= 0"),
            Some(v) => return err(self.key(k), format!("expected a duration such as \"1ms\", found {}", v.type_str())),
        };
        u64::try_from(ps).map(Some).or_else(|_| err(self.key(k), "duration too long"))
    }

    fn positive_duration(&self, k: &str) -> R<Option<u64>> {
        match self.duration(k)? {
            Some(0) => err(self.key(k), "must be > 0"),
            d => Ok(d),
        }
    }

    fn tables(&self, k: &str) -> R<Vec<Tab<'a>>> {
        match self.get(k) {
            None => Ok(Vec::new()),
            Some(Value::Array(a)) => a
                .iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::Table(t) => Ok(Tab::new(t, format!("{}[{i}]", self.key(k)))),
                    v => err(format!("{}[{i}]", self.key(k)), format!("expected a table, found {}", v.type_str())),
                })
                .collect(),
            Some(v) => err(self.key(k), format!("expected an array of tables, found {}", v.type_str())),
        }
    }

    fn table(&self, k: &str) -> R<Option<Tab<'a>>> {
        match self.get(k) {
            None => Ok(None),
            Some(Value::Table(t)) => Ok(Some(Tab::new(t, self.key(k)))),
            Some(v) => err(self.key(k), format!("expected a table, found {}", v.type_str())),
        }
    }

    /// A table of named sub-tables, in name order (TOML tables are sorted maps here).
    fn named(&self, k: &str) -> R<Vec<(String, Tab<'a>)>> {
        let Some(t) = self.table(k)? else { return Ok(Vec::new()) };
        t.t.iter()
            .map(|(name, v)| match v {
                Value::Table(sub) => Ok((name.clone(), Tab::new(sub, t.key(name)))),
                v => err(t.key(name), format!("expected a table, found {}", v.type_str())),
            })
            .collect()
    }
}

/// Read a TOML file holding only the I/O keys (the `--io` option).
pub fn parse_io_file(path: &Path) -> R<IoScenario> {
    let name = path.display().to_string();
    // The reader's message names the file; the error's path already does.
    let text = crate::input_file::read_input_text(path, crate::input_file::TEXT_LIMIT).or_else(|e| {
        let why = e.strip_prefix(&format!("cannot read {name}: ")).unwrap_or(&e).to_string();
        err(&name, format!("cannot read: {why}"))
    })?;
    let table: Table = match text.parse::<Table>() {
        Ok(t) => t,
        Err(e) => {
            let line = e.span().map(|s| text[..s.start.min(text.len())].lines().count().max(1));
            let at = line.map(|l| format!(" (line {l})")).unwrap_or_default();
            let msg = e.message().lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("; ");
            return err(name, format!("invalid TOML{at}: {msg}"));
        }
    };
    let top = Tab::new(&table, "");
    top.only(IO_KEYS)?;
    let base = path.parent().unwrap_or(Path::new("."));
    parse_io_scenario(&table, base)
}

/// Parse the I/O keys (`stimulus`, `pin`, `port`, `adc`, `io`, `uart_input`) of a scenario table; other
/// top-level keys are left to the caller. Relative file names resolve against `base_dir`.
pub fn parse_io_scenario(raw: &Table, base_dir: &Path) -> R<IoScenario> {
    let top = Tab::new(raw, "");
    let mut sc = IoScenario::default();
    for (i, t) in top.tables("stimulus")?.iter().enumerate() {
        sc.stimuli.push(stimulus(t, i)?);
    }
    for (i, s) in sc.stimuli.iter().enumerate() {
        if sc.stimuli[..i].iter().any(|o| o.name == s.name) {
            return err(format!("stimulus[{i}].name"), format!("duplicate stimulus name '{}'", s.name));
        }
    }
    for (name, t) in top.named("pin")? {
        t.only(&["index", "expected_period", "edge"])?;
        let index = t.int("index", 0, 31)?.map_or_else(|| err(t.key("index"), "missing required key"), Ok)? as u8;
        if sc.pins.iter().any(|p| p.index == index) {
            return err(t.key("index"), format!("pin {index} already named"));
        }
        let edge = edge(&t)?;
        sc.pins.push(PinSpec { name, index, expected_period_ps: t.positive_duration("expected_period")?, edge });
    }
    for (name, t) in top.named("port")? {
        sc.ports.push(port(&t, name, base_dir)?);
    }
    for (i, p) in sc.ports.iter().enumerate() {
        if sc.ports[..i].iter().any(|o| o.index == p.index && o.dir == p.dir) {
            return err(format!("port.{}.index", p.name), format!("port {} already named", p.index));
        }
        if sc.pins.iter().any(|o| o.name == p.name) {
            return err(format!("port.{}", p.name), "a pin has the same name");
        }
    }
    if let Some(t) = top.table("adc")? {
        sc.adc = Some(adc(&t, base_dir)?);
    }
    for t in top.tables("uart_input")? {
        sc.uart_inputs.push(uart_input::uart_input(&t, base_dir)?);
    }
    if let Some(t) = top.table("io")? {
        t.only(&["bin", "delay"])?;
        if let Some(b) = t.positive_duration("bin")? {
            sc.measure.bin_ps = b;
        }
        for d in t.tables("delay")? {
            let spec = delay(&d, &sc)?;
            sc.measure.delays.push(spec);
        }
    }
    Ok(sc)
}

fn edge(t: &Tab) -> R<Edge> {
    Ok(match t.str("edge")? {
        None | Some("rising") => Edge::Rising,
        Some("falling") => Edge::Falling,
        Some("both") => Edge::Both,
        Some(o) => return err(t.key("edge"), format!("unknown edge '{o}' (rising, falling, both)")),
    })
}

fn stimulus(t: &Tab, i: usize) -> R<crate::stimuli::irq_gen::StimulusSpec> {
    let kind = t.req_str("kind")?;
    let common = ["name", "kind", "line", "start", "count"];
    let (extra, kind): (&[&str], StimulusKind) = match kind {
        "periodic" => {
            t.only(&[&common[..], &["period"]].concat())?;
            let p = t.positive_duration("period")?.map_or_else(|| err(t.key("period"), "missing required key"), Ok)?;
            (&["period"], StimulusKind::Periodic { period_ps: p })
        }
        "poisson" => {
            t.only(&[&common[..], &["rate_hz"]].concat())?;
            let r = t.req_float("rate_hz")?;
            if r <= 0.0 {
                return err(t.key("rate_hz"), "must be > 0");
            }
            // Gaps are whole picoseconds; far above any core clock a run would only spin.
            if r > 1e9 {
                return err(t.key("rate_hz"), "must be <= 1e9");
            }
            (&["rate_hz"], StimulusKind::Poisson { rate_hz: r })
        }
        "geometric" => {
            t.only(&[&common[..], &["interval", "probability"]].concat())?;
            let iv =
                t.positive_duration("interval")?.map_or_else(|| err(t.key("interval"), "missing required key"), Ok)?;
            let p = t.req_float("probability")?;
            if !(p > 0.0 && p <= 1.0) {
                return err(t.key("probability"), "must be in (0, 1]");
            }
            (&["interval", "probability"], StimulusKind::Geometric { interval_ps: iv, probability: p })
        }
        o => return err(t.key("kind"), format!("unknown stimulus kind '{o}' (periodic, poisson, geometric)")),
    };
    let _ = extra;
    let default_line = i.min(LINES - 1) as i64;
    let line = t.int("line", 0, LINES as i64 - 1)?.unwrap_or(default_line) as u8;
    // A periodic or geometric stimulus starts one period/interval in unless told otherwise.
    let default_start = match kind {
        StimulusKind::Periodic { period_ps } => period_ps,
        StimulusKind::Geometric { interval_ps, .. } => interval_ps,
        StimulusKind::Poisson { .. } => 0,
    };
    Ok(crate::stimuli::irq_gen::StimulusSpec {
        name: t.str("name")?.map_or_else(|| format!("stimulus{i}"), str::to_string),
        line,
        kind,
        start_ps: t.duration("start")?.unwrap_or(default_start),
        count: t.int("count", 0, i64::MAX)?.map(|c| c as u64),
    })
}

fn port(t: &Tab, name: String, base_dir: &Path) -> R<PortSpec> {
    let dir = match t.str("dir")? {
        None | Some("out") => PortDir::Out,
        Some("in") => PortDir::In,
        Some(o) => return err(t.key("dir"), format!("unknown direction '{o}' (out, in)")),
    };
    match dir {
        PortDir::Out => t.only(&["index", "dir", "expected_period"])?,
        PortDir::In => t.only(&["index", "dir", "deliver", "csv"])?,
    }
    let index = t.int("index", 0, PORTS as i64 - 1)?.map_or_else(|| err(t.key("index"), "missing required key"), Ok)?;
    let mut deliveries: Vec<(u64, u32)> = Vec::new();
    for d in t.tables("deliver")? {
        d.only(&["at", "value"])?;
        let at = d.duration("at")?.map_or_else(|| err(d.key("at"), "missing required key"), Ok)?;
        let v = d.int("value", i32::MIN as i64, u32::MAX as i64)?;
        let v = v.map_or_else(|| err(d.key("value"), "missing required key"), Ok)?;
        deliveries.push((at, v as u32));
    }
    if let Some(f) = t.str("csv")? {
        let pts = adc_source::read_csv(&base_dir.join(f), 1).or_else(|e| err(t.key("csv"), e))?;
        for (ps, v) in pts {
            if v.fract() != 0.0 || v < i32::MIN as f64 || v > u32::MAX as f64 {
                return err(t.key("csv"), format!("value {v} is not a 32-bit integer"));
            }
            deliveries.push((ps, v as i64 as u32));
        }
    }
    deliveries.sort_by_key(|d| d.0);
    Ok(PortSpec {
        name,
        index: index as u8,
        dir,
        expected_period_ps: t.positive_duration("expected_period")?,
        deliveries,
    })
}

fn adc(t: &Tab, base_dir: &Path) -> R<AdcSpec> {
    t.only(&["rate_hz", "bits", "range", "channel"])?;
    let rate_hz = t.float("rate_hz")?.unwrap_or(0.0);
    if rate_hz < 0.0 {
        return err(t.key("rate_hz"), "must be >= 0");
    }
    let bits = t.int("bits", 1, 32)?.unwrap_or(12) as u32;
    let range = match t.get("range") {
        None => (-1.0, 1.0),
        Some(Value::Array(a)) if a.len() == 2 => {
            let f = |v: &Value| match v {
                Value::Float(x) => Some(*x),
                Value::Integer(i) => Some(*i as f64),
                _ => None,
            };
            match (f(&a[0]), f(&a[1])) {
                (Some(lo), Some(hi)) if lo < hi && lo.is_finite() && hi.is_finite() => (lo, hi),
                _ => return err(t.key("range"), "expected [low, high] numbers with low < high"),
            }
        }
        Some(_) => return err(t.key("range"), "expected [low, high]"),
    };
    let chans = t.tables("channel")?;
    if chans.len() > CHANNELS {
        return err(t.key("channel"), format!("at most {CHANNELS} channels"));
    }
    let mut channels = Vec::new();
    for (i, c) in chans.iter().enumerate() {
        channels.push(channel(c, i, base_dir)?);
    }
    Ok(AdcSpec { rate_hz, bits, range, channels })
}

fn channel(t: &Tab, i: usize, base_dir: &Path) -> R<crate::stimuli::adc_source::Channel> {
    let src = t.req_str("source")?;
    let keys: &[&str] = match src {
        "sine" => &["freq_hz", "amplitude", "offset", "phase_deg"],
        "noise" => &["stddev", "offset", "sample_period"],
        "step" => &["at", "low", "high"],
        "ramp" => &["offset", "slope_per_s"],
        "wav" => &["file", "wav_channel"],
        "csv" => &["file", "column"],
        o => return err(t.key("source"), format!("unknown source '{o}' (sine, noise, step, ramp, wav, csv)")),
    };
    t.only(&[&["source", "delay"][..], keys].concat())?;
    let source = match src {
        "sine" => Source::Sine {
            freq_hz: t.req_float("freq_hz")?,
            amplitude: t.float("amplitude")?.unwrap_or(1.0),
            offset: t.float("offset")?.unwrap_or(0.0),
            phase_rad: t.float("phase_deg")?.unwrap_or(0.0).to_radians(),
        },
        "noise" => Source::Noise {
            stddev: t.req_float("stddev")?,
            offset: t.float("offset")?.unwrap_or(0.0),
            sample_ps: t.positive_duration("sample_period")?.unwrap_or(1_000_000),
            stream: i as u64,
        },
        "step" => Source::Step {
            at_ps: t.duration("at")?.unwrap_or(0),
            low: t.float("low")?.unwrap_or(0.0),
            high: t.float("high")?.unwrap_or(1.0),
        },
        "ramp" => Source::Ramp { offset: t.float("offset")?.unwrap_or(0.0), slope_per_s: t.req_float("slope_per_s")? },
        "wav" => {
            let f = t.req_str("file")?;
            let ch = t.int("wav_channel", 0, u16::MAX as i64)?.unwrap_or(0) as u16;
            let (rate_hz, values) = adc_source::read_wav(&base_dir.join(f), ch).or_else(|e| err(t.key("file"), e))?;
            Source::Samples { rate_hz, values }
        }
        _ => {
            let f = t.req_str("file")?;
            let col = t.int("column", 1, 1 << 16)?.unwrap_or(1) as usize;
            let points = adc_source::read_csv(&base_dir.join(f), col).or_else(|e| err(t.key("file"), e))?;
            Source::Points { points }
        }
    };
    Ok(crate::stimuli::adc_source::Channel { source, delay_ps: t.duration("delay")?.unwrap_or(0) })
}

fn delay(t: &Tab, sc: &IoScenario) -> R<DelaySpec> {
    t.only(&["name", "stimulus", "response", "match", "edge", "deadline"])?;
    let stim = t.req_str("stimulus")?;
    let stimulus = sc
        .stimuli
        .iter()
        .position(|s| s.name == stim)
        .map_or_else(|| err(t.key("stimulus"), format!("no stimulus named '{stim}'")), Ok)?;
    let resp = t.req_str("response")?;
    let response = if let Some(p) = sc.pins.iter().find(|p| p.name == resp) {
        Target::Pin(p.index, if t.get("edge").is_some() { edge(t)? } else { p.edge })
    } else if let Some(p) = sc.ports.iter().find(|p| p.name == resp && p.dir == PortDir::Out) {
        if t.get("edge").is_some() {
            return err(t.key("edge"), "only pin responses have edges");
        }
        Target::Port(p.index)
    } else {
        return err(t.key("response"), format!("no pin or output port named '{resp}'"));
    };
    let rule = match t.str("match")? {
        None | Some("next") => MatchRule::Next,
        Some("fifo") => MatchRule::Fifo,
        Some("sequence") => MatchRule::Sequence,
        Some(o) => return err(t.key("match"), format!("unknown rule '{o}' (next, fifo, sequence)")),
    };
    Ok(DelaySpec {
        name: t.str("name")?.map_or_else(|| format!("{stim}->{resp}"), str::to_string),
        stimulus,
        response,
        response_name: resp.to_string(),
        rule,
        deadline_ps: t.positive_duration("deadline")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> R<IoScenario> {
        parse_io_scenario(&s.parse::<Table>().unwrap(), Path::new("."))
    }

    #[test]
    fn full_scenario() {
        let sc = parse(
            r#"
            [[stimulus]]
            name = "tick"
            kind = "periodic"
            period = "1ms"
            [[stimulus]]
            kind = "geometric"
            interval = "100us"
            probability = 0.5
            line = 3
            [pin.mark]
            index = 2
            expected_period = "500us"
            [port.out]
            index = 1
            [port.cmd]
            dir = "in"
            index = 0
            deliver = [{ at = "2ms", value = 7 }, { at = 0.001, value = 3 }]
            [adc]
            rate_hz = 8000
            [[adc.channel]]
            source = "sine"
            freq_hz = 440
            delay = "10us"
            [io]
            bin = "2us"
            [[io.delay]]
            stimulus = "tick"
            response = "out"
            deadline = "50us"
            "#,
        )
        .unwrap();
        assert_eq!(sc.stimuli.len(), 2);
        assert_eq!(sc.stimuli[0].start_ps, 1_000_000_000);
        assert_eq!(sc.stimuli[1].line, 3);
        assert_eq!(sc.stimuli[1].name, "stimulus1");
        assert_eq!(sc.pins[0].expected_period_ps, Some(500_000_000));
        let cmd = sc.ports.iter().find(|p| p.name == "cmd").unwrap();
        assert_eq!(cmd.deliveries, vec![(1_000_000_000, 3), (2_000_000_000, 7)]);
        assert_eq!(sc.adc.as_ref().unwrap().channels[0].delay_ps, 10_000_000);
        assert_eq!(sc.measure.bin_ps, 2_000_000);
        assert_eq!(sc.measure.delays[0].response, Target::Port(1));
        assert_eq!(sc.measure.delays[0].name, "tick->out");
    }

    #[test]
    fn errors_name_the_key() {
        let cases = [
            ("[[stimulus]]\nkind='poisson'\nrate_hz=0", "stimulus[0].rate_hz: must be > 0"),
            ("[[stimulus]]\nkind='periodic'\nperiod='1ms'\nperiod_us=3", "stimulus[0].period_us: unknown key"),
            ("[[stimulus]]\nkind='periodic'\nperiod=true", "stimulus[0].period: expected a duration"),
            ("[[stimulus]]\nkind='wobbly'", "stimulus[0].kind: unknown stimulus kind"),
            ("[[stimulus]]\nkind='geometric'\ninterval='1us'\nprobability=1.5", "stimulus[0].probability: must be"),
            ("[pin.a]\nindex=40", "pin.a.index: must be in 0..=31"),
            ("[port.a]\nindex=1\ndeliver=[]", "port.a.deliver: unknown key"),
            ("[adc]\n[[adc.channel]]\nsource='wav'\nfile='/nonexistent.wav'", "adc.channel[0].file: cannot read"),
            ("[io]\n[[io.delay]]\nstimulus='x'\nresponse='y'", "io.delay[0].stimulus: no stimulus named 'x'"),
            ("stimulus = 3", "stimulus: expected an array of tables"),
        ];
        for (text, want) in cases {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.starts_with(want), "{text:?}: got {e:?}, want {want:?}");
            assert!(!e.contains('\n'));
        }
    }
}
