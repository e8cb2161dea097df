"""What SIGINT (Ctrl+C) and SIGTERM do to a `tokviz` command: one short line on stderr, no traceback,
exit status 128 + the signal's number (130, 143), and the line says whether anything was written.
How the console script (console.py) and the command line (cli.main) use it:

    install()                          # first, while the console script is imported
    try:
        arm()                          # a signal noted since install() is raised here
        watch_outputs(["out.json"])    # before a command writes out.json
        ...                            # the command
    except KeyboardInterrupt as exc:
        status = report(exc)           # "tokviz: interrupted; out.json was not written"
    settle()                           # the last moments: no second line

Standard library only: the console script installs this before anything heavy is imported.
The signal raises `Interrupted` (a KeyboardInterrupt) in the main thread, so that every clean-up on
the way out runs (a write being rolled back, a cluster being closed).  A repeated signal in the
first REPEAT_AFTER_S seconds is let go, so that clean-up is not cut short by an impatient second
Ctrl+C; a later one raises again.  One raised where Python drops exceptions (a __del__) is sent
again.  An event loop (the app) takes the signals with `noted` and closes itself; work that must
not be cut (starting a cluster) runs `held`.
"""
from __future__ import annotations

import _thread
import os
import signal
import stat
import sys
import time

SIGNALS = (signal.SIGINT, signal.SIGTERM)
REPEAT_AFTER_S = 2.0
REDELIVER_AFTER_S = 0.01
COMMITTED_ATTR = "tokviz_committed_files"  # set by formats.atomic_write on a signal held back during renames

# tokviz's own temporary files (.NAME.tokviz-PID-HEX.tmp/.bak/.journal, .NAME.HEX.tmp): never an output
_TEMPORARY_NAME = r"\..*\.(tokviz-\d+-[0-9a-f]{12}\.(tmp|bak|journal)|[0-9a-f]{12}\.tmp)"


class Interrupted(KeyboardInterrupt):
    """The KeyboardInterrupt of SIGINT or SIGTERM; `signum` says which, `note` (if given) what the
    interruption left, for the line on stderr."""

    def __init__(self, signum: int, note: str | None = None):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.note = note


_last_raised = [float("-inf")]  # monotonic time of the last Interrupted raised by the handler
_state: dict = {"armed": False, "early": None, "watch": None, "note": None, "reported": False,
                "main_thread": None, "unraisable_hook": None}


def _on_signal(signum: int, frame) -> None:
    if not _state["armed"]:
        if _state["early"] is None:
            _state["early"] = signum  # (raised by `arm`, inside the console script's handling)
        return
    now = time.monotonic()
    if now - _last_raised[0] < REPEAT_AFTER_S:
        return  # (the first one is still on its way out)
    _last_raised[0] = now
    raise Interrupted(signum)


def _on_unraisable(unraisable) -> None:
    """An Interrupted raised where Python drops exceptions (a __del__, a weakref callback, the
    garbage collector) is not lost: the signal is sent again to the main thread a moment later,
    by a helper thread, once that code has returned.  Anything else goes to the hook before."""
    exc = unraisable.exc_value
    if isinstance(exc, Interrupted) and _state["main_thread"] is not None:
        _last_raised[0] = float("-inf")
        _thread.start_new_thread(_send_again, (exc.signum,))
        return
    (_state["unraisable_hook"] or sys.__unraisablehook__)(unraisable)


def _send_again(signum: int) -> None:
    time.sleep(REDELIVER_AFTER_S)
    try:
        signal.pthread_kill(_state["main_thread"], signum)
    except (OSError, ValueError):  # (the process is ending)
        pass


def install() -> None:
    """From now on SIGINT and SIGTERM are the policy's, in the main thread: noted until `arm`,
    then raised as Interrupted.  A signal the parent process set to be ignored (`nohup`, a
    background job) stays ignored; outside the main thread nothing changes (Python handles
    signals only there)."""
    for signum in SIGNALS:
        try:
            if signal.getsignal(signum) == signal.SIG_IGN:
                continue
            signal.signal(signum, _on_signal)
        except (ValueError, OSError):
            return
    if hasattr(signal, "pthread_kill") and _state["main_thread"] is None:
        _state["main_thread"] = _thread.get_ident()
        _state["unraisable_hook"] = sys.unraisablehook
        sys.unraisablehook = _on_unraisable


def arm() -> None:
    """From now on a signal raises Interrupted, and one noted since `install` is raised here: the
    caller is inside the `try` that reports it (between the two, nothing can catch it)."""
    _state["armed"] = True
    if _state["early"] is not None:
        _last_raised[0] = time.monotonic()
        raise Interrupted(_state["early"])


class noted:
    """`with noted() as received:` SIGINT and SIGTERM are only noted in the list `received` (each
    once) inside the block, for an event loop that runs no Python code by itself and closes on its
    own terms; the handlers before are put back after it.  Pair it with `signal.set_wakeup_fd`
    to wake the loop.  Outside the main thread nothing is noted (Python handles signals only there)."""

    def __init__(self):
        self.received: list[int] = []
        self._saved: dict = {}

    def _note(self, signum: int, frame) -> None:
        if signum not in self.received:
            self.received.append(signum)

    def __enter__(self) -> list[int]:
        for signum in SIGNALS:
            try:
                handler = signal.getsignal(signum)
                if handler == signal.SIG_IGN:
                    continue
                signal.signal(signum, self._note)
                self._saved[signum] = handler
            except (ValueError, OSError):
                pass
        return self.received

    def __exit__(self, *exc) -> None:
        for signum, handler in self._saved.items():
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)


class held:
    """`with held():` SIGINT and SIGTERM are held back in the block and delivered, once each, when
    it ends: for work that must not be cut in the middle (starting a cluster, which is closed again
    on the way out).  In the main thread the handlers only take note in the block.  SIGINT is also
    blocked in the calling thread, and so stays blocked in the threads and child processes started
    in the block: Ctrl+C in a terminal reaches the whole process group, and such children are ended
    by this process, not by the key.  (SIGTERM is not blocked: the children must stay terminable.)"""

    def __enter__(self) -> None:
        self._noted = noted()
        self._received = self._noted.__enter__()
        self._mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if hasattr(signal, "pthread_sigmask") else None

    def __exit__(self, *exc) -> None:
        try:
            if self._mask is not None:  # (a SIGINT pending meanwhile is delivered and noted here)
                signal.pthread_sigmask(signal.SIG_SETMASK, self._mask)
        finally:
            self._noted.__exit__(*exc)
        for signum in self._received:
            signal.raise_signal(signum)


# ---- what the line says ----

class OutputWatch:
    """What the output paths of a command hold before it runs, to tell afterwards what it wrote:
    each path, the entries of a path that is a folder, and the files beside it whose names begin
    with its name (NAME-vocab.json for NAME)."""

    def __init__(self, paths):
        self.names = [os.fspath(p) for p in paths]
        self.paths = [os.path.abspath(os.path.expanduser(name)) for name in self.names]
        self.before = self._snapshot()

    def _snapshot(self) -> dict[str, tuple]:
        seen: dict[str, tuple] = {}
        for path in self.paths:
            seen[path] = _identity(path)
            if os.path.isdir(path):
                seen.update(_entries(path, ""))
            seen.update(_entries(os.path.dirname(path), os.path.basename(path)))
        return seen

    def existed(self) -> bool:
        """Whether any output path was there before."""
        return any(self.before.get(p) is not None for p in self.paths)

    def folder(self) -> bool:
        return any(os.path.isdir(p) for p in self.paths)

    def changed(self) -> list[str]:
        """The paths created, replaced or removed since the watch began."""
        after = self._snapshot()
        return sorted(p for p in set(self.before) | set(after) if self.before.get(p) != after.get(p))


def _identity(path: str) -> tuple | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if stat.S_ISDIR(st.st_mode):
        # (a folder's entries are watched one by one; its own size and times change with any
        # temporary file made and removed in it, which writes nothing the user sees)
        return (st.st_mode, st.st_ino)
    return (st.st_mode, st.st_ino, st.st_size, st.st_mtime_ns)


def _entries(folder: str, prefix: str) -> dict[str, tuple]:
    import re

    found = {}
    try:
        with os.scandir(folder or ".") as entries:
            for entry in entries:
                if entry.name.startswith(prefix) and not re.fullmatch(_TEMPORARY_NAME, entry.name, re.DOTALL):
                    found[os.path.join(folder, entry.name)] = _identity(os.path.join(folder, entry.name))
    except OSError:
        pass
    return found


def watch_outputs(paths, note: str | None = None) -> None:
    """The outputs of the command about to run (`report` tells whether they were written), or a
    `note` that says what an interruption leaves for a command whose outputs are not files."""
    paths = [p for p in paths if p]
    _state["watch"] = OutputWatch(paths) if paths else None
    _state["note"] = note
    _state["reported"] = False


def exit_status(exc: BaseException) -> int:
    """128 + the signal's number: 130 for SIGINT (and a KeyboardInterrupt of unknown origin), 143 for SIGTERM."""
    return 128 + int(getattr(exc, "signum", signal.SIGINT))


def message(exc: BaseException) -> str:
    """The one line for `exc`: what happened and whether anything was written."""
    what = "terminated" if getattr(exc, "signum", signal.SIGINT) == signal.SIGTERM else "interrupted"
    watch, note = _state["watch"], getattr(exc, "note", None) or _state["note"]
    if note:
        return f"tokviz: {what}; {note}"
    if watch is None:
        return f"tokviz: {what}; nothing was written"
    names = " + ".join(watch.names)
    changed = watch.changed() or [os.fspath(p) for p in getattr(exc, COMMITTED_ATTR, ())]
    if changed:
        return f"tokviz: {what} after writing {names}"
    if watch.existed():
        kept = "the old files are kept" if watch.folder() else "the old file is kept"
        return f"tokviz: {what}; {names} was not written, {kept}"
    return f"tokviz: {what}; {names} was not written"


def interrupt_in(exc: BaseException) -> KeyboardInterrupt | None:
    """The KeyboardInterrupt `exc` is, or was raised from: Python wraps one raised while a class is
    made (RuntimeError "Error calling __set_name__", Python 3.11) and the like; else None."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def report(exc: BaseException) -> int:
    """Write `exc`'s line on stderr (once per process, however often it is asked); the exit status."""
    if not _state["reported"]:
        _state["reported"] = True
        try:
            line = message(exc)
        except Exception:  # (an output folder that cannot be read now: say no more than this)
            line = "tokviz: interrupted"
        try:
            sys.stderr.write(line + "\n")
            sys.stderr.flush()
        except (OSError, ValueError, AttributeError):  # stderr closed or gone
            pass
    return exit_status(exc)


def settle() -> None:
    """For the last moments of the process, once the command has returned: a signal is ignored
    after a command that ran to its end (its output is complete), and ends the process at once,
    without a word more, after one that was interrupted (its line is written)."""
    disposition = signal.SIG_DFL if _state["reported"] else signal.SIG_IGN
    for signum in SIGNALS:
        try:
            if signal.getsignal(signum) != signal.SIG_IGN:
                signal.signal(signum, disposition)
        except (ValueError, OSError):
            pass


def silence_stdout() -> None:
    """Point stdout at the null device after a BrokenPipeError (the reader went away), so that the
    flush at exit does not fail again with an 'Exception ignored' message."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
