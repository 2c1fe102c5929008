//! `ssdlab traces fetch` against a local HTTP server (`--mirror`): a good file lands whole,
//! a wrong checksum, a download cut short and a missing file leave nothing behind; and
//! `@NAME` finds a fetched trace, or names the command that fetches it.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// What the server answers for a path.
#[derive(Clone)]
enum Reply {
    /// 200 with the whole body.
    Whole(Vec<u8>),
    /// 200 announcing `claimed` bytes, sending `body`, then closing.
    Cut { body: Vec<u8>, claimed: usize },
    /// 404.
    Missing,
}

/// A server on 127.0.0.1 answering `routes` (path, reply), counting the requests.
fn serve(routes: Vec<(String, Reply)>) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = format!("http://{}", listener.local_addr().unwrap());
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = hits.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            counter.fetch_add(1, Ordering::SeqCst);
            // The request head, up to its blank line.
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && s.read(&mut byte).unwrap_or(0) == 1 {
                head.push(byte[0]);
            }
            let head = String::from_utf8_lossy(&head);
            let path = head.split_whitespace().nth(1).unwrap_or("").to_string();
            let reply = routes
                .iter()
                .find(|r| r.0 == path)
                .map_or(Reply::Missing, |r| r.1.clone());
            let _ = match reply {
                Reply::Whole(b) => s
                    .write_all(
                        format!(
                            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                            b.len()
                        )
                        .as_bytes(),
                    )
                    .and_then(|_| s.write_all(&b)),
                Reply::Cut { body, claimed } => s
                    .write_all(
                        format!("HTTP/1.1 200 OK\r\nContent-Length: {claimed}\r\nConnection: close\r\n\r\n").as_bytes(),
                    )
                    .and_then(|_| s.write_all(&body)),
                Reply::Missing => {
                    s.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                }
            };
            let _ = s.flush();
        }
    });
    (addr, hits)
}

fn ssdlab(args: &[&str], traces: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(args)
        .env("SSDLAB_TRACES", traces)
        .output()
        .unwrap()
}

/// The files in `dir`, sorted.
fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// One line on standard error, exit status 2, containing `want`.
fn refused(o: &Output, want: &str) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("ssdlab: error: ") && err.contains("; expected"),
        "{err}"
    );
    assert!(err.contains(want), "{want}: {err}");
    err
}

#[test]
fn a_fetched_trace_lands_whole_and_a_bad_one_leaves_nothing() {
    // The published bytes of the smallest public trace, from the traces folder.
    let Some(src) = ssdlab_core::trace::catalogue::for_test(&["fin1"]) else {
        return;
    };
    let good = std::fs::read(src.join("fin1")).unwrap();
    let mut altered = good.clone();
    altered[100] ^= 1;
    let (url, hits) = serve(vec![
        ("/good/fin1".into(), Reply::Whole(good.clone())),
        ("/bad/fin1".into(), Reply::Whole(altered.clone())),
        (
            "/cut/fin1".into(),
            Reply::Cut {
                body: good[..1000].to_vec(),
                claimed: good.len(),
            },
        ),
        (
            "/long/fin1".into(),
            Reply::Whole([good.clone(), b"x".to_vec()].concat()),
        ),
    ]);
    let tmp = tempfile::tempdir().unwrap();
    let fetch = |dir: &Path, from: &str| {
        let d = dir.to_str().unwrap().to_string();
        ssdlab(
            &[
                "traces",
                "fetch",
                "fin1",
                "--traces",
                &d,
                "--mirror",
                &format!("{url}/{from}"),
                "-q",
            ],
            dir,
        )
    };

    // A wrong checksum, a download cut short, one too long, a missing file: nothing kept.
    for (from, want) in [
        ("bad", "SHA-256"),
        ("cut", "fin1"),
        ("long", "more than the published 3516 bytes"),
        ("none", "404"),
    ] {
        let dir = tmp.path().join(from);
        let err = refused(&fetch(&dir, from), want);
        assert!(err.contains(&format!("{url}/{from}/fin1")), "{err}");
        assert_eq!(files(&dir), Vec::<String>::new(), "{from}: {err}");
    }
    // Not fetched: `@fin1` names the command that fetches it.
    let empty = tmp.path().join("bad");
    refused(
        &ssdlab(&["trace", "stats", "@fin1"], &empty),
        "`ssdlab traces fetch fin1`",
    );

    // The good file: there whole, nothing else beside it.
    let dir = tmp.path().join("good");
    let o = fetch(&dir, "good");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("1 fetched, 0 already there"));
    assert_eq!(std::fs::read(dir.join("fin1")).unwrap(), good);
    assert_eq!(files(&dir), ["fin1"]);
    // Fetched again: kept, without a request.
    let before = hits.load(Ordering::SeqCst);
    let o = fetch(&dir, "good");
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("0 fetched, 1 already there"));
    assert_eq!(hits.load(Ordering::SeqCst), before);
    // `@fin1` is that file, named as written.
    let o = ssdlab(&["trace", "stats", "@fin1", "--output-format", "json"], &dir);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((v["file"].as_str(), v["requests"].as_u64()), (Some("@fin1"), Some(100)));
    // The list: fin1 whole, the other ten to fetch.
    let o = ssdlab(&["traces", "list"], &dir);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.lines().any(|l| l.starts_with("fin1 ") && l.ends_with("whole")),
        "{out}"
    );
    assert_eq!(out.lines().filter(|l| l.ends_with("missing")).count(), 10, "{out}");
    assert!(out.contains("10 to fetch: `ssdlab traces fetch`"), "{out}");

    // A damaged copy is not whole: listed so, and replaced by the next fetch.
    std::fs::write(dir.join("fin1"), &altered).unwrap();
    let out = String::from_utf8_lossy(&ssdlab(&["traces", "list"], &dir).stdout).into_owned();
    assert!(out.contains("not the published file (SHA-256"), "{out}");
    // Of the published size, it is still not read as the trace (bbcad2e read it silently).
    refused(&ssdlab(&["trace", "stats", "@fin1"], &dir), "SHA-256");
    refused(&fetch(&dir, "bad"), "SHA-256");
    assert_eq!(
        std::fs::read(dir.join("fin1")).unwrap(),
        altered,
        "a failed fetch keeps what was there"
    );
    assert!(fetch(&dir, "good").status.success());
    assert_eq!(std::fs::read(dir.join("fin1")).unwrap(), good);
}

#[test]
fn an_unknown_trace_is_refused_with_the_catalogue() {
    let tmp = tempfile::tempdir().unwrap();
    let err = refused(&ssdlab(&["traces", "fetch", "nope"], tmp.path()), "nope");
    assert!(err.contains("fin1, tpcc-small.trace"), "{err}");
    refused(&ssdlab(&["trace", "stats", "@nope"], tmp.path()), "not a public trace");
}

#[test]
fn a_mirror_on_this_machine_is_a_folder_or_a_file_url_and_list_urls_names_the_sources() {
    // Traces downloaded elsewhere, in a folder here: fetched from it as from a server,
    // checked the same way.
    let Some(src) = ssdlab_core::trace::catalogue::for_test(&["fin1"]) else {
        return;
    };
    let good = std::fs::read(src.join("fin1")).unwrap();
    let mirror = tempfile::tempdir().unwrap();
    std::fs::write(mirror.path().join("fin1"), &good).unwrap();
    let bad = tempfile::tempdir().unwrap();
    let mut altered = good.clone();
    altered[10] ^= 1;
    std::fs::write(bad.path().join("fin1"), &altered).unwrap();
    for from in [
        mirror.path().display().to_string(),
        format!("file://{}", mirror.path().display()),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path().to_str().unwrap();
        let o = ssdlab(
            &["traces", "fetch", "fin1", "--traces", d, "--mirror", &from, "-q"],
            tmp.path(),
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(std::fs::read(tmp.path().join("fin1")).unwrap(), good);
    }
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().to_str().unwrap();
    let b = bad.path().to_str().unwrap();
    refused(
        &ssdlab(
            &["traces", "fetch", "fin1", "--traces", d, "--mirror", b, "-q"],
            tmp.path(),
        ),
        "SHA-256",
    );
    refused(
        &ssdlab(
            &["traces", "fetch", "fin1", "--traces", d, "--mirror", d, "-q"],
            tmp.path(),
        ),
        "cannot read it",
    );
    assert!(files(tmp.path()).is_empty(), "{:?}", files(tmp.path()));
    // list --urls: every trace of the catalogue with its published URL, a line each.
    let o = ssdlab(&["traces", "list", "--urls"], tmp.path());
    let out = String::from_utf8(o.stdout).unwrap();
    let want: String = ssdlab_core::trace::catalogue::TRACES
        .iter()
        .map(|t| format!("{} {}\n", t.name, t.url))
        .collect();
    assert_eq!(out, want);
    assert!(out.lines().all(|l| l.contains(" https://")), "{out}");
}

#[test]
fn every_command_that_reads_traces_takes_traces_dir_before_the_environment() {
    // $SSDLAB_TRACES names a folder with the traces; `--traces` an empty one, which wins:
    // each command fails naming the empty folder (so the flag reached it), before simulating.
    let Some(src) = ssdlab_core::trace::catalogue::for_test(&["fin1", "tpcc-small.trace"]) else {
        return;
    };
    let empty = tempfile::tempdir().unwrap();
    let e = empty.path().to_str().unwrap();
    let replay = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/replay.toml");
    for args in [
        vec!["trace", "stats", "@fin1", "--traces", e],
        vec!["trace", "convert", "@fin1", "--to", "msr", "--traces", e],
        vec!["run", replay, "--quiet", "--traces", e],
        vec!["lint", "@fin1", "--traces", e],
        vec!["bench", "--quick", "--case", "trace-replay", "--traces", e],
    ] {
        let err = refused(&ssdlab(&args, &src), "is not there");
        assert!(err.contains(e), "{args:?}: {err}");
    }
    // hotr: every missing trace named at once, with the one command that fetches them all.
    let err = refused(
        &ssdlab(&["experiment", "hotr", "--quick", "--traces", e], &src),
        "fetch",
    );
    let names = [
        "msr.cut.per_10k.rw_20_80.105.trace",
        "tpcc-small.trace",
        "cloudPhysicsIO.csv",
        "ascii.trace",
    ];
    for n in names {
        assert!(err.contains(&format!(" {n}")), "{n}: {err}");
    }
    assert!(err.contains("`ssdlab traces fetch example.ascii msr.cut"), "{err}");
    // And the other way round: the environment names the empty folder, `--traces` the full one.
    let o = ssdlab(
        &["trace", "stats", "@fin1", "--traces", src.to_str().unwrap()],
        empty.path(),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("requests"));
}
