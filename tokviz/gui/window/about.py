"""The About box: what tokviz is and the versions it runs on (useful in bug reports)."""
from __future__ import annotations

import html
import platform
import sys

from PySide6.QtCore import QCoreApplication


def versions() -> dict[str, str]:
    """tokviz, Python, Qt and PySide6, and which native modules are in use (in the app's language)."""
    import PySide6
    from PySide6.QtCore import qVersion

    from ... import __version__, native
    from ...train import bpe_core

    in_use = QCoreApplication.translate("About", "in use")
    not_in_use = QCoreApplication.translate("About", "not in use ({reason})")
    return {
        "tokviz": __version__,
        "Python": f"{platform.python_version()} ({sys.platform})",
        "Qt / PySide6": f"{qVersion()} / {PySide6.__version__}",
        QCoreApplication.translate("About", "native encoder"):
            in_use if native.available else not_in_use.format(reason=native.reason),
        QCoreApplication.translate("About", "native BPE trainer"):
            in_use if bpe_core.native_available() else not_in_use.format(reason=bpe_core.native_reason),
    }


def about_html() -> str:
    rows = "".join(
        f"<tr><td style='color:#6f7b8a; padding-right:10px'>{html.escape(k)}</td><td>{html.escape(v)}</td></tr>"
        for k, v in versions().items()
    )
    blurb = QCoreApplication.translate(
        "About", "See exactly how a tokenizer cuts text: load or train one, paste text or open a file, and "
                 "look at every token, id and byte.")
    return (
        "<h3 style='margin-bottom:4px'>tokviz</h3>"
        f"<p>{html.escape(blurb)}</p>"
        f"<table cellspacing='0'>{rows}</table>"
    )
