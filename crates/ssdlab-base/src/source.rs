//! Where a config key was written: line and column of a key path (`device.nand.read`,
//! `job[0].bs`) in TOML text or in a fio job file, so that an error about a value names the
//! line the user has to change.

/// One step of a key path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment<'a> {
    Key(&'a str),
    Index(usize),
}

/// Split `job[0].trace.speed` (or `job.0.trace.speed`, as `--set` writes it) into segments.
pub fn split_key(key: &str) -> Vec<Segment<'_>> {
    let mut out = Vec::new();
    for part in key.split('.') {
        let (name, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !name.is_empty() {
            match name.parse::<usize>() {
                Ok(i) => out.push(Segment::Index(i)),
                Err(_) => out.push(Segment::Key(name)),
            }
        }
        while let Some(r) = rest.strip_prefix('[') {
            let Some(end) = r.find(']') else { break };
            if let Ok(i) = r[..end].parse() {
                out.push(Segment::Index(i));
            }
            rest = &r[end + 1..];
        }
    }
    out
}

/// The canonical spelling of a key path: `job[0].trace.speed`.
pub fn canonical_key(key: &str) -> String {
    let mut s = String::new();
    for seg in split_key(key) {
        match seg {
            Segment::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Segment::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].chars().count() + 1)
}

/// Line of option `key` (a `job[I].OPTION` path) in fio job-file `text`: the option in the
/// job's section, else in `[global]`, else the section header. `aliases` maps an option name
/// to the names fio accepts for it.
pub fn fio_position(text: &str, key: &str, aliases: &dyn Fn(&str) -> Vec<&'static str>) -> Option<(usize, usize)> {
    let segs = split_key(key);
    let (job, opt) = match segs.as_slice() {
        [Segment::Key("job"), Segment::Index(i), Segment::Key(o), ..] => (*i, Some(*o)),
        [Segment::Key("job"), Segment::Index(i)] => (*i, None),
        _ => return None,
    };
    let names: Vec<&str> = match opt {
        Some(o) => {
            let mut v = aliases(o);
            if v.is_empty() {
                v.push(o);
            }
            v
        }
        None => Vec::new(),
    };
    let mut section: Option<String> = None;
    let mut jobs_seen = 0usize;
    let mut header: Option<usize> = None;
    let mut global_hit: Option<(usize, usize)> = None;
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if let Some(rest) = line.strip_prefix('[') {
            let name = rest.trim_end_matches(']').trim().to_string();
            if section.as_deref().is_some_and(|s| s != "global") {
                jobs_seen += 1;
            }
            if name != "global" && jobs_seen == job {
                header = Some(n + 1);
            }
            if jobs_seen > job {
                break;
            }
            section = Some(name);
            continue;
        }
        let k = line.split_once('=').map_or(line, |(k, _)| k).trim();
        if !names.contains(&k) {
            continue;
        }
        let col = raw.len() - raw.trim_start().len() + 1;
        match section.as_deref() {
            Some("global") => global_hit = Some((n + 1, col)),
            Some(_) if jobs_seen == job => return Some((n + 1, col)),
            _ => {}
        }
    }
    global_hit.or(header.map(|l| (l, 1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_paths_split_both_ways() {
        assert_eq!(
            split_key("job[2].trace.speed"),
            vec![
                Segment::Key("job"),
                Segment::Index(2),
                Segment::Key("trace"),
                Segment::Key("speed")
            ]
        );
        assert_eq!(canonical_key("job.2.trace.speed"), "job[2].trace.speed");
        assert_eq!(canonical_key("device.nand.read"), "device.nand.read");
    }

    #[test]
    fn fio_options_are_found_in_their_section_or_global() {
        let text = "[global]\nbs=4k\n iodepth=4\n[a]\nrw=read\n[b]\nrw=write\nbs = 0\n";
        let none = |_: &str| Vec::new();
        assert_eq!(fio_position(text, "job[1].bs", &none), Some((8, 1)));
        assert_eq!(fio_position(text, "job[0].bs", &none), Some((2, 1)));
        assert_eq!(fio_position(text, "job[0].iodepth", &none), Some((3, 2)));
        assert_eq!(fio_position(text, "job[1].size", &none), Some((6, 1)));
        assert_eq!(fio_position(text, "job[0].rw", &none), Some((5, 1)));
        assert_eq!(fio_position(text, "job[2].rw", &none), None);
    }
}
