//! The library's error type. Every variant renders as one line that names the file, line or
//! key at fault and what was expected; front ends print it and exit with status 2.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    /// A configuration or job error, already phrased as `FILE: key: what was expected`.
    #[error("{0}")]
    Config(String),
    /// A parse error at a line of an input file (trace, job file).
    #[error("{file}:{line}: {msg}")]
    Parse { file: String, line: u64, msg: String },
    /// An I/O error on a named file.
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// A request or a run that cannot be simulated as asked.
    #[error("{0}")]
    Invalid(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn config(file: &str, key: &str, msg: impl std::fmt::Display) -> Self {
        if key.is_empty() {
            Error::Config(format!("{file}: {msg}"))
        } else {
            Error::Config(format!("{file}: {key}: {msg}"))
        }
    }
    pub fn io(path: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}
