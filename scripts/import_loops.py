#!/usr/bin/env python3
"""Check that no crate's modules import each other in a loop (the crates themselves form a DAG:
cargo refuses a cycle between them).

    scripts/import_loops.py [--graph] [--self-test]

A module is a file under crates/NAME/src (`a.rs` or `a/mod.rs` is module `a`). Module M imports
module T when M's code names a path `crate::...`, `super::...` or `self::...` that resolves to T
(the longest module prefix of the path), or a bare path `child::...` through one of M's own
child modules (`rodi::new` in `array/mod.rs` is an import of `array/rodi`). Comments, string
literals and `#[cfg(test)] mod NAME { ... }` blocks are not code of the layers (unit tests may
build what they test from the loader); the code after such a block is. A module naming what its own ancestors define is not an import: a parent and the files
of its folder are one unit, and a child implementing its parent's trait is its registry line.
Prints each loop with the names that tie it; --graph prints every module's imports. Exits 1
when a loop exists.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PATH = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
TEST_MOD = re.compile(r"#\[cfg\(test\)\]\s*(?:pub(?:\([a-z]+\))?\s+)?mod\s+[A-Za-z_][A-Za-z0-9_]*\s*\{")


def code_of(text):
    """The file's code: without comments, string contents and its test modules (each
    `#[cfg(test)] mod NAME { ... }` block to its matching brace; what follows it stays)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'r#*"(?:.|\n)*?"#*', '""', text)
    text = re.sub(r'"(\\.|[^"\\])*"', '""', text)
    text = re.sub(r"'(\\.|[^'\\])'", "' '", text)
    while True:
        m = TEST_MOD.search(text)
        if not m:
            return text
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        text = text[: m.start()] + text[i:]


def modules(src):
    mods = {}
    for d, _, files in os.walk(src):
        for f in files:
            if f.endswith(".rs"):
                rel = os.path.relpath(os.path.join(d, f), src)[:-3].split(os.sep)
                if rel[-1] in ("mod", "lib", "main"):
                    rel = rel[:-1]
                mods[tuple(rel)] = os.path.join(d, f)
    return mods


def imports(mods):
    def resolve(path):
        for n in range(len(path), -1, -1):
            if tuple(path[:n]) in mods:
                return tuple(path[:n])
        return None

    edges = {}
    for m, f in mods.items():
        with open(f, encoding="utf-8") as fh:
            code = code_of(fh.read())
        out = edges.setdefault(m, {})
        found = [(g.group(1), g.group(2)) for g in PATH.finditer(code)]
        # Bare paths through the module's own children (`child::name`, not `x::child::name`).
        children = {t[-1] for t in mods if len(t) == len(m) + 1 and t[: len(m)] == m}
        for c in sorted(children):
            for g in re.finditer(r"(?<![:\w])" + c + r"((?:::[A-Za-z_][A-Za-z0-9_]*)+)", code):
                found.append(("self", "::" + c + g.group(1)))
        for kind, path in found:
            parts = path.strip(":").split("::")
            if kind == "crate":
                base = []
            elif kind == "self":
                base = list(m)
            else:
                # `super` in a/b.rs or a/b/mod.rs is module a.
                base = list(m[:-1])
                while parts and parts[0] == "super":
                    parts, base = parts[1:], base[:-1]
            t = resolve(base + parts)
            if t is None or t == m or m[: len(t)] == t:
                continue
            out.setdefault(t, set()).add(parts[-1] if parts else "")
    return edges


def loops(edges):
    """Strongly connected sets of more than one module (Tarjan, iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, {})))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop()
                    on.discard(x)
                    comp.append(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def name(m):
    return "/".join(m) or "lib"


def self_test():
    """The checker against small trees whose loops are known."""
    import tempfile

    cases = [
        # (files, expected loops)
        ({"a.rs": "use crate::b::X;", "b.rs": "use crate::a::Y;"}, [["a", "b"]]),
        ({"a.rs": "use crate::b::X;", "b.rs": "// use crate::a::Y;\nfn f() { let s = \"crate::a\"; }"}, []),
        ({"a.rs": "use crate::b::X;", "b.rs": "fn f() {}\n#[cfg(test)]\nmod tests { use crate::a::Y; }"}, []),
        # A child using its parent is its registry line, not a loop.
        ({"a/mod.rs": "mod c; use c::Z; fn f() { crate::a::c::g() }", "a/c.rs": "use super::T;"}, []),
        ({"a/mod.rs": "fn f() { crate::b::g() }", "a/c.rs": "", "b.rs": "use crate::a::c::Z;"}, []),
        ({"a/mod.rs": "fn f() { crate::b::g() }", "a/c.rs": "", "b.rs": "use crate::a::Z;"}, [["a", "b"]]),
        ({"x/y/z.rs": "use super::super::w::Q;", "x/w.rs": "use crate::x::y::z::P;", "x/y/mod.rs": ""},
         [["x/w", "x/y/z"]]),
        # Code after a test module counts, and a parent's bare path through its child is an
        # import of the child: cfg -> arr -> arr/r -> cfg.
        ({"cfg.rs": "fn f() {}\n#[cfg(test)]\nmod tests { fn g() { let c = '{'; } }\nfn h() { crate::arr::MAX }",
          "arr/mod.rs": "mod r; fn f() { r::new() }",
          "arr/r.rs": "pub fn new(c: &crate::cfg::Config) {}"},
         [["arr", "arr/r", "cfg"]]),
        # The same with the child naming what it needs from elsewhere: no loop.
        ({"cfg.rs": "fn f() {}\n#[cfg(test)]\nmod tests { }\nfn h() { crate::arr::MAX }",
          "arr/mod.rs": "mod r; fn f() { r::new() }",
          "arr/r.rs": "pub fn new(c: &crate::job::Job) {}", "job.rs": ""},
         []),
        # `self::child` and a test module inside a test-free file's other module names.
        ({"a/mod.rs": "fn f() { self::c::g() }", "a/c.rs": "use crate::a::Z;"}, []),
        ({"a/mod.rs": "fn f() { self::c::g() }", "a/c.rs": "use crate::b::Z;", "b.rs": "use crate::a::T;"},
         [["a", "a/c", "b"]]),
    ]
    for files, want in cases:
        with tempfile.TemporaryDirectory() as d:
            for f, text in files.items():
                os.makedirs(os.path.dirname(os.path.join(d, f)), exist_ok=True)
                with open(os.path.join(d, f), "w") as fh:
                    fh.write(text)
            got = [[name(m) for m in comp] for comp in loops(imports(modules(d)))]
            if got != want:
                sys.exit(f"import_loops self-test: {files}: got {got}, expected {want}")
    print(f"import_loops self-test: {len(cases)} cases")


def main():
    if "--self-test" in sys.argv[1:]:
        return self_test()
    graph = "--graph" in sys.argv[1:]
    crates = os.path.join(ROOT, "crates")
    found = 0
    for crate in sorted(os.listdir(crates)):
        src = os.path.join(crates, crate, "src")
        if not os.path.isdir(src):
            continue
        edges = imports(modules(src))
        if graph:
            for m in sorted(edges):
                targets = ", ".join(name(t) for t in sorted(edges[m]))
                print(f"{crate}: {name(m)} -> {targets}")
        for comp in loops(edges):
            found += 1
            print(f"{crate}: loop of {len(comp)} modules: {', '.join(name(m) for m in comp)}")
            for m in comp:
                for t, what in sorted(edges[m].items()):
                    if t in comp:
                        print(f"    {name(m)} -> {name(t)}: {', '.join(sorted(what))}")
    print(f"{found} import loop(s)")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
