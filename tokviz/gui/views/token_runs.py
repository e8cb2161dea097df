"""What a token looks like as text: its bytes cut into runs of text, whitespace markers and hex
chips of bytes that are not a whole UTF-8 character (`byte_runs`), and the plain string of runs
(`runs_display`).  Shared by the token view, the Vocabulary table and the panels; no Qt here."""
from __future__ import annotations

import re

# Run kinds inside a piece.
TEXT, MARK, CHIP, SPECIAL, GAP_TEXT, GAP_MARK = range(6)

WHITESPACE_MARKS = {" ": "·", "\t": "→", "\n": "↵", "\r": "␍", "\u00a0": "⍽", "\x7f": "␡"}
WHITESPACE_MARKS.update({chr(c): chr(0x2400 + c) for c in range(0x20) if chr(c) not in WHITESPACE_MARKS})
# Markers of what an editor shows as blank space: drawn blank when whitespace markers are off (the
# marks of control characters stay, else those characters would be invisible).
BLANK_MARKS = frozenset("·→↵␍⍽")
_SPLIT_MARKS = re.compile("([" + re.escape("".join(WHITESPACE_MARKS)) + "])")


def text_runs(s: str, text_kind: int = TEXT, mark_kind: int = MARK) -> list[tuple[int, str]]:
    """Split text into (kind, string) runs, whitespace/control characters replaced by markers.
    A newline run is always a single '↵' so a line break can follow it; a marker run holds only
    BLANK_MARKS or none of them."""
    runs: list[tuple[int, str]] = []
    for part in _SPLIT_MARKS.split(s):
        if not part:
            continue
        if len(part) == 1 and part in WHITESPACE_MARKS:
            mark = WHITESPACE_MARKS[part]
            if (runs and runs[-1][0] == mark_kind and part != "\n" and not runs[-1][1].endswith("↵")
                    and (runs[-1][1][0] in BLANK_MARKS) == (mark in BLANK_MARKS)):
                runs[-1] = (mark_kind, runs[-1][1] + mark)
            else:
                runs.append((mark_kind, mark))
        else:
            runs.append((text_kind, part))
    return runs


def byte_runs(data: bytes) -> list[tuple[int, str]]:
    """Runs for a token's bytes: valid UTF-8 as text (with markers), other bytes as hex chips."""
    runs: list[tuple[int, str]] = []
    i = 0
    while i < len(data):
        try:
            runs += text_runs(data[i:].decode("utf-8"))
            break
        except UnicodeDecodeError as exc:
            if exc.start:
                runs += text_runs(data[i : i + exc.start].decode("utf-8"))
            for b in data[i + exc.start : i + exc.end]:
                runs.append((CHIP, f"{b:02x}"))
            i += exc.end
    return runs


def runs_display(runs) -> str:
    """The plain string for runs: text and markers as drawn, chips as ⟨e6⟩."""
    return "".join(f"⟨{t}⟩" if k == CHIP else t for k, t, *_ in runs)
