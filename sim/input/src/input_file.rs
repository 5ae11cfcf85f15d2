//! Reading files the user names (firmware ELF, scenario, `--io`, energy profile, ADC
//! WAV/CSV sources): every such read goes through [`read_input`], which refuses anything
//! that is not a regular file of bounded size before reading it. Without this, `/dev/zero`
//! or a 200 MB file would be read into memory whole, and a FIFO would block forever.
//!
//! Race between the check and the read: the path's metadata is checked first (so a FIFO
//! is refused without opening it, since opening one for reading blocks until a writer
//! comes), then the file is opened non-blocking and the checks are repeated on the open
//! descriptor, which is what is read. A path swapped for a FIFO or a device in between is
//! still refused, the open cannot block, and a file that grows in between is read at most
//! one byte past the limit and refused.

use std::io::Read;
use std::path::Path;

/// Largest firmware ELF or ADC stimulus (WAV/CSV) file read.
pub const DATA_LIMIT: u64 = 64 << 20;
/// Largest TOML file read (scenario, `--io`, energy profile).
pub const TEXT_LIMIT: u64 = 4 << 20;

/// O_NONBLOCK on Linux (its value on the architectures this runs on): opening a FIFO
/// with it returns at once instead of waiting for a writer.
#[cfg(target_os = "linux")]
const O_NONBLOCK: i32 = 0o4000;

fn limit_text(limit: u64) -> String {
    if limit.is_multiple_of(1 << 20) {
        format!("{} MiB", limit >> 20)
    } else {
        format!("{limit} bytes")
    }
}

/// Why `meta` is not acceptable input, if it is not.
fn refusal(meta: &std::fs::Metadata, limit: u64) -> Option<String> {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    let kind = if t.is_file() {
        return (meta.len() > limit)
            .then(|| format!("{} bytes, over the {} limit for this kind of file", meta.len(), limit_text(limit)));
    } else if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "a special file"
    };
    Some(format!("not a regular file ({kind})"))
}

/// The whole contents of `path`, at most `limit` bytes. The error is one line:
/// `cannot read PATH: REASON`.
pub fn read_input(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    let fail = |why: String| format!("cannot read {}: {why}", path.display());
    let meta = std::fs::metadata(path).map_err(|e| fail(e.to_string()))?;
    if let Some(why) = refusal(&meta, limit) {
        return Err(fail(why));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(target_os = "linux")]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, O_NONBLOCK);
    let file = options.open(path).map_err(|e| fail(e.to_string()))?;
    let meta = file.metadata().map_err(|e| fail(e.to_string()))?;
    if let Some(why) = refusal(&meta, limit) {
        return Err(fail(why));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit + 1).read_to_end(&mut bytes).map_err(|e| fail(e.to_string()))?;
    if bytes.len() as u64 > limit {
        return Err(fail(format!("grew over the {} limit for this kind of file while read", limit_text(limit))));
    }
    Ok(bytes)
}

/// A text input (TOML, CSV): [`read_input`], then UTF-8.
pub fn read_input_text(path: &Path, limit: u64) -> Result<String, String> {
    let bytes = read_input(path, limit)?;
    String::from_utf8(bytes).map_err(|_| format!("cannot read {}: not UTF-8 text", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_devices_directories_and_large_files() {
        let e = read_input(Path::new("/dev/zero"), DATA_LIMIT).unwrap_err();
        assert_eq!(e, "cannot read /dev/zero: not a regular file (a character device)");
        assert!(read_input(Path::new("/"), DATA_LIMIT).unwrap_err().contains("a directory"));
        let dir = std::env::temp_dir().join(format!("cairn-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let big = dir.join("big");
        std::fs::File::create(&big).unwrap().set_len(TEXT_LIMIT + 1).unwrap();
        let e = read_input(&big, TEXT_LIMIT).unwrap_err();
        assert!(e.ends_with("4194305 bytes, over the 4 MiB limit for this kind of file"), "{e}");
        assert_eq!(read_input(&big, DATA_LIMIT).unwrap().len() as u64, TEXT_LIMIT + 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
