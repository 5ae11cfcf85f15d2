//! The scenario's drivers of the devices: the seeded PRNG, interrupt-line stimulus
//! generators, ADC signal sources, and `driver`, which fires them into the Cairn devices.
//! Everything here is a pure function of (scenario, seed, time), so a run is reproducible
//! bit for bit. Drivers sit above the devices (periph) and know nothing of scenario files,
//! measurements or outputs.
pub mod adc_source;
pub mod driver;
pub mod irq_gen;
pub mod prng;
