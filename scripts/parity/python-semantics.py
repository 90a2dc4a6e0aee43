#!/usr/bin/env python3
"""
Prints what CPython's built-ins give on the inputs NeuroEval's Python-semantics
module (src/core/python) must reproduce: json.loads, str(), repr(), float(),
int(), truthiness, str.strip(), str.lower(), sorted() of strings,
str.splitlines() and the lines of a file read in text mode. An exception is
written as {"raises": "<name>"}. Regenerate the fixture with

    python3 scripts/parity/python-semantics.py > test/fixtures/python/cpython-semantics.json

Standard library only.
"""
import json
import os
import sys
import tempfile


def outcome(f):
    try:
        return {"value": f()}
    except BaseException as e:  # noqa: BLE001 - the exception's name is the expected value
        return {"raises": type(e).__name__}


JSON_TEXTS = [
    "1", "-0", "1.0", "-0.0", "100.0", "0.1", "1e15", "1e16", "1E16", "1.5e16", "123456789012345678",
    "12345678901234567890123", "1e-5", "0.0001", "0.00012", "2.5e-7", "1.5e300", "1e400", "-1e400", "1e22",
    "NaN", "Infinity", "-Infinity", "true", "false", "null", "5e-324", "0.30000000000000004",
    '"plain"', '"a\\u00a0b"', '"\\u200b"', '"x\\"y"', '"it\'s"', '"both \' and \\""', '"\\ud800"',
    '"\\ud83d\\ude00"', '"\\u0378"', '"\\u0085"', '"\\u00ad"', '"\\ue000"', '"\\t\\n\\r\\u0007\\u007f\\u0000"',
    '"\\\\"', '"\\u2028\\u3000\\u1680"', '"caf\\u00e9 \\u4e2d"', '"\\ufeff"', '"\\u00a0"',
    '[1, 1.0, "x", null, true, false, NaN]', '[]', '{}', '{"b": 1, "a": [0.5, "it\'s"], "b": 2}',
    '{"k": {"n": [1e16, -0.0, 12345678901234567890]}}', '["\\u3000", "\\u2028", "\\u200b\\u00a0"]',
    '{"\\u00e9": "\\u0085"}', ' [1 , 2 ] ', '"\\/"', '"\\b\\f"',
]

BAD_JSON = [
    "[1,]", "01", "\ufeff{}", '"a\tb"', "nan", "-NaN", "{} x", "1" * 4301, '{"a" 1}', "{'a': 1}", '"\\x"', "[" * 2000 + "]" * 2000,
    "", " ", '{"a":1}\x0c', "1.", ".5", "-", "+1", "[1 2]", '"\\ud83d\\u0041"', "tru", "Infinity1", '"\\u12"',
]

FLOAT_TEXTS = [
    "1.5", " 1.5 ", "\x1c1.5", "1.5\x1f", "\x851.5", "\xa01.5\u3000", "\u200b1", "\u0661.\u0665", "1_0.5", "1__0", "_1", "1_",
    "inf", "-Infinity", "nAn", "+nan", "-nan", "1e500", "-1e500", "0x10", " 1 ", "\u20281", "1\x00", "\uff11\uff12", "1.5e", ".5",
    "5.", "\U0001d7cf", "\ufeff1", "1 2", "", " ", "1e1_0", "1_e5", "infinit", "infinityy", "\t\n\x0b\x0c\r7\r", "\u2007 3",
    "\u0967\u0968\u0969", "1.5\u00a0", "90%", "0.9", "1_000.000_1", "+.5e-3", "e5", "1e", "--1", "\u0e51", "\U00016a60",
]

INT_TEXTS = [
    "1", " 12 ", "\x1c1", "\x851", "\u0661\u0662", "1_0", "1.0", "1e3", "+_1", "0b1", "00", "-0", "\U0001d7cf\U0001d7d0",
    "\u2028 7", "1" * 4300, "1" * 4301, "1_" * 10 + "1", "", "+5", "-12", "1_500", "１２３", "12 3", "0x1F", "1__0", "\u00a0 9\u3000",
]

INT_JSON = ["true", "false", "1.9", "-1.9", "NaN", "Infinity", "-Infinity", "1e20", "null", "[1]", "{}", "12345678901234567890", "0.0", "-0.0"]

FLOAT_JSON = ["true", "false", "5", "1.5", "null", "[1]", "{}", "1" + "0" * 400, "1" + "0" * 300, "9007199254740993", "-0.0"]

STRIP_TEXTS = [" a ", "\x1ca\x1f", "\x85a\u2028", "\ufeffa\ufeff", "\u200ba\u200b", "\u3000\u00a0a\u202f", "\t\n\x0b\x0c\r a", "\x00a\x00", ""]

LOWER_TEXTS = ["ABC", "\u0130", "\u039f\u0394\u039f\u03a3", "\u03a3", "A\u03a3B", "\u1e9e", "\u2c2f", "\U00010400", "\u00c9COLE"]

SORT_LISTS = [
    ["\uffff", "\U00010000", "a", "B", "\u00e9"],
    ["b", "a", "a", "", "A", "\u00e0", "z"],
    ["\ue000", "\U0001f600", "\ud7ff", "~"],
    ["tumor", "stroke", "normal", "multiple sclerosis", "other abnormalities", "undetermined"],
]

SPLIT_TEXTS = [
    "a\x1cb\x1dc\x1ed\x85e\u2028f\x0bg\x0ch\r\ni\rj", "a\n", "a\n\nb", "", "\n", "a\r", "a\r\r\nb", "x\u2029y\x1fz", "no break",
]


def file_lines(text):
    fd, path = tempfile.mkstemp()
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        with open(path, "r", encoding="utf-8") as f:
            return [line[:-1] if line.endswith("\n") else line for line in f]
    finally:
        os.remove(path)


def describe(v):
    return {"str": str(v), "repr": repr(v), "type": type(v).__name__, "truthy": bool(v)}


def main():
    out = {
        "python": sys.version.split()[0],
        "json": [[t, outcome(lambda t=t: describe(json.loads(t)))] for t in JSON_TEXTS],
        "json_errors": [[t, outcome(lambda t=t: describe(json.loads(t)))] for t in BAD_JSON],
        "float_text": [[t, outcome(lambda t=t: repr(float(t)))] for t in FLOAT_TEXTS],
        "float_json": [[t, outcome(lambda t=t: repr(float(json.loads(t))))] for t in FLOAT_JSON],
        "int_text": [[t, outcome(lambda t=t: str(int(t)))] for t in INT_TEXTS],
        "int_json": [[t, outcome(lambda t=t: str(int(json.loads(t))))] for t in INT_JSON],
        "strip": [[t, t.strip()] for t in STRIP_TEXTS],
        "lower": [[t, t.lower()] for t in LOWER_TEXTS],
        "sorted": [[xs, sorted(set(xs))] for xs in SORT_LISTS],
        "splitlines": [[t, t.splitlines()] for t in SPLIT_TEXTS],
        "file_lines": [[t, file_lines(t)] for t in SPLIT_TEXTS],
    }
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
