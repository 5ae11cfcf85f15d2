//! The kinds of memory-mapped device a board file can place, with the size of the address
//! window each decodes and how many interrupt lines it drives.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceKind {
    /// ARM CMSDK APB timer: one interrupt line.
    CmsdkTimer,
    /// ARM CMSDK APB UART: RX and TX interrupt lines.
    CmsdkUart,
    /// Cairn trace port: the kernel's event words (no interrupt).
    CairnTracePort,
    /// Cairn marker GPIO (no interrupt).
    CairnGpio,
    /// Cairn input/output ports: one line, raised when an input port receives a value.
    CairnIoPorts,
    /// Cairn ADC: one line, conversion done.
    CairnAdc,
    /// Cairn stimulus interrupt controller: one line per stimulus line.
    CairnStimulus,
    /// Cairn inter-processor bus controller: RX, TX done and error lines.
    CairnBusCtrl,
    /// Cairn 32.768 kHz real-time clock: one line, the alarm.
    CairnRtc,
}

pub const KINDS: &[DeviceKind] = &[
    DeviceKind::CmsdkTimer,
    DeviceKind::CmsdkUart,
    DeviceKind::CairnTracePort,
    DeviceKind::CairnGpio,
    DeviceKind::CairnIoPorts,
    DeviceKind::CairnAdc,
    DeviceKind::CairnStimulus,
    DeviceKind::CairnBusCtrl,
    DeviceKind::CairnRtc,
];

impl DeviceKind {
    pub fn name(self) -> &'static str {
        match self {
            DeviceKind::CmsdkTimer => "cmsdk-timer",
            DeviceKind::CmsdkUart => "cmsdk-uart",
            DeviceKind::CairnTracePort => "cairn-trace-port",
            DeviceKind::CairnGpio => "cairn-gpio",
            DeviceKind::CairnIoPorts => "cairn-io-ports",
            DeviceKind::CairnAdc => "cairn-adc",
            DeviceKind::CairnStimulus => "cairn-stimulus",
            DeviceKind::CairnBusCtrl => "cairn-bus-ctrl",
            DeviceKind::CairnRtc => "cairn-rtc",
        }
    }

    pub fn by_name(name: &str) -> Option<DeviceKind> {
        KINDS.iter().copied().find(|k| k.name() == name)
    }

    /// Bytes of address space the device decodes from its base (APB-style 4 KiB frames).
    pub fn window_bytes(self) -> u32 {
        0x1000
    }

    /// Interrupt lines the device drives, in the order a board file lists their numbers.
    pub fn irq_lines(self) -> usize {
        match self {
            DeviceKind::CmsdkTimer | DeviceKind::CairnIoPorts | DeviceKind::CairnAdc | DeviceKind::CairnRtc => 1,
            DeviceKind::CmsdkUart => 2,
            DeviceKind::CairnBusCtrl => 3,
            DeviceKind::CairnTracePort | DeviceKind::CairnGpio => 0,
            DeviceKind::CairnStimulus => cairn_devices::stim_ctrl::LINES,
        }
    }
}
