//! ELF symbol table lookups for diagnostics: address -> `symbol+offset`.

#[derive(Default, Clone, Debug)]
pub struct Symbols {
    /// (address, size, name) sorted by address; Thumb bit cleared.
    entries: Vec<(u32, u32, String)>,
}

impl Symbols {
    pub fn new(mut entries: Vec<(u32, u32, String)>) -> Symbols {
        entries.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
        entries.dedup_by(|a, b| a.0 == b.0);
        Symbols { entries }
    }

    /// The symbol containing `addr` (or the nearest one below it when sizes are unknown).
    pub fn lookup(&self, addr: u32) -> Option<(&str, u32)> {
        let idx = self.entries.partition_point(|e| e.0 <= addr);
        if idx == 0 {
            return None;
        }
        let (start, size, name) = &self.entries[idx - 1];
        let off = addr - start;
        // Sized symbols must contain the address; unsized ones (labels, linker symbols)
        // only explain addresses shortly after them.
        if (*size != 0 && off >= *size) || (*size == 0 && off >= 0x1000) {
            return None;
        }
        Some((name.as_str(), off))
    }

    pub fn describe(&self, addr: u32) -> String {
        match self.lookup(addr) {
            Some((name, off)) => format!("{name}+0x{off:x}"),
            None => "??".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_inside_and_outside() {
        let s = Symbols::new(vec![(0x100, 0x10, "a".into()), (0x200, 0, "b".into())]);
        assert_eq!(s.describe(0x104), "a+0x4");
        assert_eq!(s.describe(0x110), "??");
        assert_eq!(s.describe(0x250), "b+0x50");
        assert_eq!(s.describe(0x5000_0000), "??");
        assert_eq!(s.describe(0x50), "??");
    }
}
