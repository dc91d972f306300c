"""JSON whose numbers keep the text they were written with (1e3 stays 1e3, 1300.0 stays
1300.0), as Bitcoin Core's UniValue keeps them: for the table of Core's answers, written by
contrib/devtools/record-core-answers.py and replayed by rpc_argcheck.py."""

import json


class RawFloat(float):
    """A JSON number with a fraction or exponent, remembering its text."""

    def __new__(cls, text):
        f = float.__new__(cls, text)
        f.text = text
        return f


def loads(text):
    return json.loads(text, parse_float=RawFloat)


def dump(v):
    """Compact JSON text of v; a value with a .text (RawFloat, or any number literal the
    caller made) is written as that text."""
    if hasattr(v, "text"):
        return v.text
    if v is None or isinstance(v, (bool, int, float, str)):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(dump(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(json.dumps(k) + ": " + dump(x) for k, x in v.items()) + "}"
    raise TypeError(repr(v))
