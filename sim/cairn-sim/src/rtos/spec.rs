//! What `--rtos` and the scenario's `rtos` key say: a built-in RTOS name, or the generic form
//! `current=SYMBOL[.member|[index]]...[,name=MEMBER[.member]...][,running=SYMBOL...]` naming
//! the global that holds the current task's control block, optionally the member of that block
//! holding its name, and optionally a variable that is zero until the scheduler runs. Only the syntax is checked here; the names are resolved against the ELF's DWARF
//! (`resolve.rs`).

/// One step of a path: a struct member or an array index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Member(String),
    Index(u32),
}

/// The "current task" variable and the name member of the task control block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RtosSpec {
    /// What the user wrote (or the built-in's name), for messages.
    pub label: String,
    /// The global variable holding the current task pointer.
    pub symbol: String,
    /// Members and indexes from that variable to the pointer itself (inline: no pointer is
    /// followed, so the pointer has a fixed address to watch).
    pub path: Vec<Step>,
    /// Members from the task control block to its name (a char array or a `char *`).
    pub name: Option<Vec<Step>>,
    /// A variable (and path inside it) that is zero while the scheduler is not running: the
    /// pointer is not believed then (FreeRTOS sets it before starting the scheduler).
    pub running: Option<(String, Vec<Step>)>,
}

/// The built-in descriptions (docs/rtos.md): (name, current, name member, running flag).
pub const BUILTINS: &[(&str, &str, &str, Option<&str>)] = &[
    ("freertos", "pxCurrentTCB", "pcTaskName", Some("xSchedulerRunning")),
    ("zephyr", "_kernel.cpus[0].current", "name", None),
    ("riot", "sched_active_thread", "name", None),
];

const KEYS: &str = "keys: current, name, running";

impl RtosSpec {
    /// A built-in name or the generic `current=...,name=...` form.
    pub fn parse(text: &str) -> Result<RtosSpec, String> {
        let text = text.trim();
        if let Some((name, cur, member, running)) = BUILTINS.iter().find(|b| b.0 == text) {
            return RtosSpec::generic(name, cur, Some(member), *running);
        }
        if !text.contains('=') {
            let known: Vec<&str> = BUILTINS.iter().map(|b| b.0).collect();
            return Err(format!(
                "unknown RTOS '{text}' (known: {}; or current=SYMBOL[.member...][,name=MEMBER])",
                known.join(", ")
            ));
        }
        let (mut current, mut name, mut running) = (None, None, None);
        for item in text.split(',') {
            let Some((k, v)) = item.split_once('=') else {
                return Err(format!("'{}' is not KEY=VALUE ({KEYS})", item.trim()));
            };
            let slot = match k.trim() {
                "current" => &mut current,
                "name" => &mut name,
                "running" => &mut running,
                other => return Err(format!("unknown key '{other}' ({KEYS})")),
            };
            if slot.replace(v.trim()).is_some() {
                return Err(format!("'{}' given twice", k.trim()));
            }
        }
        let Some(current) = current else { return Err("missing current=SYMBOL".into()) };
        RtosSpec::generic(text, current, name, running)
    }

    /// The generic form from its parts (also the scenario's `[rtos]` table).
    pub fn generic(label: &str, current: &str, name: Option<&str>, running: Option<&str>) -> Result<RtosSpec, String> {
        let steps = parse_path(current).map_err(|e| format!("current: {e}"))?;
        let Some((Step::Member(symbol), path)) = steps.split_first() else {
            return Err(format!("current: '{current}' must start with a symbol name"));
        };
        let name = match name {
            Some(n) => {
                let p = parse_path(n).map_err(|e| format!("name: {e}"))?;
                if !matches!(p.first(), Some(Step::Member(_))) {
                    return Err(format!("name: '{n}' must start with a member name"));
                }
                Some(p)
            }
            None => None,
        };
        let running = match running {
            Some(r) => match parse_path(r).map_err(|e| format!("running: {e}"))?.split_first() {
                Some((Step::Member(sym), rest)) => Some((sym.clone(), rest.to_vec())),
                _ => return Err(format!("running: '{r}' must start with a symbol name")),
            },
            None => None,
        };
        Ok(RtosSpec { label: label.to_string(), symbol: symbol.clone(), path: path.to_vec(), name, running })
    }
}

/// `a.b[2].c` into steps. Identifiers are C identifiers; indexes are decimal.
pub fn parse_path(text: &str) -> Result<Vec<Step>, String> {
    let bad = |why: &str| format!("'{text}': {why}");
    let mut steps = Vec::new();
    let mut rest = text.trim();
    if rest.is_empty() {
        return Err("empty path".into());
    }
    let mut need_ident = true;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('[') {
            let Some((n, after)) = r.split_once(']') else { return Err(bad("missing ']'")) };
            let i = n.trim().parse::<u32>().map_err(|_| bad("an index must be a decimal number"))?;
            if steps.is_empty() {
                return Err(bad("an index needs something before it"));
            }
            steps.push(Step::Index(i));
            rest = after;
            need_ident = false;
            continue;
        }
        if !need_ident {
            let Some(r) = rest.strip_prefix('.') else { return Err(bad("expected '.' or '['")) };
            rest = r;
        }
        let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
        let ident = &rest[..end];
        if ident.is_empty() || ident.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(bad("expected an identifier"));
        }
        steps.push(Step::Member(ident.to_string()));
        rest = &rest[end..];
        need_ident = false;
    }
    Ok(steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &str) -> Step {
        Step::Member(s.into())
    }

    #[test]
    fn builtins_and_generic() {
        let z = RtosSpec::parse("zephyr").unwrap();
        assert_eq!(z.symbol, "_kernel");
        assert_eq!(z.path, vec![m("cpus"), Step::Index(0), m("current")]);
        assert_eq!(z.name, Some(vec![m("name")]));
        let g = RtosSpec::parse(" current = k.cur , name=info.label ").unwrap();
        assert_eq!((g.symbol.as_str(), g.path.clone()), ("k", vec![m("cur")]));
        assert_eq!(g.name, Some(vec![m("info"), m("label")]));
        assert_eq!(RtosSpec::parse("current=pxCurrentTCB").unwrap().name, None);
        assert_eq!(RtosSpec::parse("freertos").unwrap().running, Some(("xSchedulerRunning".into(), vec![])));
        let r = RtosSpec::parse("current=p,running=k.up[1]").unwrap();
        assert_eq!(r.running, Some(("k".into(), vec![m("up"), Step::Index(1)])));
    }

    #[test]
    fn syntax_errors_are_one_line() {
        for (text, want) in [
            ("ucos", "unknown RTOS 'ucos'"),
            ("current=", "current: empty path"),
            ("name=x", "missing current=SYMBOL"),
            ("current=a,current=b", "'current' given twice"),
            ("current=a,nom=b", "unknown key 'nom'"),
            ("current=a,b", "'b' is not KEY=VALUE"),
            ("current=a[x]", "index must be a decimal"),
            ("current=a[1", "missing ']'"),
            ("current=a..b", "expected an identifier"),
            ("current=[0]", "needs something before it"),
            ("current=1a", "expected an identifier"),
            ("current=a b", "expected '.' or '['"),
            ("current=a,name=[2]", "name: "),
            ("current=a,running=", "running: empty path"),
            ("current=a,running=[1]", "running: "),
        ] {
            let e = RtosSpec::parse(text).unwrap_err();
            assert!(e.contains(want), "{text}: {e}");
            assert!(!e.contains('\n'));
        }
    }
}
