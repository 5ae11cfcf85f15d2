//! The simulator's side of energy accounting: enabling it, and the cold hooks called on
//! sleep, wake-up, exception entry/return, trace-port words and indirect calls.

use super::categories::{categorize, FuncInfo, Rule};
use super::profile::Profile;
use super::rates::Rates;
use super::{class_of, EnergyState, Function, Meter, TaskAcc, IRQ_TASK};
use crate::cpu::op::Kind;
use crate::machine::Machine;

/// Trace-port event codes (kernel/include/cairn/trace.h) that change the current task.
const EV_START: u32 = 0x02;
const EV_END: u32 = 0x03;
const EV_CURRENT: u32 = 0x09;

impl Machine {
    /// Turn on energy accounting with `profile` (after loading the ELF, before running), in
    /// the voltage range `config.voltage_range` or else the lowest-power one that runs the
    /// clock. `rules` are the user's category rules; the defaults are appended. The error (no
    /// range runs the clock) is one line.
    pub fn enable_energy(&mut self, profile: &Profile, voltage_v: Option<f64>, rules: &[Rule]) -> Result<(), String> {
        let range = profile.range(self.config.clock_hz, self.config.voltage_range)?;
        let mut all_rules = rules.to_vec();
        all_rules.extend(super::categories::default_rules());
        let rates = Rates::new(profile, range, self.config.clock_hz, voltage_v);
        let mut categories: Vec<String> = vec!["unknown".into()];
        let mut funcs = vec![Function { name: "(unknown)".into(), addr: 0, size: 0, category: 0 }];
        let mut infos: Vec<&FuncInfo> = self.functions.iter().filter(|f| f.size > 0).collect();
        infos.sort_by(|a, b| a.addr.cmp(&b.addr).then(b.size.cmp(&a.size)).then(a.name.cmp(&b.name)));
        infos.dedup_by(|a, b| a.addr == b.addr);
        let mut last_end = 0u32;
        for f in infos {
            // Overlapping symbols: the earlier (lower, larger) one keeps its range.
            if f.addr < last_end {
                continue;
            }
            last_end = f.addr.saturating_add(f.size);
            let cat = categorize(&all_rules, f).to_string();
            let ci = match categories.iter().position(|c| *c == cat) {
                Some(i) => i,
                None => {
                    categories.push(cat);
                    categories.len() - 1
                }
            };
            funcs.push(Function { name: f.name.clone(), addr: f.addr, size: f.size, category: ci });
        }
        self.meter = Meter::zeroed(self.flash.len() / 2);
        self.flash_reads_end_block = self.config.flash_wait_states != 0;
        let mut tasks = std::collections::BTreeMap::new();
        tasks.insert(0u16, TaskAcc::default());
        self.energy = Some(Box::new(EnergyState {
            profile: profile.name.clone(),
            rates,
            funcs,
            categories,
            tasks,
            cur: 0,
            thread_task: 0,
            task_names: Default::default(),
            dyn_calls: Default::default(),
            sleep_state: 0,
            uart_bytes: 0,
            uart_busy_cycles: 0,
            timer_cycles: 0,
            timer_since: vec![None; self.timers.len()],
            timer_paused: 0,
            start_cycle: self.cycles,
            adc_conversions_before: self.io.adc_conversions(),
        }));
        // Enabled at reset: the reset handler's entry is its first call.
        if self.cycles == 0 {
            self.energy_note_call(self.pc);
        }
        Ok(())
    }

    /// Make the counters of the task that now runs current: handlers count as `irq`.
    /// A switch ends the run loop's block, so that the instruction that caused it (a
    /// trace-port store, an exception return) is settled to the task that executed it.
    pub fn energy_sync_task(&mut self) {
        let in_handler = self.in_handler();
        let board = &mut self.0.sys;
        let Some(e) = board.energy.as_deref_mut() else { return };
        let want = if in_handler { IRQ_TASK } else { e.thread_task };
        if want == e.cur {
            return;
        }
        let meter = &mut board.meter;
        let n = meter.exec.len();
        let old = e.tasks.entry(e.cur).or_default();
        std::mem::swap(&mut old.exec, &mut meter.exec);
        std::mem::swap(&mut old.extra, &mut meter.extra);
        let new = e.tasks.entry(want).or_default();
        if new.exec.len() != n {
            new.exec = vec![0; n];
            new.extra = vec![0; n];
        }
        std::mem::swap(&mut new.exec, &mut meter.exec);
        std::mem::swap(&mut new.extra, &mut meter.extra);
        meter.switched_from.get_or_insert(e.cur);
        e.cur = want;
        self.next_event = 0;
    }

    /// A conditional branch in flash at `pc` was taken: one cycle beyond its static cost
    /// (2 cycles taken, 1 not taken on the Cortex-M0+).
    #[inline(always)]
    pub fn energy_branch_taken(&mut self, pc: u32) {
        let off = pc.wrapping_sub(self.flash_base) as usize >> 1;
        if let Some(x) = self.meter.extra.get_mut(off) {
            *x += 1;
        }
    }

    /// After a block: charge the last instruction (at `pc`, started at cycle `before`)
    /// whatever its cycles differ from its static cost and the taken-branch record, to the
    /// task that executed it.
    #[cold]
    #[inline(never)]
    pub fn energy_settle(&mut self, pc: u32, before: u64) {
        let from = self.meter.switched_from.take();
        let off = pc.wrapping_sub(self.flash_base) as usize >> 1;
        let op = self.executed_op_at(pc);
        if op.map(|op| op.kind()) == Some(Kind::BCond) {
            return;
        }
        let diff = (self.cycles - before).wrapping_sub(op.map_or(0, |op| self.static_cycles(op)));
        if diff == 0 {
            return;
        }
        let board = &mut self.0.sys;
        let Some(e) = board.energy.as_deref_mut() else { return };
        let extra = match from {
            Some(t) if t != e.cur => &mut e.tasks.entry(t).or_default().extra,
            _ => &mut board.meter.extra,
        };
        if let Some(x) = extra.get_mut(off) {
            *x = x.wrapping_add(diff);
        }
    }

    /// A word written to the trace port: follow the kernel's current task.
    pub fn energy_trace_word(&mut self, word: u32) {
        let Some(e) = self.energy.as_deref_mut() else { return };
        let a = ((word >> 16) & 0xff) as u16;
        match word >> 24 {
            EV_START | EV_CURRENT => e.thread_task = a,
            EV_END => e.thread_task = 0,
            _ => return,
        }
        self.energy_sync_task();
    }

    /// Another RTOS's current task changed (`--rtos`): thread-mode code now runs as `key`
    /// (0: none, charged to `kernel`), named `name`.
    pub fn energy_set_thread_task(&mut self, key: u16, name: Option<&str>) {
        let Some(e) = self.energy.as_deref_mut() else { return };
        if let Some(n) = name {
            e.task_names.entry(key).or_insert_with(|| n.to_string());
        }
        e.thread_task = key;
        self.energy_sync_task();
    }

    /// A call counted as it happens (BLX target, exception handler entered).
    #[cold]
    #[inline(never)]
    pub fn energy_note_call(&mut self, target: u32) {
        if let Some(e) = self.energy.as_deref_mut() {
            *e.dyn_calls.entry(target).or_insert(0) += 1;
        }
    }

    /// An exception handler was entered at `pc`.
    pub fn energy_note_handler_entry(&mut self, pc: u32) {
        if self.energy.is_some() {
            self.energy_sync_task();
            self.energy_note_call(pc);
        }
    }

    /// An instruction outside flash (SRAM code) or a fetch fault.
    #[cold]
    #[inline(never)]
    pub fn energy_charge_other(&mut self, kind: Kind, cycles: u64) {
        if let Some(e) = self.energy.as_deref_mut() {
            let c = &mut e.tasks.entry(e.cur).or_default().other[class_of(kind) as usize];
            c[0] += cycles;
            c[1] += 1;
        }
    }

    /// Cycles the core spent outside instructions (exception entry from `service`),
    /// charged to the handler it entered.
    pub fn energy_charge_core(&mut self, cycles: u64) {
        let pc = self.pc;
        if cycles == 0 {
            return;
        }
        if let Some(e) = self.energy.as_deref_mut() {
            let c = e.tasks.entry(e.cur).or_default().core.entry(pc).or_insert([0, 0]);
            c[0] += cycles;
            c[1] += 1;
        }
    }

    /// The core starts sleeping: remember which state (SCR.SLEEPDEEP selects deep sleep).
    pub fn energy_sleep_begins(&mut self, deep: bool) {
        if let Some(e) = self.energy.as_deref_mut() {
            e.sleep_state = deep as usize;
        }
    }

    pub fn energy_sleep(&mut self, cycles: u64) {
        let systick_wakes = self.systick.enable && self.systick.tickint;
        if let Some(e) = self.energy.as_deref_mut() {
            let s = e.sleep_state;
            e.tasks.entry(e.cur).or_default().sleep[s] += cycles;
            if s == 1 {
                // Deep sleep stops the peripheral clocks: enabled timers draw nothing. A timer
                // that can still wake the core stands for the part's RTC, which does draw.
                let timers = e.timer_since.iter().flatten().count() as u64;
                e.timer_paused += cycles * timers;
                if timers > 0 || systick_wakes {
                    e.tasks.entry(e.cur).or_default().rtc += cycles;
                }
            }
        }
    }

    /// The core wakes: returns the profile's wake-up latency in cycles (charged to the
    /// `wakeup` state), which delays the core. 0 without a profile.
    pub fn energy_wakeup(&mut self) -> u64 {
        let Some(e) = self.energy.as_deref_mut() else { return 0 };
        let s = e.sleep_state;
        let lat = e.rates.wakeup_cycles[s];
        let t = e.tasks.entry(e.cur).or_default();
        t.wakeup[s] += lat;
        t.wakeups[s] += 1;
        lat
    }

    /// The console UART sent a byte: 10 bit times at the programmed BAUDDIV, or one byte at
    /// the profile's baud while BAUDDIV is below the CMSDK minimum of 16.
    pub fn energy_uart_byte(&mut self, bauddiv: u32) {
        let Some(e) = self.energy.as_deref_mut() else { return };
        if bauddiv >= 16 {
            e.uart_busy_cycles += 10 * bauddiv as u64;
        } else {
            e.uart_bytes += 1;
        }
    }

    /// A CMSDK timer's CTRL is about to change (timer `i` of the board, one enable time
    /// kept per timer): account the time it was enabled.
    pub fn energy_timer_ctrl(&mut self, i: usize, enabled_after: bool) {
        let now = self.cycles;
        let Some(e) = self.energy.as_deref_mut() else { return };
        if let Some(since) = e.timer_since[i].take() {
            e.timer_cycles += now - since;
        }
        if enabled_after {
            e.timer_since[i] = Some(now);
        }
    }
}
