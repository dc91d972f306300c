#!/usr/bin/env python3
"""Proves that test/lint/structure.py catches what it claims to. It writes small src/ trees
in a temporary folder and runs the lint on each: a long function, a function just short
enough, look-alikes that are not functions (an initializer, a struct, braces in strings
and comments), a loop of two and of three files, calls one way only, a static namesake,
and the allow-list. Speaks TAP."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LINT = os.path.join(HERE, "structure.py")

n = 0
failed = 0


def report(ok, what, diag=""):
    global n, failed
    n += 1
    print(("ok" if ok else "not ok") + f" {n} - {what}")
    if not ok:
        failed += 1
        for line in diag.splitlines():
            print(f"# {line}")


def run(tree, allowed=""):
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "src")
        for rel, text in tree.items():
            path = os.path.join(src, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as fh:
                fh.write(text)
        env = dict(os.environ, LINT_SRC=src, LINT_ALLOWED=allowed)
        p = subprocess.run([sys.executable, LINT], env=env, capture_output=True, text=True)
        return p.returncode, p.stdout


def body(lines):
    return "".join(f"    x += {i};\n" for i in range(lines))


def fn(name, inner, static=False):
    # The header line, '{', inner lines, the return, '}': inner + 4 lines in all.
    return (("static " if static else "") + f"int {name}(int x)\n{{\n" + body(inner)
            + "    return x;\n}\n")


# 1. A function of 151 lines fails; one of 150 passes.
rc, out = run({"a/long.c": fn("too_long", 147) + fn("just_fits", 146)})
report(rc != 0, "a 151-line function fails the lint", out)
report("long.c:1: too_long is 151 lines" in out, "it is named with its file, line and length",
       out)
report("just_fits" not in out, "a 150-line function is not reported", out)

# 2. Look-alikes: an initializer, a struct, a multi-line header, braces in strings and
#    comments, a function-like macro; none is a long function, and the real one is found.
look = ("static const int table[] = {\n" + "    1,\n" * 200 + "};\n"
        "struct big {\n" + "    int f;\n" * 200 + "};\n"
        "#define M(x) \\\n    do { x; } while (0)\n"
        "static enum kind\nsplit_header(int a,\n             int b)\n{\n"
        '    const char *s = "{{{{";\n    /* { { */\n    char c = \'{\';\n'
        "    return a + b + s[0] + c;\n}\n")
rc, out = run({"a/look.c": look})
report(rc == 0, "an initializer, a struct, braces in strings and comments pass", out)

# 3. A call loop of two files fails, naming both and who calls whom.
loop2 = {"b/one.c": "int one(void) { return two(); }\n",
         "b/two.c": "int two(void) { return 0; }\nint twice(void) { return one(); }\n"}
rc, out = run(loop2)
report(rc != 0, "two files calling each other fail", out)
report("loop: src/b/one.c, src/b/two.c" in out and "src/b/one.c calls src/b/two.c" in out,
       "the loop is named with its calls", out)

# 4. A loop of three; calls one way only pass; a loop across folders is not a folder's loop.
rc, out = run({"c/x.c": "int x(void) { return y(); }\n",
               "c/y.c": "int y(void) { return z(); }\n",
               "c/z.c": "int z(void) { return x(); }\n"})
report(rc != 0 and "src/c/x.c, src/c/y.c, src/c/z.c" in out, "a loop of three fails", out)
rc, out = run({"d/x.c": "int x(void) { return y(); }\n",
               "d/y.c": "int y(void) { return z(); }\n",
               "d/z.c": "int z(void) { return 1; }\n",
               "e/w.c": "int w(void) { return x(); }\n",
               "d/v.c": "int v(void) { return w(); }\n"})
report(rc == 0, "calls one way, and a loop through another folder, pass", out)

# 5. A static function of the same name in the other file is not a call into it; a name in
#    a comment or a string is not a call.
rc, out = run({"f/p.c": "int p(void) { return q(); }\n",
               "f/q.c": "int q(void) { return 0; }\nstatic int p(void) { return 1; }\n"
                        "/* p() */ const char *s = \"p()\";\n"})
report(rc == 0, "a static namesake, a comment and a string make no loop", out)

# 6. The allow-list: an allowed long function passes; an allowed one that is short fails.
rc, out = run({"g/sw.c": fn("dispatch", 200)}, "g/sw.c:dispatch")
report(rc == 0, "an allowed long function passes", out)
rc, out = run({"g/sw.c": fn("dispatch", 10)}, "g/sw.c:dispatch")
report(rc != 0 and "drop it from ALLOWED" in out, "an allowed function that is short fails",
       out)

# 7. The real tree passes.
p = subprocess.run([sys.executable, LINT], capture_output=True, text=True)
report(p.returncode == 0, "src/ passes", "\n".join(
    line for line in p.stdout.splitlines() if line.startswith(("not ok", "#"))))

print(f"1..{n}")
sys.exit(1 if failed else 0)
