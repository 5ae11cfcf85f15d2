//! What happens at the Cairn devices' pins, as events with their cycle, and the buffer the
//! devices put them in. The devices only append: the machine drains the buffer to whatever
//! observes the run (measurements, io-log, VCD), so no device knows who reads its events.

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
    /// A byte arrived on a UART's receive line (index: the UART's number, value: the byte).
    UartRx,
}

impl IoKind {
    pub fn name(self) -> &'static str {
        match self {
            IoKind::Stimulus => "stimulus",
            IoKind::Input => "input",
            IoKind::Adc => "adc",
            IoKind::Output => "output",
            IoKind::Gpio => "gpio",
            IoKind::UartRx => "uart_rx",
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

/// The events logged and not yet drained (all of them when nothing drains). It derefs to
/// the vector so that tests and retained-log writers can read it directly.
#[derive(Clone, Debug)]
pub struct EventLog {
    events: Vec<IoEvent>,
    /// Whether events are kept at all: a run whose outputs would not read them turns this
    /// off and the devices then log nothing.
    pub enabled: bool,
}

impl Default for EventLog {
    fn default() -> Self {
        EventLog { events: Vec::new(), enabled: true }
    }
}

impl EventLog {
    #[inline]
    pub fn log(&mut self, cycle: u64, kind: IoKind, index: u8, value: u32) {
        if self.enabled {
            self.events.push(IoEvent { cycle, kind, index, value });
        }
    }
}

impl std::ops::Deref for EventLog {
    type Target = Vec<IoEvent>;
    fn deref(&self) -> &Vec<IoEvent> {
        &self.events
    }
}

impl std::ops::DerefMut for EventLog {
    fn deref_mut(&mut self) -> &mut Vec<IoEvent> {
        &mut self.events
    }
}
