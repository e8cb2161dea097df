"""`tokviz` with no sub-command: the desktop app."""
from __future__ import annotations

import sys
from pathlib import Path

from . import i18n
from .platform import display_problem, tune_allocator, tune_thread_switching

APP_NAME = "tokviz"


def ensure_application(argv: list[str] | None = None, *, gated: bool = False, language: str | None = None):
    """The running QApplication, created (named "tokviz") if there is none yet; `gated`: one during
    whose event handling the workers pause (gui/work/ui_gate.py), as the app runs.  `language`: the
    language to speak from now on (gui/i18n); by default a new application speaks the one chosen
    before (View ▸ Language), else the system's."""
    from PySide6.QtWidgets import QApplication

    from .work import ui_gate

    app = QApplication.instance()
    if app is None:
        tune_allocator()
        QApplication.setApplicationName(APP_NAME)
        QApplication.setApplicationDisplayName(APP_NAME)
        QApplication.setOrganizationName(APP_NAME)
        QApplication.setDesktopFileName(APP_NAME)
        application = ui_gate.application_class() if gated else QApplication
        app = application(list(argv) if argv is not None else [sys.argv[0] if sys.argv else APP_NAME])
        if language is None:
            from .settings import Settings

            language = i18n.chosen_language(settings=Settings())
    if language is not None:
        i18n.install(language)
    tune_thread_switching()
    return app


def run(tokenizer: str | None = None, text_file: str | None = None, language: str | None = None) -> int:
    """Open the explorer on `tokenizer` (default: the shipped one) and `text_file` (default: the
    sample text), speaking `language` (default: gui/i18n's choice), and run until the window
    closes.  Returns the exit status; 1 (with a message on
    stderr, before Qt starts) when there is no usable display."""
    problem = display_problem()
    if problem:
        print(problem, file=sys.stderr)
        return 1

    from ..errors import TokvizError
    from ..formats import detect
    from .window import files

    # Check the arguments before a window appears: a typo should not need a dialog.
    try:
        if tokenizer is not None:
            detect(Path(tokenizer).expanduser())
        if text_file is not None:
            files.read_text_file(text_file)
    except TokvizError as exc:
        print(f"tokviz: error: {exc}", file=sys.stderr)
        return 2

    from .settings import Settings

    app = ensure_application(gated=True, language=i18n.chosen_language(language, Settings()))

    def open_window():
        from .window.main_window import MainWindow

        window = MainWindow(tokenizer, text_file=text_file)
        window.show()
        app.aboutToQuit.connect(window.controller.shutdown)
        return window

    return _exec_closing_on_signal(app, open_window)


def _exec_closing_on_signal(app, open_window) -> int:
    """app.exec() on the window `open_window()` makes, with Ctrl+C in the terminal (SIGINT) or
    SIGTERM closing it as a programmatic close does (nothing asks; the session is kept) and then
    raising interrupts.Interrupted, for the command line's one line and exit status.  From the
    window's making on, a signal is only noted: a KeyboardInterrupt inside Qt's calls into Python
    would be lost there.  Qt's event loop runs no Python code by itself: the signal's wake-up
    byte on a socket brings it to Python."""
    import signal
    import socket

    from PySide6.QtCore import QSocketNotifier

    from ..interrupts import Interrupted, noted

    reader, writer = socket.socketpair()
    reader.setblocking(False)
    writer.setblocking(False)
    with noted() as received:
        previous = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
        notifier = QSocketNotifier(reader.fileno(), QSocketNotifier.Type.Read)
        try:
            window = open_window()

            def woken() -> None:  # (the noting handler has run by the time Python code runs here)
                try:
                    reader.recv(512)
                except OSError:
                    pass
                if received:
                    window.close()
                    app.quit()

            notifier.activated.connect(woken)
            if received:
                window.close()
                status = 0
            else:
                status = app.exec()
        finally:
            signal.set_wakeup_fd(previous)
            notifier.setEnabled(False)
            reader.close()
            writer.close()
    if received:
        raise Interrupted(received[0], note="the app closed (its session is kept)")
    return status
