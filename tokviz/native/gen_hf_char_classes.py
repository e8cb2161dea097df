"""Generate tokviz/core/hf_char_classes.py: the character classes HF tokenizers' pre-tokenizers use,
read off HF tokenizers itself (its pre_tokenize_str on every code point).

HF's pre-tokenizers do not share one Unicode version: Digits asks Rust's `char::is_numeric` (the
Unicode of the Rust that built the wheel), Punctuation and BertPreTokenizer the
`unicode_categories` crate (an older Unicode), Whitespace an Oniguruma `\\w` (Oniguruma's Unicode),
UnicodeScripts a table of Unicode 8.0's scripts.  No single `unicodedata` matches all of them, so
the classes are measured on the library itself, each code point put between two probe characters
whose class is known:

    NUMERIC      Digits(individual_digits=True) isolates it between two 'a's
    PUNCTUATION  Punctuation() isolates it between two 'a's
    WORD         Whitespace() keeps it in one piece with the 'a's around it
    SPACE        Whitespace() drops it
    CONTROL      BertNormalizer(clean_text=True) drops it between two 'a's (U+FFFD aside, which
                 it drops by name): BERT's control characters
    SCRIPTS      UnicodeScripts(): "Any" when it joins the piece before it both after 'a' and after
                 '中'; otherwise the script that `regex` names for it (kana: Han, as HF counts
                 them), checked by putting it after a character of that script (it must not be cut
                 there; one that is goes to the script whose character it joins)

Each class is stored as ranges of code points.  Run from the repository root after upgrading
`tokenizers`, and commit the result:

    python3 tokviz/native/gen_hf_char_classes.py
"""
from __future__ import annotations

import sys
from pathlib import Path

import regex

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tokviz.core.pre_tokenizers import UNICODE_8_SCRIPTS  # noqa: E402

MAX_CP = 0x110000
BLOCK = 2048
# The scripts of Unicode 8.0, all in HF's table.
SCRIPT_NAMES = list(UNICODE_8_SCRIPTS)
# Scripts of later Unicode versions, to name candidate groups (HF's table knows some of them).
LATER_SCRIPT_NAMES = """Adlam Bhaiksuki Marchen Newa Osage Tangut Masaram_Gondi Nushu Soyombo Zanabazar_Square
Dogra Gunjala_Gondi Makasar Medefaidrin Hanifi_Rohingya Sogdian Old_Sogdian Elymaic Nandinagari
Nyiakeng_Puachue_Hmong Wancho Chorasmian Dives_Akuru Khitan_Small_Script Yezidi Cypro_Minoan Old_Uyghur Tangsa
Toto Vithkuqi Kawi Nag_Mundari Garay Gurung_Khema Kirat_Rai Ol_Onal Sunuwar Todhri Tulu_Tigalari Beria_Erfe
Sidetic Tai_Yo Tolong_Siki""".split()
OUT = Path(__file__).resolve().parents[1] / "core" / "hf_char_classes.py"


def _code_points():
    return [cp for cp in range(MAX_CP) if not 0xD800 <= cp < 0xE000]


def _blocks(cps):
    for k in range(0, len(cps), BLOCK):
        yield cps[k:k + BLOCK]


def _probe(pre_tokenizer, cps, left: str, right: str):
    """For each code point c of `cps`, the pieces HF cuts from `left c right` (one such window per
    code point, all of a block in one call), as (start, end) spans relative to c (0: c itself); a
    piece that spans several windows is given to each of them."""
    width = len(left) + 1 + len(right)
    out = {}
    for block in _blocks(cps):
        text = "".join(left + chr(cp) + right for cp in block)
        per = {cp: [] for cp in block}
        for _, (a, b) in pre_tokenizer.pre_tokenize_str(text):
            for k in range(a // width, min(len(block), (b - 1) // width + 1)):
                per[block[k]].append((a - k * width - len(left), b - k * width - len(left)))
        out.update(per)
    return out


def _isolated(pre_tokenizer, cps):
    """The code points the pre-tokenizer cuts out on their own between two 'a's."""
    spans = _probe(pre_tokenizer, cps, "a", "a")
    return {cp for cp, s in spans.items() if (0, 1) in s}


def _ranges(cps) -> list[tuple[int, int]]:
    out: list[list[int]] = []
    for cp in sorted(cps):
        if out and out[-1][1] + 1 == cp:
            out[-1][1] = cp
        else:
            out.append([cp, cp])
    return [tuple(r) for r in out]


def measure() -> dict:
    from tokenizers import pre_tokenizers as P

    cps = _code_points()
    numeric = _isolated(P.Digits(individual_digits=True), cps)
    punctuation = _isolated(P.Punctuation(), cps)
    # Whitespace: \w+|[^\w\s]+ with 'a' (a word character) around: a word character joins them,
    # white space is dropped, anything else is a piece of its own.
    ws = _probe(P.Whitespace(), cps, "a", "a")
    word = {cp for cp, s in ws.items() if any(a < 0 and b > 1 for a, b in s)}
    space = {cp for cp, s in ws.items() if not any(a <= 0 < b for a, b in s)}
    scripts = _scripts(P.UnicodeScripts(), cps)
    return {"numeric": numeric, "punctuation": punctuation, "word": word, "space": space,
            "control": _dropped_by_clean_text(cps), "scripts": scripts}


def _dropped_by_clean_text(cps) -> set[int]:
    from tokenizers import normalizers

    clean = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=False, strip_accents=False,
                                       lowercase=False)
    dropped = set()
    for block in _blocks(cps):
        if clean.normalize_str("".join("a" + chr(cp) for cp in block)) == "a" * len(block):
            dropped.update(block)
            continue
        dropped.update(cp for cp in block if clean.normalize_str("a" + chr(cp) + "a") == "aa")
    return dropped - {0xFFFD}


def _scripts(pre_tokenizer, cps) -> dict[str, set[int]]:
    after_latin = _probe(pre_tokenizer, cps, "a", "")
    after_han = _probe(pre_tokenizer, cps, "中", "")
    joins = lambda spans: any(a < 0 < b for a, b in spans)  # noqa: E731
    scripted = [cp for cp in cps if not (joins(after_latin[cp]) and joins(after_han[cp]))]
    by_script: dict[str, set[int]] = {}
    for cp in scripted:  # grouped by the script `regex` names (a candidate: HF decides below)
        by_script.setdefault(_regex_script(chr(cp)), set()).add(cp)
    # Each candidate group must be HF's: a member after the group's first member is never cut off.
    # A member that is cut off (HF counts U+30FC as Han, not Common) goes to the group it joins.
    result: dict[str, set[int]] = {}
    strays = []
    for name, members in by_script.items():
        ordered = sorted(members)
        spans = _probe(pre_tokenizer, ordered, chr(ordered[0]), "")
        result[name] = {cp for cp in ordered if joins(spans[cp])}
        strays += [cp for cp in ordered if cp not in result[name]]
    for cp in strays:
        home = [name for name, members in result.items() if joins(_probe(pre_tokenizer, [cp], chr(min(members)), "")[cp])]
        if len(home) != 1:
            raise SystemExit(f"U+{cp:04X}: HF's script for it is none of the groups (joins {home}): extend the generator")
        result[home[0]].add(cp)
    return result


def _known_to_regex(name: str) -> bool:
    try:
        regex.compile(rf"\p{{Script={name}}}")
    except regex.error:
        return False
    return True


_SCRIPT_RE = regex.compile("|".join(f"(?P<{name}>\\p{{Script={name}}})"
                                    for name in SCRIPT_NAMES + LATER_SCRIPT_NAMES if _known_to_regex(name)))


def _regex_script(c: str) -> str:
    """The script `regex` gives `c` among the scripts named here, else "Unknown"; kana are
    Han (HF's UnicodeScripts counts them so)."""
    m = _SCRIPT_RE.match(c)
    if m is None:
        return "Unknown"
    return "Han" if m.lastgroup in ("Hiragana", "Katakana") else m.lastgroup


def render(classes: dict) -> str:
    import tokenizers

    def ranges_text(cps) -> str:
        parts = [f"{a:X}" if a == b else f"{a:X}-{b:X}" for a, b in _ranges(cps)]
        lines, line = [], ""
        for p in parts:
            if len(line) + len(p) + 1 > 96:
                lines.append(line)
                line = ""
            line = f"{line} {p}" if line else p
        lines.append(line)
        return "\n".join(lines)

    out = [
        f'"""Generated by tokviz/native/gen_hf_char_classes.py from HF tokenizers {tokenizers.__version__}; '
        'do not edit.',
        "",
        "Code point ranges (hexadecimal, inclusive) of the character classes HF tokenizers' pre-tokenizers",
        'use; tokviz.core.unicode reads them."""',
        "",
        f'TOKENIZERS_VERSION = "{tokenizers.__version__}"',
        "",
    ]
    for key in ("numeric", "punctuation", "word", "space", "control"):
        out += [f'{key.upper()} = """', ranges_text(classes[key]), '"""', ""]
    out.append("SCRIPTS = {")
    for name in sorted(classes["scripts"]):
        out += [f'    "{name}": """', ranges_text(classes["scripts"][name]), '""",']
    out += ["}", ""]
    return "\n".join(out)


def main() -> None:
    OUT.write_text(render(measure()), encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
