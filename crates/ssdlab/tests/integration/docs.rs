//! The command lines shown in the documentation run, and print what the documentation says.
//!
//! In README.md, docs/*.md and docs/experiments/*.md, a ```console block holds `$ ssdlab ARGS` lines (run from the
//! project root), each followed by the output expected: every line must appear in the output
//! (standard output, then standard error), in order; `...` stands for any number of lines and
//! `[..]` inside a line for any text. A `? N` line right after the command expects exit status
//! N (otherwise 0). `NAME=value` words before `ssdlab` set environment variables.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

struct Case {
    file: String,
    line: usize,
    args: Vec<String>,
    env: Vec<(String, String)>,
    status: i32,
    expected: Vec<String>,
}

/// Split a command line into words: whitespace separates, double or single quotes group.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote = None;
    let mut any = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                any = true
            }
            (None, c) if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                any = false
            }
            (None, c) => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn cases(file: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(file).unwrap();
    let name = file.strip_prefix(root()).unwrap_or(file).display().to_string();
    let mut out: Vec<Case> = Vec::new();
    let mut in_console = false;
    for (i, l) in text.lines().enumerate() {
        if let Some(info) = l.strip_prefix("```") {
            in_console = !in_console && info.trim() == "console";
            continue;
        }
        if !in_console {
            continue;
        }
        if let Some(cmd) = l.strip_prefix("$ ") {
            let mut w = words(cmd);
            let mut env = Vec::new();
            while let Some((k, v)) = w[0]
                .split_once('=')
                .filter(|(k, _)| !k.is_empty() && k.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
            {
                env.push((k.to_string(), v.to_string()));
                w.remove(0);
            }
            assert_eq!(w[0], "ssdlab", "{name}:{}: console blocks show ssdlab commands", i + 1);
            out.push(Case {
                file: name.clone(),
                line: i + 1,
                args: w[1..].to_vec(),
                env,
                status: 0,
                expected: vec![],
            });
        } else if let Some(c) = out.last_mut() {
            match l.strip_prefix("? ") {
                Some(s) if c.expected.is_empty() => c.status = s.trim().parse().unwrap(),
                _ => c.expected.push(l.to_string()),
            }
        }
    }
    out
}

/// Does `line` match `pattern`, where `[..]` matches any text?
fn matches(pattern: &str, line: &str) -> bool {
    let parts: Vec<&str> = pattern.split("[..]").collect();
    if parts.len() == 1 {
        return pattern.trim_end() == line.trim_end();
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !line.starts_with(first) || !line.trim_end().ends_with(last.trim_end()) {
        return false;
    }
    let mut rest = &line[first.len()..];
    for p in &parts[1..parts.len() - 1] {
        match rest.find(p) {
            Some(k) => rest = &rest[k + p.len()..],
            None => return false,
        }
    }
    rest.trim_end().len() >= last.trim_end().len()
}

fn check(c: &Case) -> Result<(), String> {
    let o = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(&c.args)
        .envs(c.env.iter().map(|(k, v)| (k, v)))
        .current_dir(root())
        .output()
        .unwrap();
    let out = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let at = format!("{}:{}: ssdlab {}", c.file, c.line, c.args.join(" "));
    if o.status.code() != Some(c.status) {
        return Err(format!(
            "{at}: exit status {:?}, expected {}\n{out}",
            o.status.code(),
            c.status
        ));
    }
    let lines: Vec<&str> = out.lines().collect();
    let mut pos = 0;
    let mut gap = false;
    for e in &c.expected {
        if e.trim() == "..." {
            gap = true;
            continue;
        }
        match lines[pos..].iter().position(|l| matches(e, l)) {
            Some(k) if gap || k == 0 => pos += k + 1,
            _ => {
                return Err(format!(
                    "{at}: expected line not found (after output line {pos}):\n  {e}\noutput:\n{out}"
                ))
            }
        }
        gap = false;
    }
    Ok(())
}

#[test]
fn wildcards_match_what_they_should() {
    assert!(matches("a [..] c", "a b c"));
    assert!(matches("a[..]", "abc"));
    assert!(!matches("a [..] c", "a b d"));
    assert!(!matches("x[..]", "abc"));
    assert!(matches("  read: IOPS=1", "  read: IOPS=1  "));
    assert!(!matches("  read: IOPS=1", "  read: IOPS=12"));
    assert_eq!(
        words("run a --set 'x=[1, 2]' \"b c\""),
        ["run", "a", "--set", "x=[1, 2]", "b c"]
    );
}

#[test]
fn documented_commands_print_what_the_documentation_shows() {
    let mut files = vec![root().join("README.md")];
    // docs/*.md and the experiments' pages under docs/experiments/.
    let mut docs: Vec<PathBuf> = ["docs", "docs/experiments"]
        .iter()
        .flat_map(|d| std::fs::read_dir(root().join(d)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    let all: Vec<Case> = files.iter().flat_map(|f| cases(f)).collect();
    assert!(all.len() >= 3, "the documentation shows commands with their output");
    // A command on the public traces (`@NAME`, `ssdlab traces`) runs where the traces folder
    // holds them (skipped elsewhere, a failure under CI).
    let public: Vec<&str> = ssdlab_core::trace::catalogue::TRACES.iter().map(|t| t.name).collect();
    let needs_traces =
        |c: &Case| c.args.first().is_some_and(|a| a == "traces") || c.args.iter().any(|a| a.starts_with('@'));
    let have_traces = !all.iter().any(needs_traces) || ssdlab_core::trace::catalogue::for_test(&public).is_some();
    let failures: Vec<String> = all
        .iter()
        .filter(|c| have_traces || !needs_traces(c))
        .filter_map(|c| check(c).err())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The README's example of reading the JSON from Python prints what the README says.
#[test]
fn readme_python_example_prints_what_it_shows() {
    let text = std::fs::read_to_string(root().join("README.md")).unwrap();
    let block = |fence: &str, after: usize| -> (String, usize) {
        let start = text[after..]
            .find(fence)
            .map(|i| after + i + fence.len())
            .expect("a block");
        let end = start + text[start..].find("\n```").expect("closed block");
        (text[start..end].trim_start_matches('\n').to_string(), end)
    };
    let (code, end) = block("```python\n", 0);
    let (expected, _) = block("```text\n", end);
    let python = Command::new("python3").arg("--version").output();
    if python.is_err() {
        ssdlab_core::skip::skip("python3 is not installed", "python3");
        return;
    }
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_ssdlab")).parent().unwrap().to_path_buf();
    let path = std::env::join_paths(
        std::iter::once(bin_dir).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let o = Command::new("python3")
        .args(["-c", &code])
        .current_dir(root())
        .env("PATH", path)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim_end(), expected.trim_end());
}

/// Every figure in docs/experiments/NAME/ is what this build draws from the experiment's
/// record (`ssdlab experiment NAME --redraw`): a change to the plots redraws the docs.
#[test]
fn the_experiments_figures_are_this_builds_drawing_of_their_records() {
    let names = ["fdp", "friendly", "hotr", "openssd", "plan", "rodi", "zns"];
    let tmp = tempfile::tempdir().unwrap();
    let mut stale = Vec::new();
    for e in names {
        let out = tmp.path().join(e);
        let record = format!("docs/experiments/record/{e}.json");
        let o = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
            .args(["experiment", e, "--redraw", &record, "--out", out.to_str().unwrap()])
            .current_dir(root())
            .output()
            .unwrap();
        assert!(o.status.success(), "{e}: {}", String::from_utf8_lossy(&o.stderr));
        let drawn: Vec<PathBuf> = std::fs::read_dir(&out).unwrap().map(|f| f.unwrap().path()).collect();
        assert!(!drawn.is_empty(), "{e}: no figures");
        for f in drawn {
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            let docs = root().join("docs/experiments").join(e).join(&name);
            if std::fs::read(&docs).ok() != Some(std::fs::read(&f).unwrap()) {
                stale.push(format!("docs/experiments/{e}/{name}"));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "not what this build draws from the records (redraw: ssdlab experiment NAME --redraw docs/experiments/record/NAME.json --out docs/experiments/NAME):\n{}",
        stale.join("\n")
    );
    // A record of another experiment is refused.
    let o = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args([
            "experiment",
            "plan",
            "--redraw",
            "docs/experiments/record/hotr.json",
            "--out",
        ])
        .arg(tmp.path().join("x"))
        .current_dir(root())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("experiment hotr's result; expected plan's"), "{err}");
    assert!(!tmp.path().join("x").exists());
}

#[test]
fn the_readme_reads_quick_start_install_a_first_run_then_where_to_go_next() {
    // A new user's first hour: the two commands, how to install, one run explained, and
    // where to go from there, before any topic's detail (experiments, lint, serve, Python).
    let text = std::fs::read_to_string(root().join("README.md")).unwrap();
    let heads: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("## ")).collect();
    assert_eq!(
        heads[..4],
        ["Quick start", "Install", "A first run", "Where to go next"],
        "{heads:?}"
    );
    // The cold build's time is stated before the first run.
    let quick = &text[..text.find("## Install").unwrap()];
    assert!(quick.contains("minutes cold on 2 cores"), "{quick}");
    // Experiment detail lives with the experiments; the README keeps a short section.
    let exp = text.split("\n## Experiments\n").nth(1).unwrap();
    let exp = &exp[..exp.find("\n## ").unwrap_or(exp.len())];
    assert!(exp.lines().count() < 50, "{} lines", exp.lines().count());
}
