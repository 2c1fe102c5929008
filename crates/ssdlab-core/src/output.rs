//! Files written whole or not at all, and the engine's build identity.
//!
//! Every file the project writes (run results, experiment folders, plots, fio logs, converted
//! traces, profiles) goes through [`AtomicFile`]: the bytes go to a temporary file beside the
//! target (`.NAME.XXXXXX.tmp`, same directory, so same file system), which is synced and renamed
//! over the target only once complete. A failed write, an error or an interrupt drops the
//! temporary, which removes it: no partial file and no temporary is left behind.
//!
//! A target that already exists and is not a regular file (`/dev/null`, `/dev/stdout`, a
//! named pipe, a terminal) is written in place: it is no file to keep whole, and renaming over
//! it would replace a device node with a file. A symbolic link to a regular file keeps its
//! link: the temporary goes beside the file it points to, which the rename replaces.

use crate::{Error, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The engine's build: its version and a hash of its source, presets and lock file (computed
/// by `build.rs`), e.g. `0.1.0+3f2a…`. Results cached under one build are not reused by another.
pub const BUILD_ID: &str = concat!(env!("CARGO_PKG_VERSION"), "+", env!("SSDLAB_SOURCE_HASH"));

/// A file being written: a temporary beside `path` until [`AtomicFile::commit`] (or, for a
/// target that is not a regular file, the target itself).
pub struct AtomicFile {
    out: Out,
    path: PathBuf,
}

enum Out {
    /// The temporary, renamed over `target` on commit.
    Temporary { tmp: Tracked, target: PathBuf },
    /// An existing device, pipe or terminal, written as it is.
    InPlace(std::fs::File),
}

/// The temporaries being written, by path. A second interrupt ends the process at once, with
/// no unwinding to drop them: it removes them with [`remove_temporaries`] first.
static LIVE: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

fn live() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// A temporary known to [`LIVE`] until it is renamed or dropped (and so removed).
struct Tracked(Option<tempfile::NamedTempFile>);

impl Tracked {
    fn new(tmp: tempfile::NamedTempFile) -> Tracked {
        live().push(tmp.path().to_path_buf());
        Tracked(Some(tmp))
    }
    fn file(&self) -> &std::fs::File {
        self.0.as_ref().expect("a temporary until renamed").as_file()
    }
    fn forget(&self) {
        if let Some(t) = &self.0 {
            live().retain(|p| p != t.path());
        }
    }
    /// Rename it over `target`.
    fn persist(mut self, target: &Path) -> std::result::Result<(), tempfile::PersistError> {
        self.forget();
        self.0
            .take()
            .expect("a temporary until renamed")
            .persist(target)
            .map(drop)
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.forget();
    }
}

/// Remove every temporary still being written (the process is about to end without dropping
/// them): how many were removed.
pub fn remove_temporaries() -> usize {
    remove_temporaries_where(|_| true)
}

/// [`remove_temporaries`] of those whose path `pick` picks.
fn remove_temporaries_where(pick: impl Fn(&Path) -> bool) -> usize {
    let mut live = live();
    let (gone, kept): (Vec<PathBuf>, Vec<PathBuf>) = live.drain(..).partition(|p| pick(p));
    *live = kept;
    gone.iter().filter(|p| std::fs::remove_file(p).is_ok()).count()
}

/// Opens of a device, pipe or socket under way: opening a FIFO for writing waits for a
/// reader, in a call no flag can stop, so a signal that comes meanwhile ends the process
/// ([`waiting_to_open`]).
static OPENING_SPECIAL: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Whether the process waits in the open of a device, pipe or socket (nothing of it written
/// yet): a signal handler then ends the process instead of asking the work to stop.
pub fn waiting_to_open() -> bool {
    OPENING_SPECIAL.load(std::sync::atomic::Ordering::SeqCst) > 0
}

/// `path` opened for writing, counted in [`waiting_to_open`] while the open waits.
fn open_special(path: &Path) -> std::io::Result<std::fs::File> {
    use std::sync::atomic::Ordering;
    OPENING_SPECIAL.fetch_add(1, Ordering::SeqCst);
    let f = std::fs::OpenOptions::new().write(true).open(path);
    OPENING_SPECIAL.fetch_sub(1, Ordering::SeqCst);
    f
}

/// An existing target that is not a regular file or a directory (a device, a pipe, a socket).
fn special(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Where the rename lands: the regular file a symbolic link points to, else `path`.
fn rename_target(path: &Path) -> PathBuf {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
        _ => path.to_path_buf(),
    }
}

/// The directory a file lands in (`.` for a bare name).
fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// A temporary file in `dir`, named after `name`, with the permissions a new file gets.
fn temporary(dir: &Path, name: &str) -> std::io::Result<tempfile::NamedTempFile> {
    let prefix = format!(".{name}.");
    let mut b = tempfile::Builder::new();
    b.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // As `File::create` would: 0666 less the umask.
        b.permissions(std::fs::Permissions::from_mode(0o666));
    }
    b.tempfile_in(dir)
}

/// The error of a file that could not be written (`PATH: cannot write it (why); expected ...`).
pub fn write_error(path: &Path, e: std::io::Error) -> Error {
    Error::Invalid(format!(
        "{}: cannot write it ({}); expected a writable directory with room for it",
        path.display(),
        reason(&e)
    ))
}

/// The system's reason for `e`, without the temporary's name that errors in making one carry.
fn reason(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" at path \"") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

impl AtomicFile {
    /// Start writing `path`: nothing appears at `path` before [`AtomicFile::commit`].
    pub fn create(path: impl AsRef<Path>) -> Result<AtomicFile> {
        let path = path.as_ref().to_path_buf();
        let name = path
            .file_name()
            .map_or("out".into(), |n| n.to_string_lossy().into_owned());
        if special(&path) {
            let f = open_special(&path).map_err(|e| write_error(&path, e))?;
            return Ok(AtomicFile {
                out: Out::InPlace(f),
                path,
            });
        }
        let target = rename_target(&path);
        let tmp = temporary(dir_of(&target), &name).map_err(|e| write_error(&path, e))?;
        Ok(AtomicFile {
            out: Out::Temporary {
                tmp: Tracked::new(tmp),
                target,
            },
            path,
        })
    }

    fn file(&self) -> &std::fs::File {
        match &self.out {
            Out::Temporary { tmp, .. } => tmp.file(),
            Out::InPlace(f) => f,
        }
    }

    /// Where the file will be.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A second handle on the temporary, for a writer that owns its output; write through it,
    /// drop it, then [`AtomicFile::commit`].
    pub fn handle(&self) -> Result<std::fs::File> {
        self.file().try_clone().map_err(|e| write_error(&self.path, e))
    }

    /// Sync the temporary and rename it over the target: the file is there whole. On error the
    /// temporary is removed.
    pub fn commit(self) -> Result<()> {
        let path = self.path;
        let (tmp, target) = match self.out {
            // A device or a pipe has nothing to sync or rename.
            Out::InPlace(mut f) => return f.flush().map_err(|e| write_error(&path, e)),
            Out::Temporary { tmp, target } => (tmp, target),
        };
        tmp.file().sync_all().map_err(|e| write_error(&path, e))?;
        tmp.persist(&target).map_err(|e| write_error(&path, e.error))?;
        // The rename itself is durable once the directory is synced; a directory that cannot
        // be opened or synced (some file systems) leaves it as durable as the system makes it.
        if let Ok(d) = std::fs::File::open(dir_of(&target)) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

/// Written through the file itself: its errors are the system's, without the temporary's name.
impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut f = self.file();
        f.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        let mut f = self.file();
        f.flush()
    }
}

/// Write `bytes` to `path` whole or not at all.
pub fn write(path: impl AsRef<Path>, bytes: impl AsRef<[u8]>) -> Result<()> {
    let mut f = AtomicFile::create(path)?;
    let path = f.path.clone();
    f.write_all(bytes.as_ref()).map_err(|e| write_error(&path, e))?;
    f.commit()
}

/// What kind of file `m` is, for an error: `a directory`, `a FIFO`, ...
fn kind(m: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = m.file_type();
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        } else if t.is_char_device() || t.is_block_device() {
            return "a device";
        } else if t.is_socket() {
            return "a socket";
        }
    }
    if m.is_dir() {
        "a directory"
    } else if m.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// `Err` unless `path` (a link followed) is a regular file or does not exist: reading a FIFO
/// blocks until something writes it, a device has no end, a directory no bytes. The error is
/// `PATH: it is KIND, not a regular file; expected EXPECTED`. A missing file is left to the
/// open that follows, whose error says so.
pub fn check_regular(path: impl AsRef<Path>, expected: &str) -> Result<()> {
    let path = path.as_ref();
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => Err(Error::Invalid(format!(
            "{}: it is {}, not a regular file; expected {expected}",
            path.display(),
            kind(&m)
        ))),
        _ => Ok(()),
    }
}

/// Read the regular file `path` whole ([`check_regular`] first).
pub fn read_regular(path: impl AsRef<Path>, expected: &str) -> Result<Vec<u8>> {
    let path = path.as_ref();
    check_regular(path, expected)?;
    std::fs::read(path).map_err(|e| Error::io(path.display().to_string(), e))
}

/// The name standard output goes by in errors.
pub const STDOUT: &str = "standard output";

/// Write `bytes` to standard output whole and flushed. A failed write is an error, never a
/// panic: a closed pipe is `Error::Io` on [`STDOUT`] with the kind `BrokenPipe` (see
/// [`closed_pipe`]), for the front end to end quietly as Unix tools do; any other failure (a
/// full disk) is one line saying so.
pub fn print(bytes: impl AsRef<[u8]>) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes.as_ref())
        .and_then(|()| out.flush())
        .map_err(stdout_error)
}

/// The error of a failed write to standard output, as [`print`] gives it.
pub fn stdout_error(e: std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        Error::io(STDOUT, e)
    } else {
        Error::Invalid(format!(
            "{STDOUT}: cannot write it ({}); expected room for the whole output where standard output goes",
            reason(&e)
        ))
    }
}

/// Whether `e` is a write to a standard output whose reader has gone (`cmd | head`).
pub fn closed_pipe(e: &Error) -> bool {
    matches!(e, Error::Io { path, source } if path == STDOUT && source.kind() == std::io::ErrorKind::BrokenPipe)
}

/// Whether `a` and `b` are one existing regular file (same device and inode), whatever
/// their paths: a link, a hard link, `./x` and `x`. Devices and pipes are never the same
/// file here: writing `/dev/null` loses no input.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) if x.is_file() && y.is_file() => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                x.dev() == y.dev() && x.ino() == y.ino()
            }
            #[cfg(not(unix))]
            {
                std::fs::canonicalize(a).ok() == std::fs::canonicalize(b).ok()
            }
        }
        _ => false,
    }
}

/// Refuse to write `output` (asked for by `what`, e.g. `--output`) when it is one of the
/// command's `inputs`: writing it would replace what the command read.
pub fn refuse_input<P: AsRef<Path>>(what: &str, output: impl AsRef<Path>, inputs: &[P]) -> Result<()> {
    let output = output.as_ref();
    match inputs.iter().map(AsRef::as_ref).find(|i| same_file(output, i)) {
        None => Ok(()),
        Some(input) => Err(Error::Invalid(format!(
            "{what}: '{}' is '{}', which this command reads; expected an output that is not one of its inputs",
            output.display(),
            input.display()
        ))),
    }
}

/// Whether files can be created in `dir` (created first, with its parents, if `create`):
/// a temporary is made there and removed. The error is the reason, for the caller to name
/// the option or key that asked for the directory.
pub fn check_dir(dir: impl AsRef<Path>, create: bool) -> std::result::Result<(), String> {
    let dir = dir.as_ref();
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    if create {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: cannot create it ({e})", dir.display()))?;
    }
    temporary(dir, "ssdlab-check")
        .map(drop)
        .map_err(|e| format!("{}: cannot write in it ({})", dir.display(), reason(&e)))
}

/// [`check_dir`] of the directory a file `path` will be written in (not created).
/// A target that is a device, a pipe or a terminal is checked by opening it for writing.
pub fn check_file_dir(path: impl AsRef<Path>) -> std::result::Result<(), String> {
    let path = path.as_ref();
    if special(path) {
        return open_special(path)
            .map(drop)
            .map_err(|e| format!("{}: cannot write it ({e})", path.display()));
    }
    check_dir(dir_of(&rename_target(path)), false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names in `dir`, sorted.
    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    /// The temporaries being written are known until renamed or dropped, and removed by
    /// [`remove_temporaries`] (a second interrupt's last act).
    #[test]
    fn temporaries_being_written_are_known_and_removed_on_demand() {
        let d = tempfile::tempdir().unwrap();
        let committed = AtomicFile::create(d.path().join("a")).unwrap();
        let dropped = AtomicFile::create(d.path().join("b")).unwrap();
        let mut open = AtomicFile::create(d.path().join("c")).unwrap();
        open.write_all(b"partial").unwrap();
        let is_live = |f: &AtomicFile| match &f.out {
            Out::Temporary { tmp, .. } => live().contains(&tmp.0.as_ref().unwrap().path().to_path_buf()),
            Out::InPlace(_) => false,
        };
        assert!(is_live(&committed) && is_live(&dropped) && is_live(&open));
        committed.commit().unwrap();
        drop(dropped);
        assert!(is_live(&open));
        // Other tests' temporaries may be live too: only this test's are removed.
        assert_eq!(remove_temporaries_where(|p| p.starts_with(d.path())), 1);
        assert_eq!(
            names(d.path()),
            ["a"],
            "the open temporary is removed, the committed file kept"
        );
        assert!(!is_live(&open));
    }

    #[test]
    fn nothing_appears_before_commit_and_a_dropped_file_leaves_nothing() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("out.json");
        std::fs::write(&p, "old").unwrap();
        let mut f = AtomicFile::create(&p).unwrap();
        f.write_all(b"new").unwrap();
        // The target is untouched while the temporary is being written, beside it.
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "old");
        let n = names(d.path());
        assert_eq!(n.len(), 2, "{n:?}");
        assert!(n[0].starts_with(".out.json.") && n[0].ends_with(".tmp"), "{n:?}");
        drop(f);
        assert_eq!(names(d.path()), ["out.json"]);
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "old");
        // Through a second handle, as the streaming writers do; then committed.
        let f = AtomicFile::create(&p).unwrap();
        let mut h = f.handle().unwrap();
        h.write_all(b"streamed").unwrap();
        drop(h);
        f.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "streamed");
        assert_eq!(names(d.path()), ["out.json"]);
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_written_in_place_and_links_keep_pointing_at_their_file() {
        let before = std::fs::metadata("/dev/null").unwrap().file_type();
        write("/dev/null", "discarded").unwrap();
        check_file_dir("/dev/null").unwrap();
        let f = AtomicFile::create("/dev/null").unwrap();
        drop(f.handle().unwrap());
        f.commit().unwrap();
        // Still the device, never a file renamed over it.
        let after = std::fs::metadata("/dev/null").unwrap();
        assert!(!after.is_file() && after.file_type() == before);
        let d = tempfile::tempdir().unwrap();
        let (real, link) = (d.path().join("real.json"), d.path().join("link.json"));
        std::fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write(&link, "new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
        assert_eq!(names(d.path()), ["link.json", "real.json"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_written_file_has_the_permissions_of_a_created_one() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let (a, b) = (d.path().join("a"), d.path().join("b"));
        write(&a, "x").unwrap();
        std::fs::write(&b, "x").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode();
        assert_eq!(mode(&a), mode(&b));
    }

    #[test]
    fn check_dir_creates_when_asked_and_leaves_no_file() {
        let d = tempfile::tempdir().unwrap();
        let sub = d.path().join("x/y");
        let e = check_dir(&sub, false).unwrap_err();
        // The reason, without the temporary's name.
        assert!(
            e.ends_with("cannot write in it (No such file or directory (os error 2))"),
            "{e}"
        );
        assert!(!sub.exists());
        check_dir(&sub, true).unwrap();
        assert!(names(&sub).is_empty());
        // A file in the way of the directory.
        std::fs::write(d.path().join("f"), "").unwrap();
        let e = check_dir(d.path().join("f/z"), true).unwrap_err();
        assert!(e.contains("cannot create it"), "{e}");
        check_file_dir(sub.join("out.json")).unwrap();
        assert!(check_file_dir(d.path().join("missing/out.json")).is_err());
    }

    #[test]
    fn the_build_id_carries_the_version_and_a_source_hash() {
        let (v, h) = BUILD_ID.split_once('+').unwrap();
        assert_eq!(v, env!("CARGO_PKG_VERSION"));
        assert!(h.len() == 16 && h.chars().all(|c| c.is_ascii_hexdigit()), "{h}");
    }
}
