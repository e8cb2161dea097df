"""Write files so that a reader sees the old ones or the new ones, never a mixture or a part.

    >>> write_files_atomic([(folder / "vocab.json", vocab_text), (folder / "merges.txt", merges_text)])

A transaction (`write_files_atomic` for data at hand, or `FileTransaction`) writes every file of
a set as a temporary file in the target folder and fsyncs it; only when all of them are written
are they renamed into place, one after another with SIGINT and SIGTERM held back (when run on the
main thread), and the folder is fsynced.

What each failure leaves:

- an exception before the renames (a full disk, a KeyboardInterrupt, a refused overwrite): the old
  files untouched and no temporary file; the exception propagates unchanged;
- a rename that fails part way: the files already renamed are put back from backups (hard links to
  the old files, made before the renames), so the set is the old one again;
- a signal that arrives during the renames: it is delivered as soon as they are done, to the
  handler it had; the exception that handler raises (KeyboardInterrupt) names the files written:
  `committed_files(exc)`.  So an interrupted write kept the old files exactly when
  `committed_files(exc)` is empty;
- SIGKILL or a power cut: temporary files and, during the renames, a journal.  The next
  transaction into that folder completes the renames a journal lists (the set becomes the new
  one) and removes tokviz's stale temporary files: those whose process is gone or that are older
  than an hour, recognised by their names `.NAME.tokviz-PID-HEX.tmp` (`.bak`, `.journal`).

overwrite=False never replaces a file, also one that appears while writing.  A new file gets the
usual permissions (0666 less the umask); a replaced file keeps its own.

Work on a thread inside `stop_on(event)` (an export a person may cancel) stops with `Cancelled`
at the next file a transaction adds or before its renames, once `event` is set: the old files
stay and no temporary file is left.
"""
from __future__ import annotations

import errno
import json
import os
import re
import secrets
import shutil
import signal
import stat
import threading
import time
from collections.abc import Iterable
from contextlib import contextmanager
from pathlib import Path

from ..errors import Cancelled, TokvizError
from ..messages import QT_TRANSLATE_NOOP, Message
from ..paths import kind_of

STALE_AFTER_S = 3600.0  # a temporary file this old is stale even when its process id is in use
COMMITTED_ATTR = "tokviz_committed_files"

# .NAME.tokviz-PID-HEX.tmp / .bak / .journal; NAME may be shortened to fit the name length limit
_OWN_NAME = re.compile(r"\..*\.tokviz-(\d+)-[0-9a-f]{12}\.(tmp|bak|journal)", re.DOTALL)
# .NAME.HEX.tmp: the names earlier tokviz versions gave their temporary files
_LEGACY_NAME = re.compile(r"\.(.+)\.[0-9a-f]{12}\.tmp", re.DOTALL)
_NAME_MAX = 255
_DEFERRED_SIGNALS = tuple(s for s in (getattr(signal, "SIGINT", None), getattr(signal, "SIGTERM", None)) if s)
_stop = threading.local()  # .event: the stop_on event of the work on this thread


def write_text_atomic(path: str | os.PathLike, text: str, *, overwrite: bool = True) -> None:
    """Replace `path` with `text` (UTF-8, line ends as given) only once all of it is written."""
    write_files_atomic([(path, text)], overwrite=overwrite)


def write_bytes_atomic(path: str | os.PathLike, data: bytes, *, overwrite: bool = True) -> None:
    """Replace `path` with `data` only once all of it is written: a failure leaves the old file
    (or none) and no temporary file."""
    write_files_atomic([(path, data)], overwrite=overwrite)


def write_files_atomic(files: Iterable[tuple[str | os.PathLike, bytes | str]], *,
                       overwrite: bool = True) -> list[Path]:
    """Write every (path, data) as one transaction (all in one folder; str is written as UTF-8):
    afterwards the files are all new, or all as they were.  Returns the paths."""
    files = [(Path(path), data) for path, data in files]
    if files:
        remove_stale_temporaries(files[0][0].parent, [path.name for path, _ in files])
    tx = FileTransaction(overwrite=overwrite, clean=False)
    # (not a with statement: an interrupt noticed as __exit__ starts would escape its clean-up)
    try:
        for path, data in files:
            tx.add(path, data)
        return tx.commit()
    except BaseException:
        tx.abort()  # (after a commit there is nothing left to remove)
        raise


@contextmanager
def streamed_file_atomic(path: str | os.PathLike, *, overwrite: bool = True):
    """A binary file to write `path`'s new content into, piece by piece: a temporary file beside it,
    renamed into place (synced, SIGINT/SIGTERM held during the rename) when the block ends without
    an error, removed otherwise.  overwrite=False refuses an existing file at the rename.  An
    OSError of the file becomes a TokvizError naming `path`."""
    target = Path(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        temp = _unused_name(target, "tmp")
        fd = os.open(temp, flags, 0o666)
    except OSError as exc:
        raise TokvizError(cannot_write(exc), target) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            try:
                yield fh
                fh.flush()
                os.fsync(fh.fileno())
            except OSError as exc:
                raise TokvizError(cannot_write(exc), target) from None
        with _signals_held():
            _rename(temp, target, overwrite)
    except BaseException:
        _remove(temp)
        raise
    _fsync_folder(target.parent)


@contextmanager
def stop_on(event: threading.Event):
    """Transactions on this thread inside the block stop with `Cancelled` once `event` is set:
    as they add a file or before their renames (the old files stay, no temporary file is left)."""
    outer = getattr(_stop, "event", None)
    _stop.event = event
    try:
        yield
    finally:
        _stop.event = outer


def _stop_requested() -> bool:
    event = getattr(_stop, "event", None)
    return event is not None and event.is_set()


def committed_files(exc: BaseException) -> list[Path]:
    """The files a transaction wrote before `exc` (a signal held back during its renames) was
    raised; [] when `exc` left the old files as they were."""
    return list(getattr(exc, COMMITTED_ATTR, ()))


class FileTransaction:
    """Files written together: `add` each (written to a temporary file at once), then `commit`.
    As a context manager it commits on a normal exit and aborts on an exception; a transaction
    dropped unfinished (an interrupt that escaped both) is aborted when it is collected."""

    def __init__(self, *, overwrite: bool = True, clean: bool = True):
        """clean: remove stale temporary files (`remove_stale_temporaries`) as the first file is added."""
        self.overwrite = overwrite
        self.clean = clean
        self.folder: Path | None = None
        self._parts: list[_Part] = []
        self._journal: str | None = None
        self._done = False

    @property
    def paths(self) -> list[Path]:
        return [p.target for p in self._parts]

    def add(self, path: str | os.PathLike, data: bytes | str) -> None:
        """Write `data` to a temporary file beside `path` (fsynced); `path` is written on commit."""
        if self._done:
            raise RuntimeError("the transaction is already committed or aborted")
        if _stop_requested():
            self.abort()
            raise Cancelled("the write was cancelled")
        target = Path(path)
        if isinstance(data, str):
            data = data.encode("utf-8")
        folder = target.parent
        if self.folder is None:
            self.folder = folder
            if self.clean:
                remove_stale_temporaries(folder, [target.name])
        elif os.path.abspath(folder) != os.path.abspath(self.folder):
            raise ValueError(f"every file of a transaction goes into one folder: {target} is not in {self.folder}")
        if any(os.path.abspath(p.target) == os.path.abspath(target) for p in self._parts):
            raise ValueError(f"{target} is written twice in one transaction")
        if not self.overwrite and os.path.lexists(target):
            self.abort()
            raise _exists(target)
        if os.path.isdir(target):
            self.abort()
            raise IsADirectoryError(errno.EISDIR, "is a folder", str(target))
        mode = _mode_of(target)
        if mode is not None and not stat.S_ISREG(mode):  # (a rename would put a file in a device's place)
            self.abort()
            raise TokvizError(Message(QT_TRANSLATE_NOOP("formats", "is {kind}, not a regular file; only a file is "
                                                               "replaced by a new one"), kind=kind_of(mode)), target)
        part = _Part(target)
        self._parts.append(part)
        try:
            for _ in range(100):
                # (named before it exists: an interrupt at any moment leaves it to abort)
                part.temp = _unused_name(target, "tmp")
                try:
                    _write_new_file(part.temp, data, target if self.overwrite else None)
                    break
                except FileExistsError:
                    part.temp = None
            else:
                raise FileExistsError(errno.EEXIST, "no free temporary name", str(target))
        except BaseException:
            self.abort()
            raise

    def commit(self) -> list[Path]:
        """Rename every temporary file into place; on failure the old files are back and the
        exception propagates (see the module's notes)."""
        if self._done:
            raise RuntimeError("the transaction is already committed or aborted")
        renamed = False
        try:
            if _stop_requested():
                raise Cancelled("the write was cancelled")
            if len(self._parts) > 1:
                self._prepare_backups()
                self._write_journal()
            with _signals_held():
                self._rename_all()
                renamed = self._done = True
                self._remove_backups()
                _fsync_folder(self.folder)
        except BaseException as exc:
            if renamed:  # (a signal held back during the renames)
                setattr(exc, COMMITTED_ATTR, self.paths)
            else:
                self.abort()
            raise
        return self.paths

    def abort(self) -> None:
        """Remove every temporary file and backup; the target files stay as they are (after a
        commit: nothing to do)."""
        self._done = True
        for part in self._parts:
            for name in (part.temp, part.backup):
                if name is not None:
                    _remove(name)
            part.temp = part.backup = None
        self._remove_journal()

    def __enter__(self) -> FileTransaction:
        return self

    def __del__(self) -> None:
        if not getattr(self, "_done", True):
            try:
                self.abort()
            except Exception:
                pass

    def __exit__(self, kind, exc, tb) -> None:
        if self._done:
            return
        if exc is None:
            self.commit()
        else:
            self.abort()

    # ---- the rename phase ----

    def _prepare_backups(self) -> None:
        """A second name for every file about to be replaced, to put it back if a later rename fails."""
        if not self.overwrite:
            return
        for part in self._parts:
            if not os.path.lexists(part.target):
                continue
            part.backup = _unused_name(part.target, "bak")
            try:
                os.link(part.target, part.backup, follow_symlinks=False)
            except FileNotFoundError:
                part.backup = None  # (removed meanwhile: nothing to keep)
            except (OSError, NotImplementedError):  # no hard links here: a copy
                shutil.copy2(part.target, part.backup, follow_symlinks=False)

    def _write_journal(self) -> None:
        """The renames about to be done, for the next transaction here to complete them should this
        process die half way."""
        record = {"overwrite": self.overwrite,
                  "parts": [{"target": p.target.name, "temp": os.path.basename(p.temp),
                             "backup": os.path.basename(p.backup) if p.backup else None} for p in self._parts]}
        self._journal = _unused_name(self._parts[0].target, "journal")
        _write_new_file(self._journal, json.dumps(record).encode("utf-8"), None)
        _fsync_folder(self.folder)

    def _remove_journal(self) -> None:
        if self._journal is not None:
            _remove(self._journal)
            self._journal = None

    def _rename_all(self) -> None:
        done: list[_Part] = []
        try:
            for part in self._parts:
                _rename(part.temp, part.target, self.overwrite)
                part.temp = None
                done.append(part)
        except BaseException:
            self._remove_journal()
            self._put_back(done)
            raise
        self._remove_journal()

    def _put_back(self, done: list[_Part]) -> None:
        """Undo the renames in `done`: old files from their backups, new ones removed."""
        failed = []
        for part in reversed(done):
            try:
                if part.backup is not None:
                    os.replace(part.backup, part.target)
                    part.backup = None
                else:
                    os.unlink(part.target)
            except OSError:
                failed.append(part)
        if failed:
            kept = ", ".join(os.path.basename(p.backup) for p in failed if p.backup)
            for part in failed:
                part.backup = None  # (left in place: it holds the old file)
            if kept:
                raise TokvizError(Message(QT_TRANSLATE_NOOP("formats", "a rename failed and the old files could not "
                                                                       "all be put back; they are kept as {kept}"),
                                          kept=kept), failed[0].target)
            raise TokvizError(QT_TRANSLATE_NOOP("formats", "a rename failed and the old files could not all be put "
                                                           "back"), failed[0].target)

    def _remove_backups(self) -> None:
        for part in self._parts:
            if part.backup is not None:
                _remove(part.backup)
                part.backup = None


class _Part:
    __slots__ = ("target", "temp", "backup")

    def __init__(self, target: Path):
        self.target = target
        self.temp: str | None = None
        self.backup: str | None = None


def _mode_of(path: Path) -> int | None:
    """st_mode of what `path` names, links followed (None: nothing there, or a dangling link)."""
    try:
        return os.stat(path).st_mode
    except (OSError, ValueError):
        return None


def _exists(path) -> TokvizError:
    return TokvizError(ALREADY_EXISTS, path)


ALREADY_EXISTS = QT_TRANSLATE_NOOP("formats", "already exists (pass overwrite=True, or --force, to replace it)")


def cannot_write(exc: OSError) -> Message:
    """The reason to give for an OSError met while writing a file."""
    return Message(QT_TRANSLATE_NOOP("formats", "cannot write: {error}"), error=exc.strerror or str(exc))


def _rename(temp: str, target: Path, overwrite: bool) -> None:
    if overwrite:
        os.replace(temp, target)
        return
    try:
        os.link(temp, target)  # fails with FileExistsError instead of replacing
    except FileExistsError:
        raise _exists(target) from None
    except OSError:  # no hard links on this file system: check, then rename
        if os.path.lexists(target):
            raise _exists(target) from None
        os.replace(temp, target)
        return
    os.unlink(temp)


@contextmanager
def _signals_held():
    """Hold SIGINT and SIGTERM back in the block and deliver them when it ends (to the handlers
    they had).  Only the main thread can: Python runs signal handlers there.  The handlers are
    swapped for ones that take note, since the kernel may hand the signal to any thread (numpy's,
    say); where it can, the main thread also blocks them."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    saved: dict[int, object] = {}
    blocked = None
    try:
        if hasattr(signal, "pthread_sigmask"):
            blocked = signal.pthread_sigmask(signal.SIG_BLOCK, ())  # (the mask as it is, to restore)
            signal.pthread_sigmask(signal.SIG_BLOCK, _DEFERRED_SIGNALS)
        for signum in _DEFERRED_SIGNALS:
            handler = signal.getsignal(signum)
            if handler is None or handler == signal.SIG_IGN:
                continue  # (a handler set outside Python cannot be put back; an ignored signal stays so)
            saved[signum] = handler
            try:
                signal.signal(signum, lambda n, frame: caught.append(n))
            except (ValueError, OSError):  # (an interpreter that may not set handlers)
                del saved[signum]
        yield
    finally:
        try:
            for signum, handler in saved.items():
                signal.signal(signum, handler)
            if blocked is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        finally:
            for signum in dict.fromkeys(caught):
                signal.raise_signal(signum)


# ---- temporary files ----

def _unused_name(target: Path, kind: str) -> str:
    """A free name for a temporary file of `target`'s: .NAME.tokviz-PID-HEX.KIND in its folder."""
    tail = f".tokviz-{os.getpid()}-{{}}.{kind}"
    room = _NAME_MAX - len(os.fsencode("." + tail.format("0" * 12)))
    stem = os.fsdecode(os.fsencode(target.name)[:room])
    for _ in range(100):
        name = os.path.join(target.parent, "." + stem + tail.format(secrets.token_hex(6)))
        if not os.path.lexists(name):
            return name
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(target))


def _write_new_file(name: str, data: bytes, mode_from) -> None:
    """Create `name` (mode 0666, so that the kernel applies the umask and a folder's default ACL as
    for any new file), give it the mode of an existing `mode_from`, write `data`, fsync."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(name, flags, 0o666)
    try:
        try:
            if mode_from is not None:
                _keep_mode(fd, mode_from)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        _remove(name)
        raise


def _keep_mode(fd: int, path) -> None:
    """Give the file open as `fd` the permission bits of an existing `path`; nothing when there is none."""
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except (OSError, ValueError, TypeError):
        return
    try:
        os.fchmod(fd, mode)
    except (AttributeError, OSError):  # no fchmod (Windows), or a file system without modes
        pass


def _fsync_folder(folder: Path | None) -> None:
    """Make the renames in `folder` durable, where folders can be opened (not on Windows)."""
    if folder is None or not hasattr(os, "O_DIRECTORY"):
        return
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # (file systems that cannot sync a folder say EINVAL)
    finally:
        try:
            os.close(fd)
        except OSError:
            pass


def _remove(name: str) -> None:
    try:
        os.unlink(name)
    except FileNotFoundError:
        pass
    except OSError:
        pass  # (left for the next transaction's clean-up)


# ---- stale temporary files ----

def remove_stale_temporaries(folder: str | os.PathLike, names: Iterable[str] = ()) -> list[str]:
    """Clean up after tokviz processes that died while writing into `folder`: complete the renames
    their journals list, then remove their temporary files and backups (names `.NAME.tokviz-PID-
    HEX.tmp`, `.bak`, `.journal` whose process is gone or that are older than an hour).  Files
    named `.NAME.HEX.tmp` (earlier tokviz versions) are removed when older than an hour and NAME is
    one of `names`.  Nothing else is touched.  Returns the names removed."""
    try:
        entries = os.listdir(folder)
    except OSError:
        return []
    now = time.time()
    names = set(names)
    stale: list[str] = []
    for entry in entries:
        match = _OWN_NAME.fullmatch(entry)
        if match:
            if _is_stale(folder, entry, int(match.group(1)), now):
                stale.append(entry)
            continue
        legacy = _LEGACY_NAME.fullmatch(entry)
        if legacy and legacy.group(1) in names and _is_stale(folder, entry, None, now):
            stale.append(entry)
    for entry in stale:
        if entry.endswith(".journal"):
            _complete_journal(folder, entry)
    removed = []
    for entry in stale:
        path = os.path.join(folder, entry)
        if os.path.lexists(path):
            _remove(path)
            if not os.path.lexists(path):
                removed.append(entry)
    return removed


def _is_stale(folder, entry: str, pid: int | None, now: float) -> bool:
    try:
        info = os.lstat(os.path.join(folder, entry))
    except OSError:
        return False
    if not (stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode)):
        return False
    if now - info.st_mtime > STALE_AFTER_S:
        return True
    return pid is not None and not _process_alive(pid)


def _process_alive(pid: int) -> bool:
    """Whether process `pid` exists (assumed so where that cannot be asked without side effects:
    on Windows os.kill(pid, 0) would send CTRL_C_EVENT)."""
    if pid == os.getpid() or os.name != "posix" or pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # (another user's process: it exists)
        return True
    return True


def _complete_journal(folder, entry: str) -> None:
    """Finish the renames of a process that died during them: each temporary file still there is
    renamed into place (all were complete and fsynced before the journal was written).  A journal
    that cannot be read was being written, before any rename: nothing to do."""
    try:
        with open(os.path.join(folder, entry), "rb") as fh:
            record = json.loads(fh.read().decode("utf-8"))
        parts = [(p["target"], p["temp"]) for p in record["parts"]]
        overwrite = bool(record["overwrite"])
    except (OSError, ValueError, KeyError, TypeError):
        return
    for target, temp in parts:
        if not all(isinstance(n, str) and n and os.path.basename(n) == n for n in (target, temp)):
            return
    if not all(_OWN_NAME.fullmatch(temp) for _, temp in parts):
        return
    for target, temp in parts:
        temp_path = os.path.join(folder, temp)
        if not os.path.lexists(temp_path):
            continue
        try:
            _rename(temp_path, Path(folder) / target, overwrite)
        except (OSError, TokvizError):
            pass
    _fsync_folder(Path(folder))
