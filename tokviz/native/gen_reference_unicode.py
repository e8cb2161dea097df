"""Generate tokviz/core/reference_unicode.py: where the regex engines of tiktoken and HF tokenizers
see a character otherwise than the `regex` module that tokviz runs their patterns with.

tiktoken's fancy-regex (over Rust's regex crate) and HF tokenizers' Oniguruma each carry a Unicode
version of their own, older or newer than the `regex` module's: a character assigned in the newest
Unicode is a letter to one engine and unassigned to another (\\p{L} or not), a few characters
change category.  The general category of every code point is read off each library (its regex run
with \\p{Lu}, \\p{Ll}, ... \\p{Cn} on every code point), and \\s as well; where it differs from the
`regex` module's, the character gets a stand-in: a character of the same category on which all
three engines agree (a noncharacter, U+FDD0, for an unassigned one).  tokviz runs a pattern on the
text with those characters replaced (the same length, so the pieces' spans are the same) and the
native tables are generated from the same replacement (gen_unicode_tables.py).

The result is checked: for every category, \\s and the case-insensitive letters of the
contractions, the `regex` module on the replaced code points must match exactly what the library
matches on the originals.

Run from the repository root after upgrading `tiktoken`, `tokenizers` or `regex`, then
gen_unicode_tables.py, and commit the results:

    python3 tokviz/native/gen_reference_unicode.py
"""
from __future__ import annotations

from pathlib import Path

import regex

MAX_CP = 0x110000
BLOCK = 4096
CATEGORIES = ("Lu Ll Lt Lm Lo Mn Mc Me Nd Nl No Pc Pd Ps Pe Pi Pf Po Sm Sc Sk So Zs Zl Zp Cc Cf Co Cn").split()
CHECKED = [rf"\p{{{gc}}}" for gc in CATEGORIES] + [r"\s", r"\p{L}", r"\p{N}", r"\p{M}", r"[^\s\p{L}\p{N}]"] + [
    f"(?i:{x})" for x in "sdmtlvre"]
UNASSIGNED_STAND_IN = 0xFDD0  # a noncharacter: unassigned in every Unicode version
OUT = Path(__file__).resolve().parents[1] / "core" / "reference_unicode.py"


def _code_points() -> list[int]:
    return [cp for cp in range(MAX_CP) if not 0xD800 <= cp < 0xE000]


def _blocks(cps):
    for k in range(0, len(cps), BLOCK):
        yield cps[k:k + BLOCK]


def regex_matches(pattern: str, cps) -> set[int]:
    """The code points of `cps` that the `regex` module matches with the one-character `pattern`."""
    return {ord(m.group()) for m in regex.finditer(pattern, "".join(map(chr, cps)))}


def tiktoken_matches(pattern: str, cps) -> set[int]:
    """... that tiktoken matches: an Encoding of the 256 bytes with `pattern` as its split encodes
    only the text its regex matches (what lies between matches is dropped)."""
    import tiktoken

    enc = tiktoken.Encoding("probe", pat_str=pattern, mergeable_ranks={bytes([b]): b for b in range(256)},
                            special_tokens={})
    out: set[int] = set()
    for block in _blocks(cps):
        out.update(map(ord, bytes(enc.encode_ordinary("".join(map(chr, block)))).decode("utf-8")))
    return out


def onig_matches(pattern: str, cps) -> set[int]:
    """... that HF tokenizers' Oniguruma matches: a Split that removes the matches keeps the rest."""
    from tokenizers import Regex, pre_tokenizers

    split = pre_tokenizers.Split(Regex(pattern), behavior="removed")
    out: set[int] = set()
    for block in _blocks(cps):
        kept = bytearray(len(block))
        for _, (a, b) in split.pre_tokenize_str("".join(map(chr, block))):
            kept[a:b] = b"\1" * (b - a)
        out.update(cp for cp, k in zip(block, kept) if not k)
    return out


ENGINES = {"rust": tiktoken_matches, "onig": onig_matches}


def categories(matches, cps) -> dict[int, str]:
    out: dict[int, str] = {}
    for gc in CATEGORIES:
        for cp in matches(rf"\p{{{gc}}}", cps):
            out[cp] = gc
    return out


def stand_ins(cps) -> dict[str, dict[int, int]]:
    """For each engine, {code point: stand-in} where its category (or \\s) is not the regex module's."""
    mine = categories(regex_matches, cps)
    my_space = regex_matches(r"\s", cps)
    theirs = {name: (categories(matches, cps), matches(r"\s", cps)) for name, matches in ENGINES.items()}
    stable = [cp for cp in cps if cp >= 0x100 and all(
        gc.get(cp) == mine.get(cp) and (cp in space) == (cp in my_space) for gc, space in theirs.values())]
    representative = {}
    for cp in stable:
        representative.setdefault((mine[cp], cp in my_space), cp)
    representative[("Cn", False)] = UNASSIGNED_STAND_IN
    out = {}
    for name, (gc, space) in theirs.items():
        out[name] = {cp: representative[(gc[cp], cp in space)] for cp in cps
                     if gc.get(cp) != mine.get(cp) or (cp in space) != (cp in my_space)}
    return out


def check(name: str, table: dict[int, int], cps) -> None:
    replaced = [table.get(cp, cp) for cp in cps]
    for pattern in CHECKED:
        matched_stand_ins = regex_matches(pattern, sorted(set(replaced)))
        mine = {cp for cp, r in zip(cps, replaced) if r in matched_stand_ins}
        theirs = ENGINES[name](pattern, cps)
        if mine != theirs:
            diff = sorted(mine ^ theirs)[:10]
            raise SystemExit(f"{name}: {pattern} still differs on {[f'U+{cp:04X}' for cp in diff]}: extend the generator")


def _ranges_text(table: dict[int, int]) -> str:
    """'first-last:stand-in' items (hexadecimal) for runs of code points with the same stand-in."""
    runs: list[list[int]] = []
    for cp in sorted(table):
        if runs and runs[-1][1] + 1 == cp and runs[-1][2] == table[cp]:
            runs[-1][1] = cp
        else:
            runs.append([cp, cp, table[cp]])
    items = [f"{a:X}:{s:X}" if a == b else f"{a:X}-{b:X}:{s:X}" for a, b, s in runs]
    lines, line = [], ""
    for item in items:
        if len(line) + len(item) + 1 > 96:
            lines.append(line)
            line = ""
        line = f"{line} {item}" if line else item
    lines.append(line)
    return "\n".join(lines)


def render(tables: dict[str, dict[int, int]]) -> str:
    import tiktoken
    import tokenizers

    out = [
        '"""Generated by tokviz/native/gen_reference_unicode.py from tiktoken '
        f'{tiktoken.__version__}, tokenizers {tokenizers.__version__} and regex {regex.__version__}; do not edit.',
        "",
        "For each regex dialect, the code points whose general category (or \\\\s) the engine of that",
        "dialect sees otherwise than the `regex` module, each with the stand-in that the `regex` module",
        'classes as the engine classes the code point: "first-last:stand-in", hexadecimal."""',
        "",
        f'REGEX_VERSION = "{regex.__version__}"',
        "",
    ]
    rust, onig = tables["rust"], tables["onig"]
    out += ['RUST = """', _ranges_text(rust), '"""', ""]
    out += ["ONIG = RUST", ""] if onig == rust else ['ONIG = """', _ranges_text(onig), '"""', ""]
    return "\n".join(out)


def main() -> None:
    cps = _code_points()
    tables = stand_ins(cps)
    for name, table in tables.items():
        check(name, table, cps)
        print(f"{name}: {len(table)} code points replaced")
    OUT.write_text(render(tables), encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
