#!/usr/bin/env python3
"""Writes the table of doc/bitcoin-conf.md from src/bitnoded-options.c: every option of
Bitcoin Core's that bitnoded accepts without doing it (with the reason it logs), accepts only
in its off form, or refuses. test/lint/conf_compat.sh fails when the doc is not current.

    contrib/devtools/gen-conf-compat.py > table.md
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "..", "src", "bitnoded-options.c")


def c_strings(text):
    return "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', text))


def main():
    src = open(SRC).read()
    macros = {m.group(1): c_strings(m.group(2))
              for m in re.finditer(r'#define (NO_\w+) ((?:"[^"]*"\s*)+)', src)}
    rows = []
    # One entry: from '{"name",' to the '},' that closes it (help strings hold no '},').
    for m in re.finditer(r'\{"([a-z0-9-]+)",\s*([A-Z_|\s]+),\s*ARGS_CAT_\w+,(.*?)\},\s*\n',
                         src, re.S):
        name, flags, rest = m.group(1), m.group(2), m.group(3)
        if "ARG_IGNORED" in flags:
            r = re.search(r"ARG_REASON\((.*)\)\s*$", rest.strip(), re.S)
            reason = r.group(1) if r else ""
            for k, v in macros.items():
                reason = reason.replace(k, '"%s"' % v)
            rows.append((name, "accepted, ignored", c_strings(reason)))
        elif "ARG_NOT_IMPL" in flags:
            rows.append((name, "refused by name", "not implemented yet"))
        elif "ARG_ONLY_OFF" in flags:
            rows.append((name, "accepted off only", "what bitnode does anyway"))
    print("| option | bitnoded | why |")
    print("|---|---|---|")
    for name, what, why in sorted(rows):
        print("| `-%s` | %s | %s |" % (name, what, why))
    return 0


if __name__ == "__main__":
    sys.exit(main())
