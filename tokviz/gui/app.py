"""`tokviz` with no sub-command: the desktop app."""
from __future__ import annotations

import sys
from pathlib import Path

from .platform import display_problem, tune_allocator, tune_thread_switching

APP_NAME = "tokviz"


def ensure_application(argv: list[str] | None = None):
    """The running QApplication, created (named "tokviz") if there is none yet."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        tune_allocator()
        QApplication.setApplicationName(APP_NAME)
        QApplication.setApplicationDisplayName(APP_NAME)
        QApplication.setOrganizationName(APP_NAME)
        QApplication.setDesktopFileName(APP_NAME)
        app = QApplication(list(argv) if argv is not None else [sys.argv[0] if sys.argv else APP_NAME])
    tune_thread_switching()
    return app


def run(tokenizer: str | None = None, text_file: str | None = None) -> int:
    """Open the explorer on `tokenizer` (default: the shipped one) and `text_file` (default: the
    sample text) and run until the window closes.  Returns the exit status; 1 (with a message on
    stderr, before Qt starts) when there is no usable display."""
    problem = display_problem()
    if problem:
        print(problem, file=sys.stderr)
        return 1

    from ..errors import TokvizError
    from ..formats import detect
    from . import files

    # Check the arguments before a window appears: a typo should not need a dialog.
    try:
        if tokenizer is not None:
            detect(Path(tokenizer).expanduser())
        if text_file is not None:
            files.read_text_file(text_file)
    except TokvizError as exc:
        print(f"tokviz: error: {exc}", file=sys.stderr)
        return 2

    app = ensure_application()
    from .main_window import MainWindow

    window = MainWindow(tokenizer, text_file=text_file)
    window.show()
    app.aboutToQuit.connect(window.controller.shutdown)
    return app.exec()
