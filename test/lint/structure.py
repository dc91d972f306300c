#!/usr/bin/env python3
"""Checks the shape of src/: how long functions are, and which files of a folder depend on
which. Speaks TAP: one case per source file for the length rule, one per folder for loops.

Rules:
  length  no function body runs over MAX_LINES lines, counted from the line that names the
          function to its closing brace, except the dispatch switches listed in ALLOWED
          (file and function): a switch over opcodes or message types reads best whole.
  loop    within one folder, the .c files do not call each other in a loop: a.c depends on
          b.c when a.c names a function that b.c defines and does not keep static, whatever
          header declares it (a shared header such as net_impl.h hides no loop). So a loop
          is what a reader meets: to follow a.c you need b.c, and to follow b.c, a.c.
          Headers alone do not count: a private header that includes its public one
          (fees_impl.h, fees.h) is one file's two faces.

Comments, string and character literals are blanked before anything is looked for. The
tree checked is $LINT_SRC if set (a src/ root; the self-test points it at fixtures), else
$BITNODE_SRCDIR/src, else the src/ beside this script.
"""
import os
import re
import sys

MAX_LINES = 150
# The dispatch switch, a case per opcode.
ALLOWED = {
    ("script/interpreter.c", "exec_opcode"),
}
# What is still to be split, reported as TAP "TODO" (expected to fail, not counted as a
# failure): an entry here that passes is an unexpected pass, which fails the suite, so the
# list can only shrink. Loops are named by their files, sorted, without ".c".
DEBT_LONG = set()
DEBT_LOOPS = set()
if os.environ.get("LINT_ALLOWED") is not None:  # the self-test's own list
    ALLOWED = {tuple(x.split(":", 1)) for x in os.environ["LINT_ALLOWED"].split()}
    DEBT_LONG, DEBT_LOOPS = set(), set()

KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do", "else", "case",
            "defined", "_Static_assert", "static_assert", "__attribute__", "_Alignof",
            "alignof", "typeof", "__typeof__", "_Generic"}


def strip(text):
    """Blanks comments, strings and character literals, and preprocessor lines (with their
    continuations); keeps every newline so line numbers stay."""
    out = []
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start:
            j = i
            while j < n and text[j] in " \t":
                j += 1
            if j < n and text[j] == "#":
                # A preprocessor line: keep an #include's target, blank the rest.
                end = j
                while end < n and text[end] != "\n":
                    if text[end] == "\\" and end + 1 < n and text[end + 1] == "\n":
                        end += 2
                        continue
                    end += 1
                line = text[i:end]
                m = re.match(r'\s*#\s*include\s*("[^"]*"|<[^>]*>)', line)
                keep = m.group(0) if m else ""
                out.append(keep + "".join("\n" if ch == "\n" else " "
                                          for ch in line[len(keep):]))
                i = end
                at_line_start = False
                continue
        at_line_start = False
        if c == "/" and i + 1 < n and text[i + 1] == "*":
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("".join("\n" if ch == "\n" else " " for ch in text[i:end]))
            i = end
            continue
        if c == "/" and i + 1 < n and text[i + 1] == "/":
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + c if j - i >= 2 else c)
            i = j
            continue
        if c == "\n":
            at_line_start = True
        out.append(c)
        i += 1
    return "".join(out)


def functions(stripped):
    """Yields (name, first line, last line, static) for each function defined at file
    scope: a '{' at depth 0 whose text since the last ';', '}' or '{' ends in
    'name(...)' (an attribute or two may follow)."""
    depth = 0
    start = 0  # where the current top-level declaration's text begins
    line = 1
    open_line = 0
    current = None
    i, n = 0, len(stripped)
    while i < n:
        c = stripped[i]
        if c == "\n":
            line += 1
        elif c == "{":
            if depth == 0:
                head = stripped[start:i]
                current = None
                m = re.search(r"([A-Za-z_]\w*)\s*\(([^;{}]*)\)\s*(?:__attribute__\s*\(\(.*\)\)\s*)*$",
                              head, re.S)
                if m and m.group(1) not in KEYWORDS and "=" not in head[:m.start()]:
                    first = line - head[m.start(1):].count("\n")
                    static = re.search(r"\bstatic\b", head[:m.start(1)]) is not None
                    current = (m.group(1), first, static)
                open_line = line
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                if current:
                    yield current[0], current[1], line, current[2]
                current = None
                start = i + 1
        elif c == ";" and depth == 0:
            start = i + 1
        i += 1
    del open_line


def sources(src):
    for root, dirs, files in os.walk(src):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                p = os.path.join(root, f)
                yield os.path.relpath(p, src), p


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.environ.get("LINT_SRC") or os.path.join(
        os.environ.get("BITNODE_SRCDIR") or os.path.join(here, "..", ".."), "src")
    if not os.path.isdir(src):
        print(f"Bail out! no source tree at {src}")
        return 1
    n = failed = 0

    def report(ok, what, diags=(), todo=False):
        nonlocal n, failed
        n += 1
        print(("ok" if ok else "not ok") + f" {n} - {what}" + (" # TODO still to split" if todo else ""))
        if ok == todo:
            failed += 1
        if not ok:
            for d in diags:
                print(f"# {d}")

    files = {}
    for rel, path in sources(src):
        with open(path, encoding="utf-8", errors="replace") as fh:
            files[rel] = strip(fh.read())

    # length: one case per .c file
    defined = {}  # folder -> {function name: defining .c}
    own = {}  # .c -> every function it defines, static or not (a static namesake shadows)
    seen_allowed = set()
    for rel, text in files.items():
        if not rel.endswith(".c"):
            continue
        bad = []
        folder = os.path.dirname(rel)
        for name, first, last, static in functions(text):
            own.setdefault(rel, set()).add(name)
            if not static:
                defined.setdefault(folder, {})[name] = rel
            length = last - first + 1
            if (rel, name) in ALLOWED:
                if length > MAX_LINES:
                    seen_allowed.add((rel, name))
                continue
            todo = (rel, name) in DEBT_LONG
            if length > MAX_LINES or todo:
                report(length <= MAX_LINES, f"length src/{rel}: {name}",
                       [f"length: {rel}:{first}: {name} is {length} lines "
                        f"(at most {MAX_LINES})"], todo)
            if length > MAX_LINES and not todo:
                bad.append(f"length: {rel}:{first}: {name} is {length} lines")
        report(not bad, f"length src/{rel}", bad)
    stale = sorted(f"{f}:{fn}" for f, fn in ALLOWED - seen_allowed)
    report(not stale, "every allowed long function exists and is long",
           [f"allowed: {s} is not over {MAX_LINES} lines (or gone): drop it from ALLOWED"
            for s in stale])
    gone = sorted(f"{f}:{fn}" for f, fn in DEBT_LONG
                  if f not in files or fn not in own.get(f, set()))
    report(not gone, "every function still to split exists",
           [f"debt: {g} is not defined there: drop it from DEBT_LONG" for g in gone])

    # loop: one case per folder
    folders = sorted({os.path.dirname(r) for r in files if os.path.dirname(r)})
    ident = re.compile(r"\b[A-Za-z_]\w*\b")
    for folder in folders:
        mine = [r for r in files if os.path.dirname(r) == folder]

        def unit(rel):
            return os.path.splitext(rel)[0]

        edges = {unit(r): set() for r in mine if r.endswith(".c")}
        names = defined.get(folder, {})
        for rel in mine:
            if not rel.endswith(".c"):
                continue
            a = unit(rel)
            for word in set(ident.findall(files[rel])) - own.get(rel, set()):
                b = names.get(word)
                if b and unit(b) != a:
                    edges[a].add(unit(b))
        cycles = [sorted(c) for c in strongly_connected(edges)]
        named = {" ".join(c): c for c in cycles}
        debts = sorted(d for d in DEBT_LOOPS if d.split()[0].rsplit("/", 1)[0] == folder)
        for d in debts:
            report(d not in named, f"loop src/{folder}/: {d}",
                   loop_diags(named.get(d, []), edges), True)
        new = [c for key, c in named.items() if key not in DEBT_LOOPS]
        report(not new, f"loop src/{folder}/",
               [line for c in new for line in loop_diags(c, edges)])

    print(f"1..{n}")
    return 1 if failed else 0


def loop_diags(comp, edges):
    if not comp:
        return []
    out = ["loop: " + ", ".join(f"src/{c}.c" for c in comp)]
    for a in comp:
        outs = sorted(b for b in edges[a] if b in comp)
        out.append(f"  src/{a}.c calls " + ", ".join(f"src/{b}.c" for b in outs))
    return out


def strongly_connected(edges):
    """Tarjan's algorithm; returns the components of more than one node."""
    index = {}
    low = {}
    stack = []
    on = set()
    out = []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


if __name__ == "__main__":
    sys.exit(main())
