//! Replays the fuzzing seed corpora (`sim/fuzz/seeds/*/`) and every input a fuzzer once
//! crashed on (`sim/fuzz/regressions/`) through the same harnesses the cargo-fuzz targets
//! use, on stable Rust, so `make test` keeps those crashes fixed. Each file goes through
//! both harnesses: neither may panic on any input.

#[path = "../../fuzz/src/lib.rs"]
#[allow(dead_code)]
mod harness;

use cairn_sim::machine::Stop;
use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

/// Regular files under `dir`, recursively, sorted; README files are documentation.
fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(inputs(&p));
        } else if !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("README")) {
            out.push(p);
        }
    }
    out.sort();
    out
}

fn replay(files: &[PathBuf]) {
    for f in files {
        let data = std::fs::read(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        if std::panic::catch_unwind(|| harness::elf_load(&data)).is_err() {
            panic!("elf_load panicked on {}", f.display());
        }
        if std::panic::catch_unwind(|| harness::decode_exec(&data)).is_err() {
            panic!("decode_exec panicked on {}", f.display());
        }
        if std::panic::catch_unwind(|| harness::config_files(&data)).is_err() {
            panic!("config_files panicked on {}", f.display());
        }
    }
}

#[test]
fn seeds_do_not_panic() {
    let files = inputs(&fuzz_dir().join("seeds"));
    assert!(files.len() >= 2, "no seed corpora under {}", fuzz_dir().join("seeds").display());
    replay(&files);
}

#[test]
fn regressions_do_not_panic() {
    replay(&inputs(&fuzz_dir().join("regressions")));
}

/// The harnesses do what they claim: real firmware loads and runs, and code placed by
/// `decode_exec` executes (a semihosting exit with status 0).
#[test]
fn harnesses_run_the_code() {
    let seeds = fuzz_dir().join("seeds");
    let demo = std::fs::read(seeds.join("elf_load/demo.elf")).expect("demo.elf seed");
    assert!(harness::elf_load(&demo).is_some(), "the demo firmware seed does not load");
    assert_eq!(harness::elf_load(b"not an ELF file"), None);
    let exit = std::fs::read(seeds.join("decode_exec/semihost-exit.bin")).expect("semihost-exit seed");
    assert_eq!(harness::decode_exec(&exit), Stop::Exit(0));
    // Nothing but register seeds: the code is all zeros (`movs r0, r0`), so the run ends
    // on the instruction limit.
    assert_eq!(harness::decode_exec(&[0u8; 64]), Stop::Limit);
    let board = std::fs::read(seeds.join("config_files/mps2-an385.toml")).expect("board seed");
    assert_eq!(harness::config_files(&board), (true, false));
    assert_eq!(harness::config_files(b"[bus]\nslot = \"1us\"\n[[processor]]\nname = \"a\""), (false, false));
}
