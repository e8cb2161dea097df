"""Ids of many texts as two numpy arrays instead of one Python int per id.

    >>> ids, offsets = tok.encode_ids_batch(["hi there", "", "hi"], as_array=True)
    >>> ids, offsets
    (array([6151, 1070, 6151], dtype=uint32), array([0, 2, 2, 3]))

`ids` holds every text's ids one after another, `offsets` has len(texts) + 1 entries: text i's ids
are ids[offsets[i]:offsets[i + 1]].  The ids are uint32: every vocabulary fits (HF tokenizers' ids
are u32, and the C encoders' are non-negative int32), and it is what `tokviz encode --out` writes.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import TokvizError

ID_DTYPE = np.dtype(np.uint32)
OFFSET_DTYPE = np.dtype(np.int64)
_ID_LIMIT = 1 << 32


def empty_arrays(texts: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The arrays of `texts` texts without ids."""
    return np.zeros(0, ID_DTYPE), np.zeros(texts + 1, OFFSET_DTYPE)


def ids_array(ids: Sequence[int]) -> np.ndarray:
    """One list of ids as a uint32 array; TokvizError for an id uint32 cannot hold."""
    out = np.fromiter(ids, dtype=np.int64, count=len(ids))
    if out.size and (out.min() < 0 or out.max() >= _ID_LIMIT):
        bad = int(out[(out < 0) | (out >= _ID_LIMIT)][0])
        raise TokvizError(f"id {bad} does not fit in an unsigned 32-bit array")
    return out.astype(ID_DTYPE)


def arrays_of_lists(lists: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """(ids, offsets) of per-text id lists (for the encoders that give lists)."""
    offsets = np.zeros(len(lists) + 1, OFFSET_DTYPE)
    if lists:
        np.cumsum([len(ids) for ids in lists], out=offsets[1:])
    flat: list[int] = []
    for ids in lists:
        flat.extend(ids)
    return ids_array(flat), offsets


def arrays_of_buffers(ids, offsets) -> tuple[np.ndarray, np.ndarray]:
    """(ids, offsets) over the native encoders' buffers of int32 ids and int64 offsets (no copy)."""
    return np.frombuffer(ids, dtype=ID_DTYPE), np.frombuffer(offsets, dtype=OFFSET_DTYPE)


def text_offsets(segment_offsets: np.ndarray, segments_per_text: Sequence[int]) -> np.ndarray:
    """Offsets of texts whose ids are runs of consecutive segments, from the segments' offsets."""
    ends = np.zeros(len(segments_per_text) + 1, np.int64)
    if len(segments_per_text):
        np.cumsum(segments_per_text, out=ends[1:])
    return segment_offsets[ends]


def splice(ids: np.ndarray, offsets: np.ndarray, replaced: dict[int, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(ids, offsets) with the ids of each text i in `replaced` replaced by replaced[i]: one block
    copy per run of texts kept, not per text."""
    if not replaced:
        return ids, offsets
    lengths = np.diff(offsets)
    for i, new in replaced.items():
        lengths[i] = len(new)
    new_offsets = np.zeros(len(offsets), OFFSET_DTYPE)
    np.cumsum(lengths, out=new_offsets[1:])
    out = np.empty(int(new_offsets[-1]), ID_DTYPE)
    kept_from = 0  # first text of the current run of kept texts
    for i in sorted(replaced):
        out[new_offsets[kept_from] : new_offsets[i]] = ids[offsets[kept_from] : offsets[i]]
        out[new_offsets[i] : new_offsets[i + 1]] = replaced[i]
        kept_from = i + 1
    out[new_offsets[kept_from] :] = ids[offsets[kept_from] :]
    return out, new_offsets


def wrap(ids: np.ndarray, offsets: np.ndarray, before: Sequence[int], after: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """(ids, offsets) with `before` put in front of every text's ids and `after` behind them."""
    if not before and not after:
        return ids, offsets
    n = len(offsets) - 1
    extra = len(before) + len(after)
    new_offsets = offsets + np.arange(n + 1, dtype=OFFSET_DTYPE) * extra
    out = np.empty(len(ids) + n * extra, ID_DTYPE)
    text_of_id = np.repeat(np.arange(n, dtype=OFFSET_DTYPE), np.diff(offsets))
    out[np.arange(len(ids), dtype=OFFSET_DTYPE) + text_of_id * extra + len(before)] = ids
    starts, ends = new_offsets[:-1], new_offsets[1:]
    if before:
        out[(starts[:, None] + np.arange(len(before))).ravel()] = np.tile(ids_array(before), n)
    if after:
        out[(ends[:, None] - len(after) + np.arange(len(after))).ravel()] = np.tile(ids_array(after), n)
    return out, new_offsets
