//! The library's error type. Every variant renders as one line that names the file, line or
//! key at fault and what was expected; front ends print it and exit with status 2.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    /// A configuration or job error, already phrased as `FILE: key: what was expected`.
    #[error("{0}")]
    Config(String),
    /// A bad value of a config or job key: `FILE[:LINE:COL]: KEY: what; expected WHAT`.
    /// Built without a position; [`Error::locate`] adds where the key was written.
    #[error("{file}{}: {key}: {msg}", pos.map_or(String::new(), |(l, c)| format!(":{l}:{c}")))]
    Key {
        file: String,
        pos: Option<(usize, usize)>,
        key: String,
        msg: String,
        /// Other keys the error is about: it is reported at the one the user wrote.
        also: Vec<String>,
    },
    /// A parse error at a line of an input file (trace, job file).
    #[error("{file}:{line}: {msg}")]
    Parse { file: String, line: u64, msg: String },
    /// An I/O error on a named file.
    #[error("{path}: {source}; expected a file that can be opened")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// A request or a run that cannot be simulated as asked.
    #[error("{0}")]
    Invalid(String),
    /// The run was stopped by [`crate::interrupt::interrupt`] (Ctrl-C in a front end).
    #[error("interrupted")]
    Interrupted,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Control characters (line breaks included) replaced by spaces: a message that quotes
/// untrusted bytes (a trace's line, a decoder's complaint about an edited file) stays one line.
pub fn one_line(s: String) -> String {
    if s.chars().any(char::is_control) {
        s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
    } else {
        s
    }
}

impl Error {
    pub fn config(file: &str, key: &str, msg: impl std::fmt::Display) -> Self {
        if key.is_empty() {
            Error::Config(format!("{file}: {msg}"))
        } else {
            Error::Key {
                file: file.to_string(),
                pos: None,
                key: crate::source::canonical_key(key),
                msg: msg.to_string(),
                also: Vec::new(),
            }
        }
    }

    /// A value error about several keys together (e.g. a reserve that the spare blocks
    /// cannot hold): reported at whichever of them the user wrote, `keys[0]` by default.
    pub fn config_keys(file: &str, keys: &[&str], msg: impl std::fmt::Display) -> Self {
        match Error::config(file, keys[0], msg) {
            Error::Key {
                file, pos, key, msg, ..
            } => Error::Key {
                file,
                pos,
                key,
                msg,
                also: keys[1..].iter().map(|k| crate::source::canonical_key(k)).collect(),
            },
            e => e,
        }
    }

    /// Say where a key error's key was written. `find(key)` gives the origin (the file, or
    /// `--set ...`, or `preset NAME`), the position, and a rank (lower = more specific); of
    /// the error's keys, the best-ranked one is reported. Other errors pass unchanged.
    pub fn locate(self, find: impl Fn(&str) -> Option<(String, Option<(usize, usize)>, u8)>) -> Self {
        match self {
            Error::Key {
                file,
                pos: None,
                key,
                msg,
                also,
            } => {
                let best = std::iter::once(&key)
                    .chain(also.iter())
                    .filter_map(|k| find(k).map(|f| (f, k)))
                    .min_by_key(|((_, _, rank), _)| *rank);
                match best {
                    Some(((file, pos, _), k)) => Error::Key {
                        file,
                        pos,
                        key: k.clone(),
                        msg,
                        also: Vec::new(),
                    },
                    None => Error::Key {
                        file,
                        pos: None,
                        key,
                        msg,
                        also,
                    },
                }
            }
            e => e,
        }
    }
    /// The message as front ends show it: [`one_line`] of its text, whatever a path or a
    /// file's bytes quoted in it hold (`-o $'a\nb'`, an edited snapshot's variant name).
    pub fn message(&self) -> String {
        one_line(self.to_string())
    }

    pub fn io(path: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}
