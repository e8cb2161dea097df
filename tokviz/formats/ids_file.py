"""A text file's token ids written to a file as they are encoded: NumPy .npy or raw uint32.

    >>> write_ids_file(tok, "corpus.txt", "ids.npy")   # np.load("ids.npy") -> uint32 array
    IdsFileResult(path=PosixPath('ids.npy'), count=1234567, kind='npy')

The text is streamed through `Tokenizer.encode_file` (bounded memory, the same ids; the pieces
of each read chunk are encoded together on several threads), each piece's ids going straight to a
temporary file beside the target (.NAME.tokviz-PID-HEX.tmp, the name tokviz's atomic writes give
theirs, so that a leftover of a killed process is recognised and cleaned up).  A `.npy` file starts
with NumPy's version 1.0 header, written first for length 0 and rewritten in place at the end
(NumPy leaves room in it for any length); any other suffix gives the raw ids, little-endian uint32.
Only when all of it is written is the file renamed into place: an error or an interruption
leaves no part of a file.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..core.id_arrays import ID_DTYPE
from ..errors import TokvizError
from .atomic_write import streamed_file_atomic

FILE_DTYPE = np.dtype("<u4")


@dataclass(frozen=True)
class IdsFileResult:
    path: Path
    count: int  # ids written
    kind: str  # "npy" or "raw"


class _Ids:
    """What encode_file's on_chunk gets for a piece: only its ids (a uint32 array)."""

    __slots__ = ("ids",)

    def __init__(self, ids):
        self.ids = ids


def _npy_header(count: int) -> bytes:
    from io import BytesIO

    buf = BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": FILE_DTYPE.str, "fortran_order": False, "shape": (count,)})
    return buf.getvalue()


def check_output(path: str | os.PathLike, overwrite: bool) -> Path:
    """`path` as a Path when an ids file may be written there, else TokvizError naming it (see
    tokviz.paths.check_output_path: permission, a pipe or device in its place)."""
    import stat

    from ..paths import check_output_path, kind_of

    out = Path(path)
    st = check_output_path(path, file_only=True)
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise TokvizError("is a folder; give a file name for the ids", out)
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise TokvizError(f"is {kind_of(st.st_mode)}, not a regular file; only a file is replaced by a new one", out)
    if not overwrite and os.path.lexists(out):
        raise TokvizError("already exists (pass --force to replace it)", out)
    folder = out.parent
    if not os.path.isdir(folder):
        raise TokvizError(f"cannot write here: the folder {str(folder)!r} does not exist", out)
    return out


def write_ids_file(tokenizer, text_path: str | os.PathLike, out_path: str | os.PathLike, *, overwrite: bool = False,
                   add_special_tokens: bool = False, progress=None, cancel=None,
                   threads: int | None = None) -> IdsFileResult:
    """Encode the UTF-8 file `text_path` (as `tokenizer.encode_file` does) into `out_path`: a .npy
    file of uint32, or raw little-endian uint32 for any other suffix.  overwrite=False refuses an
    existing file.  add_special_tokens: the post-processor's tokens before and after the whole text.
    progress(bytes_done, total_bytes) and cancel as for encode_file.  threads: the pieces of each
    read chunk are encoded together on this many threads (None: one per core).  TokvizError names
    the file that cannot be read or written."""
    out = check_output(out_path, overwrite)
    npy = out.suffix.lower() == ".npy"
    before, after = [], []
    if add_special_tokens and tokenizer.post_processor is not None:
        wrap = tokenizer.post_processor.wrap()
        before, after = [i for i, _ in wrap[0]], [i for i, _ in wrap[1]]
    count = 0

    def encode_many(pieces: list[str]) -> list[_Ids]:
        ids, offsets = tokenizer.encode_ids_batch(pieces, threads=threads, as_array=True)
        return [_Ids(ids[a:b]) for a, b in zip(offsets[:-1], offsets[1:])]

    with streamed_file_atomic(out, overwrite=overwrite) as fh:

        def put(ids) -> None:
            nonlocal count
            data = np.asarray(ids, dtype=ID_DTYPE).astype(FILE_DTYPE, copy=False)
            fh.write(data.tobytes())
            count += len(data)

        header = _npy_header(0) if npy else b""
        fh.write(header)
        put(before)
        tokenizer.encode_file(text_path, progress=progress, cancel=cancel, keep_ids=False, encode_many=encode_many,
                              on_chunk=lambda chunk: put(chunk.encoding.ids))
        put(after)
        if npy:
            final = _npy_header(count)
            if len(final) != len(header):  # (NumPy leaves room for any length: never happens)
                raise TokvizError(f"the .npy header for {count} ids does not fit", out)
            fh.seek(0)
            fh.write(final)
    return IdsFileResult(out, count, "npy" if npy else "raw")
