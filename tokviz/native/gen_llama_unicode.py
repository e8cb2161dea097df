"""Generate tokviz/core/llama/unicode_data.py: where llama.cpp classes a character otherwise than
the `regex` module that tokviz runs GGUF pre-tokenizers with.

llama.cpp carries its own Unicode tables (vendor/llama.cpp/src/unicode-data.cpp, generated from
some Unicode version by its scripts/gen-unicode-data.py): one class per code point (number,
letter, separator, mark, punctuation, symbol, control, or undefined) and a whitespace set.  Its
hand-written splitters, its std::regex rewrite to one character per class, its digit groups and its
WordPiece all read those.  This script parses the two tables from the llama-cpp-python sdist and
writes the code points whose (class, whitespace) differs from what the `regex` module says
(\\p{N}, \\p{L}, ... \\s), as ranges "first-last:class", class one of N L Z M P S C U
(U: undefined), followed by "w" where llama.cpp counts the character as whitespace.

Run from the repository root, with the sdist unpacked (pip download --no-deps --no-binary :all:
llama-cpp-python==VERSION, then tar xf), and commit the result:

    python3 tokviz/native/gen_llama_unicode.py path/to/llama_cpp_python-VERSION
"""
from __future__ import annotations

import re
import sys
import unicodedata
from pathlib import Path

import regex

MAX_CP = 0x110000
OUT = Path(__file__).resolve().parents[1] / "core" / "llama" / "unicode_data.py"
# llama.cpp's unicode_cpt_flags category bits (unicode.h)
FLAG_CLASS = {0x0001: "U", 0x0002: "N", 0x0004: "L", 0x0008: "Z", 0x0010: "M", 0x0020: "P", 0x0040: "S",
              0x0080: "C"}
REGEX_CLASSES = regex.compile(r"(?P<N>\p{N})|(?P<L>\p{L})|(?P<Z>\p{Z})|(?P<M>\p{M})|(?P<P>\p{P})|(?P<S>\p{S})"
                              r"|(?P<C>[\p{Cc}\p{Cf}\p{Co}\p{Cs}])")
REGEX_SPACE = regex.compile(r"\s")


def _table(source: str, name: str) -> str:
    start = source.index(name)
    return source[start:source.index("};", start)]


def llama_classes(source: str) -> tuple[list[str], set[int]]:
    """(class letter per code point, whitespace code points) from unicode-data.cpp's text."""
    starts = [(int(a, 16), int(b, 16)) for a, b in
              re.findall(r"\{0x([0-9A-Fa-f]+), 0x([0-9A-Fa-f]+)\}", _table(source, "unicode_ranges_flags"))]
    classes = ["U"] * MAX_CP
    for (first, flags), (end, _) in zip(starts, starts[1:]):
        kind = FLAG_CLASS[flags & 0xFF]
        classes[first:min(end, MAX_CP)] = [kind] * (min(end, MAX_CP) - first)
    body = _table(source, "unicode_set_whitespace")
    spaces = {int(h, 16) for h in re.findall(r"0x([0-9A-Fa-f]+)", body.split("=", 1)[1])}
    return classes, spaces


def llama_maps(source: str) -> tuple[dict[int, int], dict[int, int]]:
    """(lowercase map, NFD first-code-point map) from unicode-data.cpp's text."""
    pairs = re.findall(r"\{0x([0-9A-Fa-f]+), 0x([0-9A-Fa-f]+)\}", _table(source, "unicode_map_lowercase ="))
    lower = {int(a, 16): int(b, 16) for a, b in pairs}
    nfd = {}
    for a, b, d in re.findall(r"\{0x([0-9A-Fa-f]+), 0x([0-9A-Fa-f]+), 0x([0-9A-Fa-f]+)\}",
                              _table(source, "unicode_ranges_nfd =")):
        nfd.update(dict.fromkeys(range(int(a, 16), int(b, 16) + 1), int(d, 16)))
    return lower, nfd


def python_lower(cp: int) -> int:
    """The one character tokviz's WordPiece lowercases to in Python (str.lower's first)."""
    return ord(chr(cp).lower()[0])


def python_nfd(cp: int) -> int:
    return ord(unicodedata.normalize("NFD", chr(cp))[0])


def _ranges(pairs) -> str:
    """(code point, value) pairs, sorted, as "first-last:value" ranges of consecutive code points
    sharing a value (hexadecimal where the value is a code point)."""
    ranges: list[list] = []
    for cp, value in pairs:
        if ranges and ranges[-1][1] == cp - 1 and ranges[-1][2] == value:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp, value])
    items = [f"{a:X}:{v}" if a == b else f"{a:X}-{b:X}:{v}" for a, b, v in ranges]
    lines, line = [], ""
    for item in items:
        if len(line) + len(item) + 1 > 100:
            lines.append(line)
            line = ""
        line = f"{line} {item}" if line else item
    lines.append(line)
    return "\n".join(lines)


def regex_class(cp: int) -> str:
    m = REGEX_CLASSES.match(chr(cp))
    return m.lastgroup if m else "U"


def main() -> None:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("/tmp/llsdist/llama_cpp_python-0.3.36")
    source = (root / "vendor/llama.cpp/src/unicode-data.cpp").read_text()
    version = re.search(r'__version__ = "([^"]+)"', (root / "llama_cpp/__init__.py").read_text()).group(1)
    classes, spaces = llama_classes(source)
    differ = []
    for cp in range(MAX_CP):
        if 0xD800 <= cp < 0xE000:
            continue  # (no text holds a lone surrogate here)
        mine = classes[cp] + ("w" if cp in spaces else "")
        theirs = regex_class(cp) + ("w" if REGEX_SPACE.match(chr(cp)) else "")
        if mine != theirs:
            differ.append((cp, mine))
    lower, nfd = llama_maps(source)
    lower_differ = [(cp, f"{lower.get(cp, cp):X}") for cp in range(MAX_CP)
                    if not 0xD800 <= cp < 0xE000 and lower.get(cp, cp) != python_lower(cp)]
    nfd_differ = [(cp, f"{nfd.get(cp, cp):X}") for cp in range(MAX_CP)
                  if not 0xD800 <= cp < 0xE000 and nfd.get(cp, cp) != python_nfd(cp)]
    OUT.write_text(
        f'"""Generated by tokviz/native/gen_llama_unicode.py from llama-cpp-python {version}\'s\n'
        f"vendor/llama.cpp/src/unicode-data.cpp, regex {regex.__version__} and Python's unicodedata\n"
        f"{unicodedata.unidata_version}; do not edit.\n\n"
        "DIFFERENT: the code points whose class llama.cpp's tables give otherwise than the `regex`\n"
        'module, "first-last:class" (hexadecimal), class one of N L Z M P S C U (U: undefined), "w"\n'
        "after it where llama.cpp counts the character as whitespace.  LOWERCASE, NFD: where\n"
        "llama.cpp's lowercase (one code point) and its NFD's first code point differ from Python's\n"
        '(str.lower, unicodedata), "first-last:code point"."""\n\n'
        f'LLAMA_CPP_PYTHON_VERSION = "{version}"\n'
        f'REGEX_VERSION = "{regex.__version__}"\n'
        f'UNIDATA_VERSION = "{unicodedata.unidata_version}"\n\n'
        f"WHITESPACE = ({', '.join(f'0x{cp:X}' for cp in sorted(spaces))})\n\n"
        f'DIFFERENT = """\n{_ranges(differ)}\n"""\n\n'
        f'LOWERCASE = """\n{_ranges(lower_differ)}\n"""\n\n'
        f'NFD = """\n{_ranges(nfd_differ)}\n"""\n')
    print(f"wrote {OUT}: classes {len(differ)}, lowercase {len(lower_differ)}, NFD {len(nfd_differ)} code points")


if __name__ == "__main__":
    main()
