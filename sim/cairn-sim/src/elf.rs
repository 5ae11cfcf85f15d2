//! Loading firmware ELF files: checks that the file is a 32-bit little-endian ARM ELF
//! executable (ET_EXEC), copies PT_LOAD segments to their physical (load) addresses as
//! QEMU and flash programmers do, and collects symbols for diagnostics.

use crate::energy::categories::FuncInfo;
use crate::machine::Machine;
use crate::symbols::Symbols;
use object::elf;
use object::read::elf::{ElfFile32, FileHeader, ProgramHeader};
use object::{LittleEndian, Object, ObjectSection, ObjectSymbol, SymbolKind};

/// Load `bytes` into `m`. The error is one line suitable for the user.
pub fn load_elf(m: &mut Machine, bytes: &[u8]) -> Result<(), String> {
    if bytes.len() < 4 || &bytes[..4] != b"\x7fELF" {
        return Err("not an ELF file (bad magic number)".into());
    }
    if bytes.len() < 52 {
        return Err("truncated ELF file (header incomplete)".into());
    }
    if bytes[4] != 1 {
        return Err("ELF file is not 32-bit; expected a 32-bit ARM ELF".into());
    }
    if bytes[5] != 1 {
        return Err("ELF file is big-endian; expected little-endian ARM".into());
    }
    let file = ElfFile32::<LittleEndian>::parse(bytes).map_err(|e| format!("malformed ELF file: {e}"))?;
    let endian = file.endian();
    let header = file.elf_header();
    let machine = header.e_machine(endian);
    if machine != elf::EM_ARM {
        return Err(format!("ELF file is for machine {} ({}), not ARM", machine_name(machine), machine));
    }
    // Only an executable has load addresses that mean anything: a relocatable object's
    // (even one with program headers) or a shared object's are not where the code runs.
    let kind = header.e_type(endian);
    if kind != elf::ET_EXEC {
        let what = match kind {
            elf::ET_REL => "a relocatable object (ET_REL)",
            elf::ET_DYN => "a shared object or position-independent executable (ET_DYN)",
            elf::ET_CORE => "a core dump (ET_CORE)",
            _ => "not an executable",
        };
        return Err(format!("ELF file is {what}; expected an executable (ET_EXEC): link it first"));
    }
    let mut loaded = 0usize;
    for ph in file.elf_program_headers() {
        if ph.p_type(endian) != elf::PT_LOAD {
            continue;
        }
        let paddr = ph.p_paddr(endian);
        let filesz = ph.p_filesz(endian);
        let memsz = ph.p_memsz(endian);
        if memsz == 0 {
            continue;
        }
        let data = ph
            .data(endian, bytes)
            .map_err(|_| format!("truncated ELF file: segment at 0x{paddr:08x} extends past the end of the file"))?;
        if data.len() as u64 != filesz as u64 {
            return Err(format!("truncated ELF file: segment at 0x{paddr:08x} is incomplete"));
        }
        let outside =
            |a: u32| format!("segment at 0x{paddr:08x} ({memsz} bytes) does not fit in flash or SRAM (byte 0x{a:08x})");
        // Check the whole segment fits before allocating anything for it.
        if m.flash_offset(paddr, memsz).is_none() && m.sram_offset(paddr, memsz).is_none() {
            let first_bad = if m.peek8(paddr).is_none() {
                paddr
            } else if m.flash_offset(paddr, 1).is_some() {
                m.flash_base.wrapping_add(m.flash.len() as u32)
            } else {
                m.sram_base.wrapping_add(m.sram.len() as u32)
            };
            return Err(outside(first_bad));
        }
        m.load_bytes(paddr, data).map_err(outside)?;
        if memsz > filesz {
            let zeros = vec![0u8; (memsz - filesz) as usize];
            m.load_bytes(paddr + filesz, &zeros).map_err(outside)?;
        }
        loaded += 1;
    }
    if loaded == 0 {
        return Err("ELF file has no loadable segments".into());
    }
    let mut syms = Vec::new();
    let mut funcs = Vec::new();
    let mut file_name: Option<String> = None;
    for s in file.symbols() {
        if s.kind() == SymbolKind::File {
            file_name = s.name().ok().map(str::to_string);
            continue;
        }
        if s.kind() == SymbolKind::Text && s.size() > 0 {
            if let Ok(name) = s.name() {
                let section = s
                    .section_index()
                    .and_then(|i| file.section_by_index(i).ok())
                    .and_then(|sec| sec.name().ok().map(str::to_string))
                    .unwrap_or_default();
                funcs.push(FuncInfo {
                    addr: s.address() as u32 & !1,
                    size: s.size() as u32,
                    name: name.to_string(),
                    section,
                    // STT_FILE applies to the local symbols that follow it.
                    file: if s.is_local() { file_name.clone() } else { None },
                });
            }
        }
        let Ok(name) = s.name() else { continue };
        if name.is_empty() || name.starts_with('$') {
            continue;
        }
        if !matches!(s.kind(), SymbolKind::Text | SymbolKind::Data | SymbolKind::Unknown) {
            continue;
        }
        let addr = s.address() as u32;
        let addr = if s.kind() == SymbolKind::Text { addr & !1 } else { addr };
        syms.push((addr, s.size() as u32, name.to_string()));
    }
    m.symbols = Symbols::new(syms);
    m.functions = funcs;
    Ok(())
}

/// The address of the ELF's symbol `name` (the first of that name), whatever its kind:
/// linker-script symbols such as `__stack_limit` have none.
pub fn symbol_address(bytes: &[u8], name: &str) -> Option<u32> {
    let file = object::File::parse(bytes).ok()?;
    file.symbols().find(|s| s.name() == Ok(name)).map(|s| s.address() as u32)
}

/// Give every function symbol the source file DWARF assigns to its address (the compilation
/// unit's name, e.g. `kernel/core/sched.c`), falling back to the STT_FILE name of a local
/// symbol. Only needed for `file:` category patterns, so callers do it when energy is on.
pub fn attach_source_files(m: &mut Machine, bytes: &[u8]) {
    let ranges = crate::dwarf::unit_ranges(bytes);
    for f in &mut m.functions {
        if let Some(name) = crate::dwarf::unit_at(&ranges, f.addr) {
            f.file = Some(name.to_string());
        }
    }
}

fn machine_name(m: u16) -> &'static str {
    match m {
        elf::EM_386 => "x86",
        elf::EM_X86_64 => "x86-64",
        elf::EM_AARCH64 => "AArch64",
        elf::EM_RISCV => "RISC-V",
        elf::EM_MSP430 => "MSP430",
        elf::EM_AVR => "AVR",
        elf::EM_XTENSA => "Xtensa",
        elf::EM_MIPS => "MIPS",
        elf::EM_PPC => "PowerPC",
        _ => "unknown",
    }
}
