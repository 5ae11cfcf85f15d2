//! Finds, in the ELF's DWARF, where the current-task pointer lives and where a task control
//! block keeps its name: the variable's address and type, then member offsets and array
//! strides from the types as the RTOS was compiled, so a different configuration (name
//! length, member order, number of CPUs) needs no change here.

use super::spec::{RtosSpec, Step};
use crate::dwarf::Reader as R;
use gimli::{AttributeValue, UnitOffset};
use object::{Object, ObjectSection, ObjectSymbol};

/// How a task's name is stored in its control block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameKind {
    /// An inline char array of this many bytes.
    Inline(u32),
    /// A pointer to a NUL-terminated string.
    Pointer,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NameField {
    /// Byte offset of the member in the task control block.
    pub offset: u32,
    pub kind: NameKind,
}

/// An integer variable: where it is and how many bytes it has (1, 2 or 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flag {
    pub addr: u32,
    pub size: u32,
}

/// What the watch needs: the address of the current-task pointer, the name member, and the
/// variable that says whether the scheduler runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub addr: u32,
    pub name: Option<NameField>,
    pub running: Option<Flag>,
}

/// A type: (unit index, offset of its DIE in that unit).
type TypeRef = (usize, UnitOffset);

struct Info<'a> {
    dwarf: gimli::Dwarf<R<'a>>,
    units: Vec<gimli::Unit<R<'a>>>,
}

fn dwarf_err(e: gimli::Error) -> String {
    format!("malformed DWARF debug information ({e})")
}

/// Resolve `spec` against the ELF in `bytes`. Errors are one line.
pub fn resolve(bytes: &[u8], spec: &RtosSpec) -> Result<Layout, String> {
    let file = object::File::parse(bytes).map_err(|e| format!("not an ELF file ({e})"))?;
    let has_info = file.section_by_name(".debug_info").and_then(|s| s.data().ok()).is_some_and(|d| !d.is_empty());
    if !has_info {
        return Err("the ELF has no DWARF debug information (build it with -g, and do not strip it)".into());
    }
    let dwarf = crate::dwarf::load(&file).map_err(dwarf_err)?;
    let mut units = Vec::new();
    let mut headers = dwarf.units();
    while let Some(h) = headers.next().map_err(dwarf_err)? {
        units.push(dwarf.unit(h).map_err(dwarf_err)?);
    }
    let info = Info { dwarf, units };
    let (addr, ty) = info.place(&file, &spec.symbol, &spec.path)?;
    let what = path_text(&spec.symbol, &spec.path);
    let (ptr, tag) = info.strip(ty)?;
    if tag != gimli::DW_TAG_pointer_type {
        return Err(format!("'{what}' is not a pointer (it must point to the current task)"));
    }
    let running = match &spec.running {
        Some((sym, path)) => {
            let (addr, ty) = info.place(&file, sym, path)?;
            let what = path_text(sym, path);
            let (ty, tag) = info.strip(ty)?;
            let size = info.byte_size(ty)?.unwrap_or(0) as u32;
            let integer = matches!(tag, gimli::DW_TAG_base_type | gimli::DW_TAG_enumeration_type);
            if !integer || !matches!(size, 1 | 2 | 4) {
                return Err(format!("running: '{what}' is not an integer of 1, 2 or 4 bytes"));
            }
            Some(Flag { addr, size })
        }
        None => None,
    };
    let Some(name_path) = &spec.name else { return Ok(Layout { addr, name: None, running }) };
    let Some(tcb) = info.type_attr(ptr)? else {
        return Err(format!("'{what}' is a void pointer: the task type is unknown, so no name member can be found"));
    };
    let (noff, nty) = info.walk(tcb, name_path, &format!("(*{what})"))?;
    let ntext = path_text("", name_path);
    let (nty, tag) = info.strip(nty)?;
    let char_sized = |t: Option<TypeRef>| -> Result<bool, String> {
        let Some(t) = t else { return Ok(false) };
        let (t, _) = info.strip(t)?;
        Ok(info.byte_size(t)? == Some(1))
    };
    let kind = if tag == gimli::DW_TAG_array_type && char_sized(info.type_attr(nty)?)? {
        match info.dims(nty)?.as_slice() {
            [n] => NameKind::Inline(*n),
            _ => return Err(format!("name member '{ntext}' is not a one-dimensional char array")),
        }
    } else if tag == gimli::DW_TAG_pointer_type && char_sized(info.type_attr(nty)?)? {
        NameKind::Pointer
    } else {
        return Err(format!("name member '{ntext}' is neither a char array nor a char pointer"));
    };
    Ok(Layout { addr, name: Some(NameField { offset: noff, kind }), running })
}

fn path_text(symbol: &str, path: &[Step]) -> String {
    let mut s = symbol.to_string();
    for st in path {
        match st {
            Step::Member(m) if s.is_empty() => s.push_str(m),
            Step::Member(m) => {
                s.push('.');
                s.push_str(m)
            }
            Step::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

impl<'a> Info<'a> {
    /// Address and type of `symbol` followed by `path` (members and indexes inside it).
    fn place(&self, file: &object::File, symbol: &str, path: &[Step]) -> Result<(u32, TypeRef), String> {
        let symtab_addr =
            file.symbols().find(|s| s.name() == Ok(symbol) && s.is_definition()).map(|s| s.address() as u32);
        let Some((ty, dwarf_addr)) = self.variable(symbol)? else {
            return Err(match symtab_addr {
                Some(_) => format!("'{symbol}' has no debug information (was its file compiled with -g?)"),
                None => format!("no symbol '{symbol}' in the ELF"),
            });
        };
        let Some(base) = dwarf_addr.or(symtab_addr) else {
            return Err(format!("'{symbol}' has no address (is it only declared?)"));
        };
        let (off, ty) = self.walk(ty, path, symbol)?;
        Ok((base.wrapping_add(off), ty))
    }

    fn name_of(&self, u: usize, e: &gimli::DebuggingInformationEntry<R<'a>>) -> Result<Option<String>, String> {
        match e.attr_value(gimli::DW_AT_name).map_err(dwarf_err)? {
            Some(v) => {
                let s = self.dwarf.attr_string(&self.units[u], v).map_err(dwarf_err)?;
                Ok(Some(s.to_string_lossy().into_owned()))
            }
            None => Ok(None),
        }
    }

    /// A reference attribute as a type in some unit.
    fn reference(&self, u: usize, v: AttributeValue<R<'a>>) -> Option<TypeRef> {
        match v {
            AttributeValue::UnitRef(o) => Some((u, o)),
            AttributeValue::DebugInfoRef(o) => {
                self.units.iter().enumerate().find_map(|(i, unit)| o.to_unit_offset(&unit.header).map(|uo| (i, uo)))
            }
            _ => None,
        }
    }

    fn attr_ref(&self, t: TypeRef, at: gimli::DwAt) -> Result<Option<TypeRef>, String> {
        let e = self.units[t.0].entry(t.1).map_err(dwarf_err)?;
        Ok(e.attr_value(at).map_err(dwarf_err)?.and_then(|v| self.reference(t.0, v)))
    }

    fn type_attr(&self, t: TypeRef) -> Result<Option<TypeRef>, String> {
        self.attr_ref(t, gimli::DW_AT_type)
    }

    fn byte_size(&self, t: TypeRef) -> Result<Option<u64>, String> {
        let e = self.units[t.0].entry(t.1).map_err(dwarf_err)?;
        Ok(e.attr_value(gimli::DW_AT_byte_size).map_err(dwarf_err)?.and_then(|v| v.udata_value()))
    }

    /// The global variable `name`: its type and, when DWARF gives it, its address. Prefers
    /// the defining entry (with a location) over declarations.
    fn variable(&self, name: &str) -> Result<Option<(TypeRef, Option<u32>)>, String> {
        let mut found: Option<(TypeRef, Option<u32>)> = None;
        for (u, unit) in self.units.iter().enumerate() {
            let mut cursor = unit.entries();
            let mut depth = 0isize;
            while let Some((delta, e)) = cursor.next_dfs().map_err(dwarf_err)? {
                depth += delta;
                if depth != 1 || e.tag() != gimli::DW_TAG_variable {
                    continue;
                }
                let spec =
                    e.attr_value(gimli::DW_AT_specification).map_err(dwarf_err)?.and_then(|v| self.reference(u, v));
                let own_name = self.name_of(u, e)?;
                let named = match (&own_name, spec) {
                    (Some(n), _) => n == name,
                    (None, Some(s)) => {
                        let se = self.units[s.0].entry(s.1).map_err(dwarf_err)?;
                        self.name_of(s.0, &se)?.as_deref() == Some(name)
                    }
                    _ => false,
                };
                if !named {
                    continue;
                }
                let mut ty = e.attr_value(gimli::DW_AT_type).map_err(dwarf_err)?.and_then(|v| self.reference(u, v));
                if ty.is_none() {
                    if let Some(s) = spec {
                        ty = self.type_attr(s)?;
                    }
                }
                let Some(ty) = ty else { continue };
                let addr = match e.attr_value(gimli::DW_AT_location).map_err(dwarf_err)? {
                    Some(AttributeValue::Exprloc(x)) => {
                        let mut ops = x.operations(unit.encoding());
                        match ops.next() {
                            Ok(Some(gimli::Operation::Address { address })) => Some(address as u32),
                            _ => None,
                        }
                    }
                    _ => None,
                };
                if addr.is_some() {
                    return Ok(Some((ty, addr)));
                }
                found.get_or_insert((ty, None));
            }
        }
        Ok(found)
    }

    /// Skip typedefs and qualifiers; a struct that is only declared here is replaced by its
    /// definition from another unit. Returns the type and its tag.
    fn strip(&self, mut t: TypeRef) -> Result<(TypeRef, gimli::DwTag), String> {
        for _ in 0..64 {
            let e = self.units[t.0].entry(t.1).map_err(dwarf_err)?;
            match e.tag() {
                gimli::DW_TAG_typedef
                | gimli::DW_TAG_const_type
                | gimli::DW_TAG_volatile_type
                | gimli::DW_TAG_restrict_type
                | gimli::DW_TAG_atomic_type => match self.type_attr(t)? {
                    Some(n) => t = n,
                    None => return Ok((t, gimli::DW_TAG_base_type)), // void
                },
                tag @ (gimli::DW_TAG_structure_type | gimli::DW_TAG_union_type) => {
                    let decl = matches!(e.attr_value(gimli::DW_AT_declaration), Ok(Some(AttributeValue::Flag(true))));
                    if decl {
                        if let Some(name) = self.name_of(t.0, &e)? {
                            if let Some(d) = self.definition(tag, &name)? {
                                return Ok((d, tag));
                            }
                        }
                    }
                    return Ok((t, tag));
                }
                tag => return Ok((t, tag)),
            }
        }
        Err("DWARF type chain too long".into())
    }

    fn definition(&self, tag: gimli::DwTag, name: &str) -> Result<Option<TypeRef>, String> {
        for (u, unit) in self.units.iter().enumerate() {
            let mut cursor = unit.entries();
            while let Some((_, e)) = cursor.next_dfs().map_err(dwarf_err)? {
                if e.tag() == tag
                    && e.attr_value(gimli::DW_AT_declaration).map_err(dwarf_err)?.is_none()
                    && self.name_of(u, e)?.as_deref() == Some(name)
                {
                    return Ok(Some((u, e.offset())));
                }
            }
        }
        Ok(None)
    }

    /// Dimensions of an array type (element counts).
    fn dims(&self, t: TypeRef) -> Result<Vec<u32>, String> {
        let unit = &self.units[t.0];
        let mut tree = unit.entries_tree(Some(t.1)).map_err(dwarf_err)?;
        let root = tree.root().map_err(dwarf_err)?;
        let mut kids = root.children();
        let mut out = Vec::new();
        while let Some(c) = kids.next().map_err(dwarf_err)? {
            let e = c.entry();
            if e.tag() != gimli::DW_TAG_subrange_type {
                continue;
            }
            let count = e.attr_value(gimli::DW_AT_count).map_err(dwarf_err)?.and_then(|v| v.udata_value());
            let upper = e.attr_value(gimli::DW_AT_upper_bound).map_err(dwarf_err)?.and_then(|v| v.udata_value());
            // A flexible or unsized array counts as empty.
            out.push(count.or(upper.map(|u| u + 1)).unwrap_or(0).min(u32::MAX as u64) as u32);
        }
        Ok(out)
    }

    /// Follow members and indexes from type `t`; returns the byte offset and the final type.
    /// `what` names the starting point in messages.
    fn walk(&self, mut t: TypeRef, path: &[Step], what: &str) -> Result<(u32, TypeRef), String> {
        let mut off = 0u32;
        let mut here = what.to_string();
        for step in path {
            let (st, tag) = self.strip(t)?;
            match step {
                Step::Member(m) => {
                    if tag != gimli::DW_TAG_structure_type && tag != gimli::DW_TAG_union_type {
                        let why = if tag == gimli::DW_TAG_pointer_type {
                            " (a pointer: the path cannot follow pointers)"
                        } else {
                            ""
                        };
                        return Err(format!("'{here}' is not a struct, so it has no member '{m}'{why}"));
                    }
                    let (moff, mty) = self.member(st, m)?.ok_or_else(|| {
                        let sname = self.units[st.0]
                            .entry(st.1)
                            .ok()
                            .and_then(|e| self.name_of(st.0, &e).ok().flatten())
                            .map(|n| format!("struct {n}"))
                            .unwrap_or_else(|| "its struct".into());
                        format!("'{here}' ({sname}) has no member '{m}'")
                    })?;
                    off = off.wrapping_add(moff);
                    t = mty;
                    here = format!("{here}.{m}");
                }
                Step::Index(i) => {
                    if tag != gimli::DW_TAG_array_type {
                        return Err(format!("'{here}' is not an array, so it cannot be indexed"));
                    }
                    let dims = self.dims(st)?;
                    let [n] = dims.as_slice() else {
                        return Err(format!("'{here}' is a multi-dimensional array (not supported)"));
                    };
                    if i >= n {
                        return Err(format!("index {i} is out of bounds: '{here}' has {n} elements"));
                    }
                    let elem = self.type_attr(st)?.ok_or_else(|| format!("'{here}' has no element type"))?;
                    let size = self
                        .byte_size(self.strip(elem)?.0)?
                        .ok_or_else(|| format!("the elements of '{here}' have no size in the DWARF"))?;
                    off = off.wrapping_add((size as u32).wrapping_mul(*i));
                    t = elem;
                    here = format!("{here}[{i}]");
                }
            }
        }
        Ok((off, t))
    }

    /// The member `name` of struct `t`: (offset, type). Anonymous struct/union members are
    /// searched too (C11), adding their offset.
    fn member(&self, t: TypeRef, name: &str) -> Result<Option<(u32, TypeRef)>, String> {
        let unit = &self.units[t.0];
        let mut tree = unit.entries_tree(Some(t.1)).map_err(dwarf_err)?;
        let root = tree.root().map_err(dwarf_err)?;
        let mut kids = root.children();
        let mut anonymous = Vec::new();
        while let Some(c) = kids.next().map_err(dwarf_err)? {
            let e = c.entry();
            if e.tag() != gimli::DW_TAG_member {
                continue;
            }
            let off = match e.attr_value(gimli::DW_AT_data_member_location).map_err(dwarf_err)? {
                None => 0,
                Some(AttributeValue::Exprloc(x)) => match x.operations(unit.encoding()).next() {
                    Ok(Some(gimli::Operation::PlusConstant { value })) => value as u32,
                    _ => return Err("unsupported DWARF member location".into()),
                },
                Some(v) => v.udata_value().ok_or("unsupported DWARF member location")? as u32,
            };
            let ty = e.attr_value(gimli::DW_AT_type).map_err(dwarf_err)?.and_then(|v| self.reference(t.0, v));
            match self.name_of(t.0, e)? {
                Some(n) if n == name => return Ok(ty.map(|ty| (off, ty))),
                None => anonymous.extend(ty.map(|ty| (off, ty))),
                _ => {}
            }
        }
        for (off, ty) in anonymous {
            let (st, tag) = self.strip(ty)?;
            if tag == gimli::DW_TAG_structure_type || tag == gimli::DW_TAG_union_type {
                if let Some((o, mt)) = self.member(st, name)? {
                    return Ok(Some((off.wrapping_add(o), mt)));
                }
            }
        }
        Ok(None)
    }
}
