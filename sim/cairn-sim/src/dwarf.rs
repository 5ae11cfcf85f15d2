//! Source files of code from the ELF's DWARF: the address ranges of each compilation unit and
//! its name, so `file:` category patterns also apply to global functions (the symbol table's
//! STT_FILE entries only name the file of local symbols). Malformed or absent DWARF yields
//! fewer (or no) ranges, never an error.

use gimli::{EndianSlice, RunTimeEndian};
use object::{Object, ObjectSection};

/// DWARF sections borrowed from an ELF file (little-endian: the only byte order the loader
/// accepts). A missing section reads as empty.
pub type Reader<'a> = EndianSlice<'a, RunTimeEndian>;

/// The ELF's DWARF debug information, as gimli reads it.
pub fn load<'a>(file: &object::File<'a>) -> Result<gimli::Dwarf<Reader<'a>>, gimli::Error> {
    gimli::Dwarf::load(|id: gimli::SectionId| -> Result<Reader<'a>, gimli::Error> {
        let data = file.section_by_name(id.name()).and_then(|s| s.data().ok()).unwrap_or(&[]);
        Ok(EndianSlice::new(data, RunTimeEndian::Little))
    })
}

/// (start, end, compilation-unit name) for every address range DWARF gives, sorted.
pub fn unit_ranges(bytes: &[u8]) -> Vec<(u32, u32, String)> {
    let Ok(file) = object::File::parse(bytes) else { return Vec::new() };
    let Ok(dwarf) = load(&file) else { return Vec::new() };
    let mut out = Vec::new();
    let mut units = dwarf.units();
    while let Ok(Some(header)) = units.next() {
        let Ok(unit) = dwarf.unit(header) else { continue };
        let Some(name) = unit.name.map(|n| n.to_string_lossy().into_owned()) else { continue };
        let Ok(mut ranges) = dwarf.unit_ranges(&unit) else { continue };
        while let Ok(Some(r)) = ranges.next() {
            if r.begin < r.end && r.end <= u32::MAX as u64 + 1 {
                out.push((r.begin as u32, (r.end - 1) as u32, name.clone()));
            }
        }
    }
    out.sort();
    out
}

/// The compilation unit containing `addr` (ranges from `unit_ranges`; end inclusive).
pub fn unit_at(ranges: &[(u32, u32, String)], addr: u32) -> Option<&str> {
    let i = ranges.partition_point(|r| r.0 <= addr);
    let r = ranges.get(i.checked_sub(1)?)?;
    (addr <= r.1).then_some(r.2.as_str())
}
