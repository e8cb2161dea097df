"""The files of a corpus as a cluster reads them: local paths made absolute here, or fsspec URLs.

    >>> corpus_sources(["code.txt", "s3://bucket/corpus/*.txt"])
    [CorpusFile(name='code.txt', url='/home/me/code.txt', size=1234),
     CorpusFile(name='s3://bucket/corpus/a.txt', url='s3://bucket/corpus/a.txt', size=52345678), ...]

Everything is resolved on this machine (the client) before a task is sent: a relative path is made
absolute (the workers run in other folders), a folder or a URL folder lists its text files, a URL
glob its matches, and every file's size is taken; what cannot be read here is said to be the
client's.  A URL is read with fsspec (s3://, gs://, hdfs://, ..., the protocol's package
installed: s3fs, gcsfs, ...), with the credentials the environment gives it, on this machine
(listing, and a small window at each range's end) and on the workers (their ranges), each by
ranged reads.  Local files must be readable at the same absolute paths on the workers (a shared
file system); a worker that cannot read one says so (tasks.py).
"""
from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..errors import TokvizError

_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*)://")
_GLOB = re.compile(r"[*?\[]")

CLIENT = "on this machine (the client)"


def is_url(item) -> bool:
    """Whether `item` is a URL (PROTOCOL://...) rather than a local path; file:// counts as local."""
    if not isinstance(item, str):
        return False
    m = _URL.match(item)
    return m is not None and m.group(1).lower() not in ("file", "local")


def _local_path(item) -> str:
    text = os.fspath(item)
    m = _URL.match(text) if isinstance(text, str) else None
    return text[m.end():] if m else text


@dataclass(frozen=True)
class CorpusFile:
    """One file of a corpus: `name` as the user knows it (as given, or as a folder or glob listed
    it), `url` what the workers open (an absolute local path, or a URL), `size` in bytes here."""

    name: str
    url: str
    size: int

    @property
    def remote(self) -> bool:
        return is_url(self.url)

    def __fspath__(self) -> str:  # (a local one passes for its path where a path is taken)
        return self.url


def client_error(exc: BaseException, what: str | None = None) -> TokvizError:
    """A TokvizError saying that this machine (the client) could not read `what`."""
    text = str(exc) if isinstance(exc, TokvizError) else f"{what}: {reason(exc)}"
    return TokvizError(f"{CLIENT}: {text}")


def reason(exc: BaseException) -> str:
    """What went wrong in reading a file or URL, in words."""
    from ..paths import os_error_reason

    if isinstance(exc, TokvizError):
        return exc.reason
    if isinstance(exc, FileNotFoundError):
        return "no such file or folder"
    if isinstance(exc, PermissionError):
        detail = str(exc).strip()
        return "access denied (check the credentials the environment gives)" + (f": {detail}" if detail else "")
    if isinstance(exc, OSError) and exc.errno is not None:
        return os_error_reason(exc)
    name = type(exc).__name__
    text = str(exc).strip()
    if "credential" in name.lower() or "credential" in text.lower():
        return f"no credentials or wrong ones ({name}: {text})"
    return f"{name}: {text}" if text else name


def filesystem(url: str):
    """(fsspec file system, path within it) for `url`; a TokvizError when fsspec or the
    protocol's package is missing."""
    try:
        import fsspec
    except ImportError:
        raise TokvizError('reading URLs needs fsspec: pip install "tokviz[cluster]"', url) from None
    try:
        return fsspec.core.url_to_fs(url)
    except (ImportError, ValueError) as exc:  # the protocol's package missing (s3fs...); an unknown protocol
        raise TokvizError(str(exc).strip() or type(exc).__name__, url) from None


def _is_text_name(name: str) -> bool:
    from ..analysis.corpus_stats import TEXT_SUFFIXES

    return os.path.splitext(name)[1].lower() in TEXT_SUFFIXES


def _remote_files(url: str, folders: bool) -> list[CorpusFile]:
    fs, path = filesystem(url)
    if _GLOB.search(path):
        found = fs.glob(path, detail=True)
        entries = []
        for p, info in sorted(found.items()):
            if info.get("type") == "directory":
                if folders:
                    entries.extend(sorted(_listed(fs, p).items()))
            else:
                entries.append((p, info))
        if not entries:
            raise TokvizError(f"{url}: matches no file")
    else:
        info = fs.info(path)
        if info.get("type") == "directory":
            if not folders:
                raise TokvizError(f"{url}: is a folder, expected a training file (give its files, e.g. {url.rstrip('/')}/*.txt)")
            entries = sorted(_listed(fs, path).items())
            if not entries:
                raise TokvizError(f"{url}: the folder holds no text file")
        else:
            entries = [(path, info)]
    out = []
    for p, info in entries:
        full = fs.unstrip_protocol(p)
        out.append(CorpusFile(full, full, int(info.get("size") or 0)))
    return out


def _listed(fs, folder: str) -> dict:
    return {p: i for p, i in fs.find(folder, detail=True).items()
            if i.get("type") != "directory" and _is_text_name(p)}


def corpus_sources(items: Iterable, *, folders: bool = True) -> list[CorpusFile]:
    """The CorpusFiles of `items` (paths, URLs, CorpusFiles), each file once, in order: a local
    folder's text files as `analysis.corpus_stats.corpus_files` lists them, a URL folder's text
    files and a URL glob's matches sorted.  `folders=False` (training): a local folder is refused
    as the single-machine trainer refuses it.  Errors say this machine could not read what."""
    from ..analysis.corpus_stats import corpus_files
    from ..paths import check_regular_file, distinct_files

    out: list[CorpusFile] = []
    seen: set[str] = set()
    for item in items:
        if isinstance(item, CorpusFile):
            found = [item]
        elif is_url(item):
            try:
                found = _remote_files(item, folders)
            except TokvizError as exc:
                raise client_error(exc) from None
            except Exception as exc:  # (fsspec and its back ends raise OSErrors and their own errors)
                raise client_error(exc, item) from None
        else:
            given = _local_path(item)
            try:
                if folders:
                    paths = corpus_files([given])
                else:
                    path = Path(given).expanduser()
                    check_regular_file(path, "a training file")
                    paths = distinct_files([path])
                found = [CorpusFile(str(p), str(Path(p).expanduser().absolute()), os.stat(p).st_size) for p in paths]
            except TokvizError as exc:
                raise client_error(exc) from None
            except OSError as exc:
                raise client_error(exc, given) from None
        for f in found:
            key = f.url if f.remote else _inode(f.url)
            if key not in seen:
                seen.add(key)
                out.append(f)
    return out


def _inode(path: str):
    try:
        st = os.stat(path)
    except OSError:
        return path
    return (st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) else path


def read_at(source: CorpusFile | str | os.PathLike, offset: int, length: int) -> bytes:
    """Bytes [offset, offset + length) of a file (fewer at its end): a ranged read of a URL, a
    seek and read of a local file."""
    url = source.url if isinstance(source, CorpusFile) else os.fspath(source)
    if is_url(url):
        fs, path = filesystem(url)
        return fs.cat_file(path, start=offset, end=offset + length)
    from ..paths import open_regular

    with open_regular(url, "a text file") as fh:
        fh.seek(offset)
        return fh.read(length)


def size_of(source: CorpusFile | str | os.PathLike) -> int:
    if isinstance(source, CorpusFile):
        return source.size
    try:
        return os.path.getsize(source)
    except OSError as exc:
        raise TokvizError(f"cannot read the file: {exc.strerror or exc}", source) from None
