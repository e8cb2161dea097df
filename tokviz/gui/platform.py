"""What the app asks of the system, with no Qt imports.

* Can Qt open a window here?  Checked before the QApplication exists, so tokviz can print a
  helpful line instead of Qt's abort ("could not load the Qt platform plugin xcb").
* The allocator, GIL-switch and thread-priority settings a long interactive session runs with."""
from __future__ import annotations

import ctypes.util
import os
import sys
import threading
from collections.abc import Callable, Mapping

# The libraries Qt >= 6.5's xcb platform plugin needs that a fresh Debian/Ubuntu lacks:
# (name for ctypes.util.find_library, Debian package).
XCB_LIBRARIES = (
    ("xcb-cursor", "libxcb-cursor0"),
    ("xcb-icccm", "libxcb-icccm4"),
    ("xcb-keysyms", "libxcb-keysyms1"),
)
APT_FIX = "sudo apt-get install " + " ".join(pkg for _, pkg in XCB_LIBRARIES)


def display_problem(
    environ: Mapping[str, str] | None = None,
    platform: str | None = None,
    find_library: Callable[[str], str | None] | None = None,
) -> str | None:
    """A message saying why the GUI cannot start on this display, or None if it should start.

    Only Linux is checked: with no display at all, or with an X display (QT_QPA_PLATFORM unset or
    "xcb", no WAYLAND_DISPLAY) whose xcb plugin libraries are missing.  Any other explicit
    QT_QPA_PLATFORM (offscreen, wayland, vnc, ...) is the user's choice and is not second-guessed."""
    env = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    find = ctypes.util.find_library if find_library is None else find_library
    if not platform.startswith("linux"):
        return None
    qpa = env.get("QT_QPA_PLATFORM", "").strip()
    plugin = qpa.split(":", 1)[0].split(";", 1)[0]
    if plugin not in ("", "xcb"):
        return None
    if plugin == "" and env.get("WAYLAND_DISPLAY"):
        return None
    if not env.get("DISPLAY"):
        if plugin == "" and not env.get("WAYLAND_DISPLAY"):
            return (
                "tokviz: no display found (neither DISPLAY nor WAYLAND_DISPLAY is set), so the window cannot open.\n"
                "To render a view to a PNG without a display use:  tokviz screenshot explorer -o out.png\n"
                "or run with QT_QPA_PLATFORM=offscreen."
            )
        return (
            "tokviz: QT_QPA_PLATFORM=xcb but DISPLAY is not set, so the window cannot open.\n"
            "Set DISPLAY, or render headless with  tokviz screenshot explorer -o out.png  (or QT_QPA_PLATFORM=offscreen)."
        )
    missing = [pkg for lib, pkg in XCB_LIBRARIES if not find(lib)]
    if missing:
        return (
            f"tokviz: Qt's X11 (xcb) platform plugin needs libraries that are not installed: {', '.join(missing)}.\n"
            f"Install them with:\n\n    {APT_FIX}\n\n"
            "(Or run headless with QT_QPA_PLATFORM=offscreen, e.g. tokviz screenshot explorer -o out.png.)"
        )
    return None


# glibc's mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8


def _glibc():
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
        return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


GIL_SWITCH_SECONDS = 0.00005


def tune_thread_switching() -> None:
    """Hand the GIL between threads every 0.05 ms rather than every 5.

    A worker running Python (a vocabulary check decoding 150k tokens, say) holds the GIL up to the
    switch interval each time the UI thread asks for it, and the UI thread asks at each call between
    Qt and Python: a table or token view being painted asks once per cell it reads.  Longest UI stall
    when the Vocabulary view's health filter starts its check on Qwen2.5 (benchmarks/analyses_ui.py):
    440-610 ms at 5 ms, 240-270 at 1 ms, 140 at 0.5 ms, 90 at 0.2 ms.  Fitting the Vocabulary view's
    columns to Qwen2.5's tokens beside two busy Python threads: 412 ms at 0.2 ms, 193 at 0.05 ms
    (24 ms alone).  Three Python threads sharing the GIL do 67-74% of the work they do at 5 ms at
    0.2, 0.1, 0.05 or 0.02 ms alike (2 s runs, 2 cores)."""
    sys.setswitchinterval(GIL_SWITCH_SECONDS)


# How much lower than the UI thread a background worker thread runs (a Linux nice value, 0..19).
BACKGROUND_NICE = 10


def lower_this_thread() -> bool:
    """Run the calling thread at a lower CPU priority than the UI thread (Linux: nice +10 for this
    thread alone, and the threads it starts); True if applied.

    On a machine with fewer cores than busy threads, the UI thread waits for a core each time it
    gets the GIL back, and a paint hands the GIL over hundreds of times.  A token-view repaint of
    50,000 characters beside five busy Python threads took 14-53 ms at equal priority and 4-8 ms with
    them at nice 10 (2 cores).  A thread can only lower its own priority: it stays lowered."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        tid = threading.get_native_id()
        if os.getpriority(os.PRIO_PROCESS, tid) < BACKGROUND_NICE:
            os.setpriority(os.PRIO_PROCESS, tid, BACKGROUND_NICE)
        return True
    except OSError:
        return False


def tune_allocator() -> bool:
    """Keep a long session's memory from creeping up (glibc only; True if applied).

    The app allocates and frees many large blocks (encodings of whole texts, vocabulary tables) on
    several threads.  By default glibc raises its mmap threshold each time such a block is freed,
    so later ones come from the heaps instead and, once freed, often stay with the process; and
    every thread may get a heap of its own.  A fixed threshold gives blocks of 256 KB and more back
    to the system when freed, free heap tops are trimmed beyond 1 MB, and two heaps serve all the
    threads (the machine's encoding threads do their heavy work in buffers they keep).  Measured
    with benchmarks/soak.py."""
    libc = _glibc()
    if libc is None:
        return False
    return all(libc.mallopt(param, value) == 1 for param, value in (
        (_M_MMAP_THRESHOLD, 256 * 1024), (_M_TRIM_THRESHOLD, 1 << 20), (_M_ARENA_MAX, 2)))


def trim_memory() -> None:
    """Give the free memory inside the heaps back to the system (glibc; elsewhere nothing)."""
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]


def heap_free_mb() -> float | None:
    """MB the heaps hold free (glibc's mallinfo2: what `trim_memory` could give back, at most);
    None where it cannot be told."""
    libc = _glibc()
    mallinfo2 = getattr(libc, "mallinfo2", None) if libc is not None else None
    if mallinfo2 is None:
        return None
    mallinfo2.restype = _MallInfo2
    return mallinfo2().fordblks / 2**20
