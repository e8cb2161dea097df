"""A vocabulary listing for people and spreadsheets, as TSV or CSV, one row per id:

    id  token  bytes  left  right  count

`token` is the vocabulary's own spelling ('Ġthe', '##ing', '▁the'), `bytes` the text it stands for
in hex, `left`/`right` the two tokens a BPE merge joined to make it (empty for base tokens and other
models), `count` how often that pair was seen when the merge was learned (when the trainer kept it).
CSV quotes as spreadsheets expect; TSV escapes backslash, tab, newline and carriage return as
\\\\, \\t, \\n, \\r.  Any tokenizer can be listed.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path

from ..core.models.bpe import BPE
from ..core.tokenizer import Tokenizer
from .atomic_write import write_text_atomic

COLUMNS = ("id", "token", "bytes", "left", "right", "count")
_TSV_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def listing_rows(tok: Tokenizer) -> list[tuple]:
    """(id, token, bytes hex, left, right, count) for every id, in id order."""
    parents: dict[str, tuple[str, str, int | None]] = {}
    model = tok.model
    if isinstance(model, BPE) and model.has_merge_list:
        counts = model.merge_counts or []
        for rank, (a, b) in enumerate(model.merges):
            merged = model._merged(a, b)
            if merged not in parents:
                parents[merged] = (a, b, counts[rank] if rank < len(counts) else None)
    ids = set(model.vocab.values()) | {t.id for t in tok.added.tokens}
    rows = []
    for i in sorted(ids):
        token = tok.id_to_token(i)
        left, right, count = parents.get(token, ("", "", None)) if not tok.is_special(i) else ("", "", None)
        rows.append((i, token, tok.token_bytes(i).hex(), left, right, "" if count is None else count))
    return rows


def listing_text(tok: Tokenizer, kind: str) -> str:
    rows = listing_rows(tok)
    if kind == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(COLUMNS)
        writer.writerows(rows)
        return buf.getvalue()
    lines = ["\t".join(COLUMNS)]
    for row in rows:
        lines.append("\t".join(str(v).translate(_TSV_ESCAPES) for v in row))
    return "\n".join(lines) + "\n"


def write_listing(tok: Tokenizer, path: Path, kind: str, *, overwrite: bool = True) -> list[Path]:
    """Write the TSV (kind "tsv") or CSV ("csv") listing."""
    write_text_atomic(path, listing_text(tok, kind), overwrite=overwrite)
    return [path]
