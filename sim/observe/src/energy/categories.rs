//! Code categories (SimBed's split of where the cycles go): each function of the ELF gets
//! one category from an ordered list of rules; the first rule that matches wins. User rules
//! from the scenario come first, then the defaults below.

/// What a rule looks at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Field {
    Symbol,
    Section,
    /// The source file: the DWARF compilation unit containing the function (as compiled,
    /// e.g. `kernel/core/sched.c`), else the STT_FILE symbol preceding a local symbol. A
    /// pattern without `/` also matches the base name.
    File,
}

#[derive(Clone, Debug)]
pub struct Rule {
    pub category: String,
    pub field: Field,
    pub glob: String,
}

impl Rule {
    /// Parse `"sym:GLOB"`, `"section:GLOB"`, `"file:GLOB"` or a bare symbol glob.
    pub fn parse(category: &str, pattern: &str) -> Result<Rule, String> {
        let (field, glob) = match pattern.split_once(':') {
            Some(("sym" | "symbol", g)) => (Field::Symbol, g),
            Some(("section", g)) => (Field::Section, g),
            Some(("file", g)) => (Field::File, g),
            Some((other, _)) => {
                return Err(format!("unknown pattern kind \"{other}\" in \"{pattern}\" (use sym:, section: or file:)"))
            }
            None => (Field::Symbol, pattern),
        };
        if glob.is_empty() {
            return Err(format!("empty pattern \"{pattern}\""));
        }
        Ok(Rule { category: category.to_string(), field, glob: glob.to_string() })
    }

    fn matches(&self, f: &FuncInfo) -> bool {
        let text = match self.field {
            Field::Symbol => f.name.as_str(),
            Field::Section => f.section.as_str(),
            Field::File => match &f.file {
                Some(s) => s.as_str(),
                None => return false,
            },
        };
        if glob_match(self.glob.as_bytes(), text.as_bytes()) {
            return true;
        }
        // A file pattern without a folder also matches the file's base name.
        match (&self.field, text.rsplit_once('/')) {
            (Field::File, Some((_, base))) if !self.glob.contains('/') => {
                glob_match(self.glob.as_bytes(), base.as_bytes())
            }
            _ => false,
        }
    }
}

/// A function symbol of the ELF with what the rules can look at.
#[derive(Clone, Debug)]
pub struct FuncInfo {
    pub addr: u32,
    pub size: u32,
    pub name: String,
    pub section: String,
    pub file: Option<String>,
}

/// Default rules, modelled on SimBed's categories (kernel, handler, idle, timer, semaphore,
/// user) for Cairn's naming: exception handlers end in `_handler`; the kernel is `cairn_*`,
/// `cairn__*` and `arch_*` (or compiled from a `core/` or `arch/` folder); the board support
/// package is `board`; compiler and C library helpers are `lib`. Anything else is `user`.
pub const DEFAULT_RULES: &[(&str, &str)] = &[
    ("handler", "*_handler"),
    ("handler", "*_Handler"),
    ("handler", "*_isr"),
    ("idle", "arch_idle"),
    ("idle", "cairn_idle"),
    ("idle", "cairn_sleep_*"),
    ("timer", "*timer*"),
    ("semaphore", "*sem_*"),
    ("semaphore", "*semaphore*"),
    ("lib", "__*"),
    ("lib", "mem*"),
    ("lib", "str*"),
    ("kernel", "cairn_*"),
    ("kernel", "arch_*"),
    ("kernel", "board_*"),
    ("kernel", "file:*/core/*"),
    ("kernel", "file:*/arch/*"),
    ("board", "file:*/boards/*"),
    ("user", "*"),
];

pub fn default_rules() -> Vec<Rule> {
    DEFAULT_RULES.iter().filter_map(|(c, p)| Rule::parse(c, p).ok()).collect()
}

/// Category of `f` under `rules` (first match), or "user".
pub fn categorize<'a>(rules: &'a [Rule], f: &FuncInfo) -> &'a str {
    rules.iter().find(|r| r.matches(f)).map(|r| r.category.as_str()).unwrap_or("user")
}

/// Shell-style glob: `*` any run, `?` one byte, everything else literal.
pub fn glob_match(p: &[u8], t: &[u8]) -> bool {
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == b'?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == b'*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == b'*' {
        pi += 1;
    }
    pi == p.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match(b"*_handler", b"irq8_handler"));
        assert!(glob_match(b"cairn_*", b"cairn_send"));
        assert!(!glob_match(b"cairn_*", b"xcairn_send"));
        assert!(glob_match(b"a?c*", b"abcdef"));
        assert!(glob_match(b"*", b""));
        assert!(!glob_match(b"mem*", b"me"));
    }

    #[test]
    fn first_rule_wins() {
        let f = |n: &str| FuncInfo { addr: 0, size: 2, name: n.into(), section: ".text".into(), file: None };
        let rules = default_rules();
        assert_eq!(categorize(&rules, &f("pendsv_handler")), "handler");
        assert_eq!(categorize(&rules, &f("cairn_timer_set")), "timer");
        assert_eq!(categorize(&rules, &f("cairn_send")), "kernel");
        assert_eq!(categorize(&rules, &f("memcpy")), "lib");
        assert_eq!(categorize(&rules, &f("hello_task")), "user");
        assert!(Rule::parse("x", "bogus:y").is_err());
        let mut g = f("cairn_weird");
        g.name = "dispatch".into();
        g.file = Some("kernel/core/sched.c".into());
        assert_eq!(categorize(&rules, &g), "kernel", "file:*/core/* on the DWARF path");
        let r = Rule::parse("s", "file:sched.c").unwrap();
        assert_eq!(categorize(&[r], &g), "s", "base-name match");
    }
}
