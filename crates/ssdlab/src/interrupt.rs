//! SIGINT and SIGTERM during `run`, `experiment`, `characterize`, `lint` and `trace
//! convert`: the first one asks the work to stop (`sim::interrupt`, which every simulation
//! and conversion checks as it goes); the command drops its temporaries, and `main` prints
//! one line saying what was stopped and what was kept and exits 128 + the signal (130, 143).
//! A second signal ends the process at once, with the same status: the temporaries being
//! written are removed first (`output::remove_temporaries`), and one line says so and what
//! was kept.

use ssdlab_core::Error;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Mutex;

/// The first signal received (0: none).
static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// What the interrupted command stopped and kept, e.g. `run stopped; nothing written`.
static MESSAGE: Mutex<String> = Mutex::new(String::new());

/// Catch SIGINT and SIGTERM for a command that says `message` when stopped (until it says
/// more with [`stopped`]).
pub fn install(message: &str) {
    set(message.to_string());
    use signal_hook::consts::{SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
        return;
    };
    std::thread::spawn(move || {
        for sig in signals.forever() {
            if SIGNAL
                .compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst)
                .is_err()
            {
                // A second signal: the process ends now, without waiting for the work to
                // stop; the temporaries it was writing go first, and it says what was kept.
                let removed = ssdlab_core::output::remove_temporaries();
                let (line, status) = report_again(sig, removed);
                eprintln!("{line}");
                std::process::exit(status as i32);
            }
            if ssdlab_core::output::waiting_to_open() {
                // Waiting for a reader of a FIFO (or a device) the output goes to: no check
                // of the flag comes until the open returns, so the first signal ends it.
                let removed = ssdlab_core::output::remove_temporaries();
                let (line, status) = report();
                let also = if removed > 0 {
                    format!("; {removed} temporary file(s) removed")
                } else {
                    String::new()
                };
                eprintln!("{line}, while it waited for a reader of its output{also}");
                std::process::exit(status as i32);
            }
            ssdlab_core::sim::interrupt();
        }
    });
}

/// What the command keeps if stopped from now on (a second signal says it as it is).
pub fn keeps(message: String) {
    set(message);
}

fn set(message: String) {
    *MESSAGE.lock().unwrap_or_else(|e| e.into_inner()) = message;
}

/// [`Error::Interrupted`], saying `message` (what was stopped; what was kept).
pub fn stopped(message: String) -> Error {
    set(message);
    Error::Interrupted
}

/// The signal received, if any.
pub fn signal() -> Option<i32> {
    Some(SIGNAL.load(Ordering::SeqCst)).filter(|&s| s != 0)
}

/// The line to print and the exit status of a command a second signal `sig` ended, having
/// removed `removed` temporaries.
fn report_again(sig: i32, removed: usize) -> (String, u8) {
    let name = if sig == signal_hook::consts::SIGTERM {
        "SIGTERM"
    } else {
        "SIGINT"
    };
    let message = MESSAGE.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let first = signal().unwrap_or(sig);
    (
        format!("ssdlab: interrupted twice ({name}): stopped at once, {removed} temporary file(s) removed; {message}"),
        128 + first as u8,
    )
}

/// The line to print and the exit status of an interrupted command.
pub fn report() -> (String, u8) {
    let sig = signal().unwrap_or(signal_hook::consts::SIGINT);
    let name = match sig {
        signal_hook::consts::SIGTERM => "SIGTERM",
        _ => "SIGINT",
    };
    let message = MESSAGE.lock().unwrap_or_else(|e| e.into_inner()).clone();
    (format!("ssdlab: interrupted ({name}): {message}"), 128 + sig as u8)
}
