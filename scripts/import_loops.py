#!/usr/bin/env python3
"""Check that no crate's modules import each other in a loop (the crates themselves form a DAG:
cargo refuses a cycle between them).

    scripts/import_loops.py [--graph] [--self-test]

A module is a file under crates/NAME/src (`a.rs` or `a/mod.rs` is module `a`). Module M imports
module T when M's code names a path `crate::...` or `super::...` that resolves to T (the longest
module prefix of the path). Comments, string literals and the `#[cfg(test)] mod tests` block at
the end of a file are not code of the layers (unit tests may build what they test from the
loader). A module naming what its own ancestors define is not an import: a parent and the files
of its folder are one unit, and a child implementing its parent's trait is its registry line.
Prints each loop with the names that tie it; --graph prints every module's imports. Exits 1
when a loop exists.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PATH = re.compile(r"\b(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")


def code_of(text):
    """The file's code: without comments, string contents and its trailing test module."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'r#*"(?:.|\n)*?"#*', '""', text)
    text = re.sub(r'"(\\.|[^"\\])*"', '""', text)
    m = re.search(r"#\[cfg\(test\)\]\s*mod\s+tests\b", text)
    return text[: m.start()] if m else text


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
        for g in PATH.finditer(code):
            parts = g.group(2).strip(":").split("::")
            if g.group(1) == "crate":
                base = []
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
