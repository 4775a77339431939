//! Every file the CLI reads (a model's or drafter's config.json, a Hugging Face cache's `refs/main`, a vLLM log) is
//! read here: regular files only (a FIFO, a device, a socket or a directory is refused by its metadata before it is
//! opened, so nothing blocks or streams without end), at most a cap of bytes (checked against the file's size before
//! reading and applied while reading, so a file that grows or lies about its size stays bounded), and every problem
//! is worded for the user (a missing file, a permission problem, the cap and its name).

use std::fmt;
use std::io::Read;
use std::path::Path;

/// Why a file could not be read (the caller names the file).
#[derive(Debug)]
pub enum Problem {
    /// The path (or a folder on it) does not exist.
    Missing,
    /// The path or a folder on it is not readable by this user.
    PermissionDenied,
    /// Not a regular file: `kind` says what it is ("a FIFO", "a character device", …); `cap` what qpath would read.
    NotRegular { kind: &'static str, cap: Option<Cap> },
    /// More bytes than `cap` (`bytes`: the file's size, when known before reading).
    TooBig { bytes: Option<u64>, cap: Cap },
    /// Not UTF-8 text: the first bad byte's offset.
    NotUtf8 { at: usize },
    /// Any other failure of the system (a symlink loop, an I/O error).
    Io(std::io::Error),
}

/// A byte cap and the name of the constant that sets it (said in messages, so a user can find it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cap {
    pub bytes: u64,
    pub name: &'static str,
}

/// The cap on a model's (or drafter's) config.json: the core's.
pub const CONFIG_JSON: Cap = Cap {
    bytes: qpath_core::serve::limits::MAX_CONFIG_JSON_BYTES as u64,
    name: "qpath_core::serve::limits::MAX_CONFIG_JSON_BYTES",
};

/// The cap on a Hugging Face cache's `refs/main`: it holds a 40-hex commit hash (and maybe a newline).
pub const REF: Cap = Cap {
    bytes: 1024,
    name: "qpath_cli::read::REF",
};

impl fmt::Display for Cap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.bytes;
        if b >= 1 << 20 && b % (1 << 20) == 0 {
            write!(f, "{} MiB", b >> 20)?;
        } else if b >= 1 << 10 && b % (1 << 10) == 0 {
            write!(f, "{} KiB", b >> 10)?;
        } else {
            write!(f, "{b} bytes")?;
        }
        write!(f, " ({})", self.name)
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Missing => write!(f, "no such file"),
            Problem::PermissionDenied => write!(f, "permission denied (qpath cannot read it as this user)"),
            Problem::NotRegular { kind, cap: Some(cap) } => {
                write!(
                    f,
                    "{kind}, not a regular file: qpath reads only regular files, of at most {cap}"
                )
            }
            Problem::NotRegular { kind, cap: None } => {
                write!(f, "{kind}, not a regular file: qpath reads only regular files")
            }
            Problem::TooBig { bytes: Some(n), cap } => write!(f, "{n} bytes, more than qpath's cap of {cap}"),
            Problem::TooBig { bytes: None, cap } => write!(f, "more than qpath's cap of {cap}"),
            Problem::NotUtf8 { at } => write!(f, "not UTF-8 text (an invalid byte at offset {at})"),
            Problem::Io(e) => write!(f, "cannot read it: {e}"),
        }
    }
}

impl Problem {
    /// A failure of the system, in the user's words where one applies.
    pub fn of_io(e: std::io::Error) -> Problem {
        match e.kind() {
            std::io::ErrorKind::NotFound => Problem::Missing,
            std::io::ErrorKind::PermissionDenied => Problem::PermissionDenied,
            _ => Problem::Io(e),
        }
    }
}

/// What a file that is not a regular one is.
fn kind_of(t: std::fs::FileType) -> &'static str {
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "not a file"
}

/// Refuses what is not a regular file (following symlinks), by its metadata, before anything opens it.
pub fn check_regular(path: &Path, cap: Option<Cap>) -> Result<std::fs::Metadata, Problem> {
    let meta = std::fs::metadata(path).map_err(Problem::of_io)?;
    if !meta.is_file() {
        return Err(Problem::NotRegular {
            kind: kind_of(meta.file_type()),
            cap,
        });
    }
    Ok(meta)
}

/// The bytes of the regular file `path`, at most `limit`, and whether it has more. The file type is checked before
/// opening and again on the opened file (a path swapped between the two is still refused).
pub fn read_prefix(path: &Path, limit: u64, cap: Option<Cap>) -> Result<(Vec<u8>, bool), Problem> {
    let meta = check_regular(path, cap)?;
    let file = std::fs::File::open(path).map_err(Problem::of_io)?;
    let opened = file.metadata().map_err(Problem::of_io)?;
    if !opened.is_file() {
        return Err(Problem::NotRegular {
            kind: kind_of(opened.file_type()),
            cap,
        });
    }
    let mut data = Vec::with_capacity(meta.len().min(limit) as usize + 1);
    file.take(limit.saturating_add(1))
        .read_to_end(&mut data)
        .map_err(Problem::of_io)?;
    let more = data.len() as u64 > limit;
    data.truncate(limit as usize);
    Ok((data, more))
}

/// The text of the regular file `path`, refused when it has more than `cap` bytes (by its size before reading, and
/// while reading) or is not UTF-8.
pub fn read_text(path: &Path, cap: Cap) -> Result<String, Problem> {
    let meta = check_regular(path, Some(cap))?;
    if meta.len() > cap.bytes {
        return Err(Problem::TooBig {
            bytes: Some(meta.len()),
            cap,
        });
    }
    let (data, more) = read_prefix(path, cap.bytes, Some(cap))?;
    if more {
        return Err(Problem::TooBig { bytes: None, cap });
    }
    String::from_utf8(data).map_err(|e| Problem::NotUtf8 {
        at: e.utf8_error().valid_up_to(),
    })
}

/// `path`'s metadata when it exists: `Ok(None)` when it (or a folder on its way) does not, a [`Problem`] when it
/// cannot be looked at (a folder on its way is unreadable, a symlink loop).
pub fn exists(path: &Path) -> Result<Option<std::fs::Metadata>, Problem> {
    match std::fs::metadata(path) {
        Ok(m) => Ok(Some(m)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        // A file where a folder is expected on the way (`a/config.json` with `a` a file): not there.
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => Ok(None),
        Err(e) => Err(Problem::of_io(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problems_are_worded_for_the_user() {
        let denied = Problem::of_io(std::io::Error::from(std::io::ErrorKind::PermissionDenied));
        assert_eq!(denied.to_string(), "permission denied (qpath cannot read it as this user)");
        assert_eq!(
            Problem::of_io(std::io::Error::from(std::io::ErrorKind::NotFound)).to_string(),
            "no such file"
        );
        assert_eq!(
            CONFIG_JSON.to_string(),
            "16 MiB (qpath_core::serve::limits::MAX_CONFIG_JSON_BYTES)"
        );
        assert_eq!(REF.to_string(), "1 KiB (qpath_cli::read::REF)");
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_refused_before_reading_and_the_cap_is_named() {
        let e = read_text(Path::new("/dev/zero"), CONFIG_JSON).unwrap_err().to_string();
        assert_eq!(
            e,
            "a character device, not a regular file: qpath reads only regular files, of at most 16 MiB \
             (qpath_core::serve::limits::MAX_CONFIG_JSON_BYTES)"
        );
        assert_eq!(
            read_text(Path::new("/"), CONFIG_JSON).unwrap_err().to_string(),
            "a directory, not a regular file: qpath reads only regular files, of at most 16 MiB \
             (qpath_core::serve::limits::MAX_CONFIG_JSON_BYTES)"
        );
    }
}
