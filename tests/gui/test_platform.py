"""The display check that runs before Qt starts."""
from __future__ import annotations

from tokviz.gui.platform import APT_FIX, display_problem

ALL_LIBS = {"xcb-cursor": "libxcb-cursor.so.0", "xcb-icccm": "libxcb-icccm.so.4", "xcb-keysyms": "libxcb-keysyms.so.1"}


def finder(missing=()):
    return lambda name: None if name in missing else ALL_LIBS.get(name)


def test_missing_xcb_library_gives_the_apt_get_line():
    msg = display_problem({"DISPLAY": ":0"}, "linux", finder(missing={"xcb-cursor"}))
    assert msg is not None
    assert "sudo apt-get install libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1" in msg
    assert APT_FIX == "sudo apt-get install libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1"
    assert "libxcb-cursor0" in msg.splitlines()[0]


def test_explicit_xcb_is_checked_too():
    msg = display_problem({"DISPLAY": ":1", "QT_QPA_PLATFORM": "xcb"}, "linux", finder(missing={"xcb-keysyms"}))
    assert msg and APT_FIX in msg


def test_all_libraries_present_is_fine():
    assert display_problem({"DISPLAY": ":0"}, "linux", finder()) is None


def test_no_display_at_all():
    msg = display_problem({}, "linux", finder())
    assert msg and "no display" in msg
    assert "tokviz screenshot" in msg and "QT_QPA_PLATFORM=offscreen" in msg


def test_wayland_and_other_platforms_are_not_second_guessed():
    nothing = finder(missing=set(ALL_LIBS))
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0"}, "linux", nothing) is None
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux", nothing) is None
    assert display_problem({"QT_QPA_PLATFORM": "wayland", "DISPLAY": ":0"}, "linux", nothing) is None
    assert display_problem({}, "darwin", nothing) is None
    assert display_problem({}, "win32", nothing) is None


def test_the_real_find_library_is_used_by_default(monkeypatch):
    import ctypes.util

    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)
    msg = display_problem({"DISPLAY": ":0"}, "linux")
    assert msg and APT_FIX in msg


def test_run_refuses_to_start_without_display(monkeypatch, capsys):
    from tokviz.gui import app

    monkeypatch.setattr(app, "display_problem", lambda: "tokviz: no display found (test)")
    assert app.run() == 1
    assert "no display found" in capsys.readouterr().err
