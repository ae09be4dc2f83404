//! Reading files of the plans directory (and the plan file) without ever blocking.
//!
//! A FIFO would make a plain `open` wait for a writer forever and a device such as
//! `/dev/zero` never ends, so the type is checked before opening, the open does not wait
//! (`O_NONBLOCK`), and the type is checked again on the descriptor in case the entry was
//! swapped in between. Anything but a regular file is an immediate [`ReadError::NotRegular`].

use std::fs::{File, Metadata};
use std::io::Read;
use std::path::Path;

/// Why a plan file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Opening or reading failed (including: it does not exist).
    #[error("cannot be read ({0})")]
    Io(#[from] std::io::Error),
    /// It is a FIFO, socket, device or directory: never opened for reading.
    #[error("is {0}, not a regular file")]
    NotRegular(&'static str),
    /// The bytes are not UTF-8 text.
    #[error("is not valid UTF-8")]
    NotUtf8,
}

impl ReadError {
    /// True when the file does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, Self::Io(e) if e.kind() == std::io::ErrorKind::NotFound)
    }
}

/// What a non-regular file is, in words (`None` for a regular file).
pub fn special_kind(meta: &Metadata) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    Some(if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a named pipe (FIFO)"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else {
        "a special file"
    })
}

/// Open the regular file `path` (following symlinks) for reading without blocking.
pub fn open(path: &Path) -> Result<File, ReadError> {
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(kind) = special_kind(&std::fs::metadata(path)?) {
        return Err(ReadError::NotRegular(kind));
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits() | nix::fcntl::OFlag::O_NOCTTY.bits())
        .open(path)?;
    if let Some(kind) = special_kind(&file.metadata()?) {
        return Err(ReadError::NotRegular(kind));
    }
    Ok(file)
}

/// The whole content of the regular file `path` (see [`open`]).
pub fn read(path: &Path) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::new();
    open(path)?.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The whole content of the regular file `path` as UTF-8 text.
pub fn read_to_string(path: &Path) -> Result<String, ReadError> {
    String::from_utf8(read(path)?).map_err(|_| ReadError::NotUtf8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifos_sockets_devices_and_directories_are_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo.md");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let socket = dir.path().join("sock.md");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let zero = dir.path().join("zero.md");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        for (path, kind) in [
            (&fifo, "a named pipe (FIFO)"),
            (&socket, "a socket"),
            (&zero, "a device"),
            (&dir.path().to_path_buf(), "a directory"),
        ] {
            let err = read_to_string(path).unwrap_err();
            assert!(
                matches!(err, ReadError::NotRegular(k) if k == kind),
                "{}: {err}",
                path.display()
            );
        }
        assert_eq!(
            read_to_string(&fifo).unwrap_err().to_string(),
            "is a named pipe (FIFO), not a regular file"
        );
    }

    #[test]
    fn regular_files_read_and_missing_ones_say_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.md");
        std::fs::write(&path, "# Plan\n").unwrap();
        assert_eq!(read_to_string(&path).unwrap(), "# Plan\n");
        assert!(
            read_to_string(&dir.path().join("gone.md"))
                .unwrap_err()
                .is_not_found()
        );
        std::fs::write(&path, [0xff, 0xfe]).unwrap();
        assert!(matches!(read_to_string(&path), Err(ReadError::NotUtf8)));
    }
}
