"""Opening tokenizers in the explorer: the first one, from a file or folder or a Library entry (on a
worker), and what the window does when one is loaded or fails to load.

`TokenizerLoading` is a part of `MainWindow` (a mixin: its methods are the window's)."""
from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Slot

from ...core import Tokenizer
from ...errors import TokvizError
from ...paths import check_trailing_separator
from ..panels.merge_tables import token_details
from ..work.workers import LoadResult, describe_error
from .open_tokenizers import open_found
from ... import defaults


class TokenizerLoading:
    """The window's tokenizer: opening one, and showing it everywhere once loaded."""

    def _open_start_tokenizer(self, tokenizer) -> None:
        if isinstance(tokenizer, Tokenizer):
            self.controller.set_tokenizer(tokenizer)
            self._on_tokenizer_ready(tokenizer)
            return
        path = tokenizer if tokenizer is not None else defaults.default_tokenizer_path()
        if tokenizer is None and not os.path.exists(path):
            self.token_view.set_message(
                self.tr("No tokenizer loaded.\nOpen one with File ▸ Open tokenizer… (Ctrl+O) or drop it here."))
        elif self._tokenizer_encoding:
            from ...formats.discover import Found

            self.open_found(Found(Path(path).name, Path(path), "tiktoken", "session", self._tokenizer_encoding))
        else:
            self.open_tokenizer(path)

    def tokenizer(self) -> Tokenizer | None:
        return self.controller.tokenizer

    def tokenizer_encoding(self) -> str | None:
        """The encoding name the open tiktoken cache file was read with (None otherwise)."""
        return self._tokenizer_encoding

    def open_tokenizer(self, path: str | os.PathLike) -> None:
        """Load a tokenizer file or folder on a worker (errors are reported, the window stays as it was)."""
        self._opening.pop(os.fspath(path), None)
        try:
            check_trailing_separator(path)  # (here: the loader's Path would drop the '/')
        except TokvizError as exc:
            self._on_load_failed(os.fspath(path), describe_error(exc))
            return
        self.controller.load_tokenizer(path)

    def open_found(self, found) -> None:
        """Open a tokenizer the Library found (loaded on a worker, as open_tokenizer)."""
        self._opening[os.fspath(found.path)] = found
        self.controller.load_tokenizer(found.path, loader=lambda: open_found(found))

    @Slot(str)
    def _on_load_started(self, path: str) -> None:
        name = Path(path).name or path
        loading = self.tr("Loading {name}…").format(name=name)
        self.statusBar().showMessage(loading)
        if self.controller.tokenizer is None:
            self.token_view.set_message(loading)

    @Slot(object)
    def _on_loaded(self, result: LoadResult) -> None:
        tok = result.tokenizer
        found = self._opening.pop(result.path, None)
        self._tokenizer_encoding = getattr(found, "encoding", None) or (
            self._tokenizer_encoding if self._restored_from and result.path == self._restored_from["tokenizer"]
            else None)
        kept = self.unsaved.find(result.path)
        if kept is not None:
            tok.source.name = kept.name
        else:
            self.settings.add_recent_tokenizer(result.path, self._tok_name(tok), tok.source.format,
                                               self._tokenizer_encoding)
            self.library.refresh_recent(tok)
        message = self.tr("Loaded {name} in {seconds} s").format(name=self._tok_name(tok),
                                                                 seconds=f"{result.seconds:.2f}")
        if self._restore_note:  # (said once, with the first load)
            message, self._restore_note = f"{self._restore_note} · {message}", ""
        self.statusBar().showMessage(message, 10_000)
        self._on_tokenizer_ready(tok)

    def _on_tokenizer_ready(self, tok: Tokenizer) -> None:
        self.ids_panel.set_tokenizer(tok)
        self.merges_panel.set_tokenizer(tok)
        self.edit_panel.set_tokenizer(tok)
        self.stats_view.set_tokenizer(tok)
        self.chat_view.set_tokenizer(tok)
        self.roundtrip_panel.set_tokenizer(tok)
        self._push_analysis_set()
        self._vocab_stale = True
        self._fill_vocab_view(self.vocab_dock.isVisible())
        self.token_view.set_details_provider(token_details(tok, self.merges_panel.tables))
        self.controller.set_allow_special(None)  # each format's own default again
        self.action_allow_special.setChecked(tok.special_in_text)
        self.set_color_mode(self.token_view.color_mode())  # ranks and the unknown id are per tokenizer
        self._update_title()
        self._update_header()
        self.session.changed()
        self.big.start()  # (big-file mode: the whole file again, with the new tokenizer)

    @Slot(str, str)
    def _on_load_failed(self, path: str, reason: str) -> None:
        self._opening.pop(path, None)
        self.statusBar().showMessage(self.tr("Could not load the tokenizer"), 6000)
        if self.controller.tokenizer is None:
            self.token_view.set_message(
                self.tr("No tokenizer loaded.\nOpen one with File ▸ Open tokenizer… (Ctrl+O) or drop it here."))
        self.report_error(self.tr("Could not open tokenizer"), f"{path}\n\n{reason}", path=path, reason=reason)

    @staticmethod
    def _tok_name(tok: Tokenizer | None) -> str:
        if tok is None:
            return QCoreApplication.translate("TokenizerLoading", "no tokenizer")
        src = tok.source
        return src.name or (Path(src.path).name if src.path else QCoreApplication.translate("TokenizerLoading",
                                                                                             "tokenizer"))

    def _resting_tokenizers(self) -> list[Tokenizer]:
        """The tokenizers open here other than the explorer's (its caches serve the typing)."""
        current = self.controller.tokenizer
        others = {id(t): t for t in (*self.compare_view.tokenizers().values(), self.train_panel.result)}
        return [t for t in others.values() if t is not None and t is not current]

    def _unseen_tokenizers(self) -> list[Tokenizer]:
        """The resting tokenizers no view shows: all of them but the Compare panes while the Compare
        tab is shown."""
        resting = self._resting_tokenizers()
        if self.tabs.currentWidget() is not self.compare_view:
            return resting
        shown = {id(t) for t in self.compare_view.tokenizers().values()}
        return [t for t in resting if id(t) not in shown]
