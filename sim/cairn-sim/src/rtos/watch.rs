//! Following an RTOS's current task: the pointer's SRAM page is flagged, so the store path's
//! existing per-page check (the one that keeps decoded SRAM code fresh) sends stores there to
//! `rtos_store`; nothing else on the hot path changes. A store that changes the pointer is a
//! task switch at that store's cycle: the energy accounting's thread task and the trace's task
//! track follow it, exactly as they follow Cairn OS's trace-port words.

use super::resolve::{Layout, NameKind};
use crate::energy::IRQ_TASK;
use crate::machine::{Machine, PAGE_WATCH};
use std::collections::{BTreeMap, BTreeSet};

/// Task keys of RTOS tasks start after Cairn OS's (1..=255) and `irq` (256).
pub const FIRST_KEY: u16 = IRQ_TASK + 1;
/// Shared by every task beyond the 65,000-odd that keys can tell apart.
pub const OVERFLOW_KEY: u16 = u16::MAX;
/// Longest name read from a task control block (or the string it points to).
pub const MAX_NAME: u32 = 64;
/// Names the report already uses; a task called so gets its address appended.
const RESERVED: &[&str] = &["kernel", "irq", "peripherals"];

/// A task as the watch knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Task {
    pub key: u16,
    pub tcb: u32,
    /// Unique among the run's tasks (the report's and the trace's name).
    pub name: String,
}

pub struct Watch {
    pub layout: Layout,
    /// SRAM offset of the pointer.
    off: usize,
    /// SRAM offset and size of the scheduler-running variable, if any.
    running: Option<(usize, usize)>,
    /// Key of the current task (0 = none: the pointer is NULL).
    current: u16,
    /// (control block address, name as read) -> key: a block reused for a task of another
    /// name is another task.
    ids: BTreeMap<(u32, String), u16>,
    tasks: BTreeMap<u16, Task>,
    used: BTreeSet<String>,
    next: u16,
    /// Stores that changed the current task.
    pub switches: u64,
}

impl Watch {
    pub fn tasks(&self) -> impl Iterator<Item = &Task> {
        self.tasks.values()
    }

    pub fn current(&self) -> Option<&Task> {
        self.tasks.get(&self.current)
    }

    /// The key of the task at `tcb` called `raw` (registered when first seen).
    fn identify(&mut self, tcb: u32, raw: String) -> u16 {
        if let Some(k) = self.ids.get(&(tcb, raw.clone())) {
            return *k;
        }
        if self.next == OVERFLOW_KEY {
            self.tasks.entry(OVERFLOW_KEY).or_insert_with(|| Task {
                key: OVERFLOW_KEY,
                tcb: 0,
                name: "(more tasks)".into(),
            });
            return OVERFLOW_KEY;
        }
        let key = self.next;
        self.next += 1;
        let base = if raw.is_empty() { format!("task@0x{tcb:08x}") } else { raw.clone() };
        let taken = |n: &str, used: &BTreeSet<String>| {
            used.contains(n)
                || RESERVED.contains(&n)
                || n.strip_prefix("task").is_some_and(|d| d.parse::<u16>().is_ok())
        };
        let mut name = base.clone();
        if taken(&name, &self.used) {
            name = format!("{base}@0x{tcb:08x}");
        }
        let mut n = 2;
        while taken(&name, &self.used) {
            name = format!("{base}@0x{tcb:08x}#{n}");
            n += 1;
        }
        self.used.insert(name.clone());
        self.ids.insert((tcb, raw), key);
        self.tasks.insert(key, Task { key, tcb, name });
        key
    }
}

impl Machine {
    /// Follow the current-task pointer described by `layout` from now on. Call after the ELF
    /// is loaded and energy accounting and the trace are set up, before running.
    pub fn install_rtos(&mut self, layout: Layout) -> Result<(), String> {
        let Some(off) = self.sram_offset(layout.addr, 4) else {
            return Err(format!("the current-task pointer at 0x{:08x} is not in SRAM", layout.addr));
        };
        self.sram_page_flags[off >> 8] |= PAGE_WATCH;
        self.sram_page_flags[(off + 3) >> 8] |= PAGE_WATCH;
        let running = match layout.running {
            Some(f) => {
                let Some(roff) = self.sram_offset(f.addr, f.size) else {
                    return Err(format!("the scheduler-running variable at 0x{:08x} is not in SRAM", f.addr));
                };
                self.sram_page_flags[roff >> 8] |= PAGE_WATCH;
                self.sram_page_flags[(roff + f.size as usize - 1) >> 8] |= PAGE_WATCH;
                Some((roff, f.size as usize))
            }
            None => None,
        };
        self.rtos = Some(Box::new(Watch {
            layout,
            off,
            running,
            current: 0,
            ids: BTreeMap::new(),
            tasks: BTreeMap::new(),
            used: BTreeSet::new(),
            next: FIRST_KEY,
            switches: 0,
        }));
        // A pointer initialised in .data names a task already.
        self.rtos_update();
        Ok(())
    }

    /// A store of `size` bytes at SRAM offset `off` hit a watched page.
    pub fn rtos_store(&mut self, off: usize, size: usize) {
        let Some(w) = self.rtos.as_deref() else { return };
        let hits = |at: usize, n: usize| off < at + n && off + size > at;
        if hits(w.off, 4) || w.running.is_some_and(|(at, n)| hits(at, n)) {
            self.rtos_update();
        }
    }

    /// The task a control block at `tcb` names: its name as stored now.
    fn read_task_name(&self, layout: &Layout, tcb: u32) -> String {
        let Some(f) = layout.name else { return String::new() };
        let at = tcb.wrapping_add(f.offset);
        let (start, len) = match f.kind {
            NameKind::Inline(n) => (at, n.min(MAX_NAME)),
            NameKind::Pointer => match self.peek32(at) {
                Some(p) => (p, MAX_NAME),
                None => return String::new(),
            },
        };
        let mut bytes = Vec::new();
        for i in 0..len {
            match self.peek8(start.wrapping_add(i)) {
                Some(0) | None => break,
                Some(b) => bytes.push(b),
            }
        }
        // Names become JSON strings and track names: keep them printable, on one line.
        String::from_utf8_lossy(&bytes).chars().map(|c| if c.is_control() { '?' } else { c }).collect()
    }

    /// Re-read the pointer; if it now names another task, switch to it. While the scheduler
    /// is not running (its variable, when there is one, is 0) no task is current.
    fn rtos_update(&mut self) {
        let Some(w) = self.rtos.as_deref() else { return };
        let word = |at: usize, n: usize| {
            self.sram.get(at..at + n).map_or(0, |b| b.iter().rev().fold(0u32, |v, x| v << 8 | *x as u32))
        };
        let stopped = w.running.is_some_and(|(at, n)| word(at, n) == 0);
        let ptr = if stopped { 0 } else { word(w.off, 4) };
        // The same value stored again is re-checked too: the block may now hold another task.
        let layout = w.layout;
        let name = if ptr == 0 { String::new() } else { self.read_task_name(&layout, ptr) };
        let Some(w) = self.rtos.as_deref_mut() else { return };
        let key = if ptr == 0 { 0 } else { w.identify(ptr, name) };
        if key == w.current {
            return;
        }
        w.current = key;
        w.switches += 1;
        let to = w.tasks.get(&key).cloned();
        crate::attached::Attached::task_switched(self, key, to.as_ref());
    }
}
