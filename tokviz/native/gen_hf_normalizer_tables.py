"""Generate tokviz/core/hf_normalizer_classes.py: where HF tokenizers' Lowercase, StripAccents,
BertNormalizer(strip_accents) and Unicode normal forms treat a character otherwise than this
Python's `unicodedata`.

HF's normalizers carry Unicode versions of their own: Lowercase is Rust's `char::to_lowercase`
(the Unicode of the Rust that built the wheel, newer than Python 3.11's 14.0), StripAccents drops
what its normalization crate counts as a combining mark and BertNormalizer's strip_accents what
the `unicode_categories` crate counts as a non-spacing mark (both older).  Each is read off the
library, one code point at a time after an 'a':

    LOWERCASE       code point -> what Lowercase makes of it, where that is not str.lower's
    STRIP_ACCENTS   the code points StripAccents drops
    BERT_NONSPACING the code points BertNormalizer(strip_accents=True) drops that its NFD keeps
    NORMALIZATION_UNKNOWN  the code points HF's NFC, NFD, NFKC and NFKD do not know (its normalization
                    tables are older than this Python's): characters unicodedata decomposes,
                    reorders (put after 'a', before U+0334 and after U+0345) or composes where HF
                    does not.  HF treats each as an unassigned character: a starter that neither
                    decomposes nor composes (checked: its NFD leaves each alone)

LOWERCASE and NORMALIZATION_UNKNOWN are differences from this Python's `str.lower` and `unicodedata`,
which change with its Unicode version (3.11: 14.0, 3.12: 15.0, 3.13: 15.1), while HF's answers do not:
each run adds what it finds to the committed tables (HF's lowercase of a code point, a code point its
normal forms do not know), so that they hold for every Python.  Run from the repository root with
each Python tokviz supports after upgrading `tokenizers` (--fresh: drop the committed tables first,
with the oldest Python), and commit the result:

    python3 tokviz/native/gen_hf_normalizer_tables.py [--fresh]
"""
from __future__ import annotations

from pathlib import Path

MAX_CP = 0x110000
BLOCK = 2048
OUT = Path(__file__).resolve().parents[1] / "core" / "hf_normalizer_classes.py"


def _code_points() -> list[int]:
    return [cp for cp in range(MAX_CP) if not 0xD800 <= cp < 0xE000]


def _each(normalizer, cps) -> dict[int, str]:
    """What `normalizer` makes of each code point after an 'a' (the 'a' taken off again)."""
    out = {}
    for k in range(0, len(cps), BLOCK):
        block = cps[k:k + BLOCK]
        for cp in block:
            got = normalizer.normalize_str("a" + chr(cp))
            out[cp] = got[1:] if got.startswith("a") else None
    return out


def measure() -> dict:
    from tokenizers import normalizers

    cps = _code_points()
    lower = _each(normalizers.Lowercase(), cps)
    lowercase = {cp: s for cp, s in lower.items() if s != chr(cp).lower()}
    strip = _each(normalizers.StripAccents(), cps)
    strip_accents = {cp for cp, s in strip.items() if s == ""}
    nfd = _each(normalizers.NFD(), cps)
    bert = _each(normalizers.BertNormalizer(clean_text=False, handle_chinese_chars=False, strip_accents=True,
                                            lowercase=False), cps)
    nonspacing = {cp for cp, s in bert.items() if s == "" and nfd[cp] == chr(cp)}
    return {"lowercase": lowercase, "strip_accents": strip_accents, "bert_nonspacing": nonspacing,
            "normalization_unknown": _normalization_unknown(cps)}


def _normalization_unknown(cps) -> set[int]:
    import unicodedata

    from tokenizers import normalizers

    forms = {form: getattr(normalizers, form)() for form in ("NFC", "NFD", "NFKC", "NFKD")}
    unknown = set()
    for cp in cps:
        c = chr(cp)
        for form, hf in forms.items():
            if any(hf.normalize_str(p) != unicodedata.normalize(form, p) for p in ("a" + c, "a" + c + "\u0334", "a\u0345" + c)):
                unknown.add(cp)
    for cp in cps:  # pairs this Python composes and HF does not
        decomposition = unicodedata.decomposition(chr(cp))
        if decomposition and not decomposition.startswith("<"):
            parts = "".join(chr(int(x, 16)) for x in decomposition.split())
            if forms["NFC"].normalize_str(parts) != unicodedata.normalize("NFC", parts):
                unknown.update([cp, *map(ord, parts[1:])])
    known = [cp for cp in unknown if forms["NFD"].normalize_str(chr(cp)) != chr(cp)]
    if known:
        raise SystemExit(f"HF's NFD changes {[hex(cp) for cp in known]}: not unknown to it; extend the generator")
    return unknown


def _lines(items: list[str]) -> str:
    lines, line = [], ""
    for item in items:
        if len(line) + len(item) + 1 > 96:
            lines.append(line)
            line = ""
        line = f"{line} {item}" if line else item
    lines.append(line)
    return "\n".join(lines)


def _ranges_text(cps) -> str:
    runs: list[list[int]] = []
    for cp in sorted(cps):
        if runs and runs[-1][1] + 1 == cp:
            runs[-1][1] = cp
        else:
            runs.append([cp, cp])
    return _lines([f"{a:X}" if a == b else f"{a:X}-{b:X}" for a, b in runs])


def render(tables: dict) -> str:
    import tokenizers

    lowercase = _lines([f"{cp:X}:{'+'.join(f'{ord(c):X}' for c in s)}" for cp, s in sorted(tables["lowercase"].items())])
    return "\n".join([
        f'"""Generated by tokviz/native/gen_hf_normalizer_tables.py from HF tokenizers {tokenizers.__version__}; '
        "do not edit.",
        "",
        "LOWERCASE: code point:its lowercase (characters joined by +), where HF's Lowercase is not str.lower;",
        "STRIP_ACCENTS, BERT_NONSPACING: code point ranges (hexadecimal, inclusive) that HF's StripAccents and",
        'BertNormalizer(strip_accents=True) drop; tokviz.core.normalizers reads them."""',
        "",
        f'TOKENIZERS_VERSION = "{tokenizers.__version__}"',
        "",
        'LOWERCASE = """', lowercase, '"""', "",
        'STRIP_ACCENTS = """', _ranges_text(tables["strip_accents"]), '"""', "",
        'BERT_NONSPACING = """', _ranges_text(tables["bert_nonspacing"]), '"""', "",
        'NORMALIZATION_UNKNOWN = """', _ranges_text(tables["normalization_unknown"]), '"""', "",
    ])


def _parse_ranges(text: str) -> set[int]:
    out = set()
    for item in text.split():
        a, _, b = item.partition("-")
        out.update(range(int(a, 16), int(b or a, 16) + 1))
    return out


def committed() -> dict:
    """The tables in OUT as sets and a dict (empty where OUT is missing)."""
    if not OUT.exists():
        return {"lowercase": {}, "strip_accents": set(), "bert_nonspacing": set(), "normalization_unknown": set()}
    module: dict = {}
    exec(compile(OUT.read_text(encoding="utf-8"), str(OUT), "exec"), module)
    lowercase = {}
    for item in module["LOWERCASE"].split():
        cp, _, chars = item.partition(":")
        lowercase[int(cp, 16)] = "".join(chr(int(c, 16)) for c in chars.split("+"))
    return {"lowercase": lowercase, "strip_accents": _parse_ranges(module["STRIP_ACCENTS"]),
            "bert_nonspacing": _parse_ranges(module["BERT_NONSPACING"]),
            "normalization_unknown": _parse_ranges(module["NORMALIZATION_UNKNOWN"])}


def merged(old: dict, new: dict) -> dict:
    """The union of two runs' tables (with other Pythons); HF's own answers must agree."""
    clash = [hex(cp) for cp, s in new["lowercase"].items() if old["lowercase"].get(cp, s) != s]
    for name in ("strip_accents", "bert_nonspacing"):
        if old[name] and old[name] != new[name]:
            clash.append(name)
    if clash:
        raise SystemExit(f"HF answers otherwise than the committed tables say ({clash[:10]}): "
                         "another tokenizers version? run with --fresh")
    return {"lowercase": {**old["lowercase"], **new["lowercase"]}, "strip_accents": new["strip_accents"],
            "bert_nonspacing": new["bert_nonspacing"],
            "normalization_unknown": old["normalization_unknown"] | new["normalization_unknown"]}


def main(argv: list[str]) -> None:
    tables = measure()
    if "--fresh" not in argv:
        tables = merged(committed(), tables)
    OUT.write_text(render(tables), encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
