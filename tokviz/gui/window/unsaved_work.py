"""Tokenizers trained or edited in the app: open in the explorer at once, kept in the data folder
(on a worker) until exported or discarded, File ▸ Export tokenizer… and File ▸ Unsaved tokenizers, and
what File ▸ Quit asks about work not saved.

`UnsavedWork` is a part of `MainWindow` (a mixin: its methods are the window's)."""
from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtWidgets import QMessageBox

from ...core import Tokenizer
from ...errors import TokvizError
from ..widgets.messages import show
from .export_dialog import ExportDialog
from .session import KeptTokenizer, ask_keep_unsaved

NOT_TOKENIZER_FORMATS = ("vocab-tsv", "vocab-csv")  # exports that are listings, not a tokenizer to reopen


class UnsavedWork:
    """Trained and edited tokenizers, exporting them, and quitting without losing work."""

    def export_tokenizer(self) -> ExportDialog | None:
        """Open the export dialog for the current tokenizer (File ▸ Export tokenizer…)."""
        tok = self.controller.tokenizer
        if tok is None:
            self.statusBar().showMessage(self.tr("No tokenizer to export"), 4000)
            return None
        dialog = ExportDialog(tok, self)  # (deleted when it closes)
        dialog.exported.connect(self._exported)
        dialog.open()
        return dialog

    def fill_unsaved_menu(self) -> None:
        """File ▸ Unsaved tokenizers, filled when shown: each kept tokenizer (choose one to open it),
        then Discard ▸ each of them.  Its one submenu is made once: a menu is a window of its own,
        and one per entry would be as many windows as tokenizers trained in the session."""
        menu, discard = self.unsaved_menu, self.unsaved_discard_menu
        menu.clear()
        discard.clear()
        kept = self.unsaved.entries()
        for entry in kept:
            action = menu.addAction(entry.describe(), lambda e=entry: self.open_kept(e))
            action.setStatusTip(self.tr("Open it in the explorer"))
            discard.addAction(entry.describe() + "…", lambda e=entry: self.discard_kept(e, ask=True))
        if kept:
            menu.addSeparator()
            menu.addMenu(discard)
        else:
            menu.addAction(self.tr("Every tokenizer trained or edited here has been exported")).setEnabled(False)

    def use_trained_tokenizer(self, tok: Tokenizer) -> None:
        """Open a tokenizer trained in the Training panel in the explorer, and in the Compare tab
        beside the tokenizers there; it is kept in the data folder until exported or discarded."""
        self.controller.set_tokenizer(tok)
        self._on_tokenizer_ready(tok)
        if self._compare_restored:
            self.compare_view.add_tokenizer(tok)
        self._keep(tok, "trained")
        self.statusBar().showMessage(
            self.tr("Trained {name}: it is open in the explorer").format(name=self._tok_name(tok)), 6000)

    def _use_edited_tokenizer(self, tok: Tokenizer) -> None:
        before = self.controller.tokenizer
        self.controller.set_tokenizer(tok)
        self._on_tokenizer_ready(tok)
        if tok is self.edit_panel.original():
            return  # (every edit undone: it has its file, or its entry, and other views may share it)
        self._keep(tok, "edited", replaces=before)
        self.statusBar().showMessage(
            self.tr("Vocabulary edited: {count} tokens").format(count=f"{tok.vocab_size:,}"), 6000)

    def _keep(self, tok: Tokenizer, origin: str, replaces: Tokenizer | None = None) -> None:
        """Keep `tok` in the data folder (on a worker); an edit of an unsaved tokenizer replaces it."""
        old = self.unsaved.find(replaces.source.path) if replaces is not None else None
        self._keeping.add(id(tok))

        def done(kept: KeptTokenizer) -> None:
            self._keeping.discard(id(tok))
            exported = self._exported_while_kept.pop(id(tok), None)
            if exported is not None:  # (exported before this keep finished: nothing to keep)
                self.unsaved.discard(kept.key)
                self.session.changed()
                return
            tok.source.path = os.fspath(kept.path)
            self.compare_view.set_tokenizer_path(tok, os.fspath(kept.path))
            if old is not None and not self.compare_view.uses_path(os.fspath(old.path)):
                self.unsaved.discard(old.key)
            self.session.changed()

        def failed(exc: BaseException) -> None:
            self._keeping.discard(id(tok))
            if self._exported_while_kept.pop(id(tok), None) is not None:
                return  # (exported meanwhile: nothing to keep)
            reason = show(exc.reason) if isinstance(exc, TokvizError) else str(exc)
            self._unkept[id(tok)] = (self._tok_name(tok), reason)
            self.statusBar().showMessage(self.tr("{name} cannot be kept until exported: {reason}").format(
                name=self._tok_name(tok), reason=reason), 10_000)

        self._workers.submit(lambda: self.unsaved.keep(tok, origin), done, failed)

    def _exported(self, tok: Tokenizer, written: list[Path], fmt: str) -> None:
        """`tok` was written to `written` as `fmt` (ExportDialog.exported)."""
        self.statusBar().showMessage(self.tr("Written: {paths}").format(paths=", ".join(str(p) for p in written)), 8000)
        if not written or fmt in NOT_TOKENIZER_FORMATS:
            return
        kept = self.unsaved.find(tok.source.path)
        self._unkept.pop(id(tok), None)
        new_path = os.fspath(written[0].parent if fmt == "vocab-merges" else written[0])
        if kept is None:
            if id(tok) in self._keeping:  # (still being kept: _keep's done() discards it)
                self._exported_while_kept[id(tok)] = new_path
                tok.source.path = new_path
                self.compare_view.set_tokenizer_path(tok, new_path)
                self.session.changed()
            return
        tok.source.path = new_path
        self.compare_view.set_tokenizer_path(tok, new_path)
        self.unsaved.discard(kept.key)
        self.session.changed()

    def open_kept(self, kept: KeptTokenizer) -> None:
        self.open_tokenizer(kept.path)

    def discard_kept(self, kept: KeptTokenizer, *, ask: bool = False) -> bool:
        """Delete a tokenizer kept in the data folder (and its Compare pane); True if done."""
        if ask and QMessageBox.question(
                self, self.tr("Discard tokenizer"),
                self.tr("Discard {tokenizer}? It was never exported.").format(tokenizer=kept.describe()),
                QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
                QMessageBox.StandardButton.Cancel) != QMessageBox.StandardButton.Discard:
            return False
        self.compare_view.remove_path(os.fspath(kept.path))
        self.unsaved.discard(kept.key)
        return True

    def unsaved_work(self) -> list[KeptTokenizer]:
        """Tokenizers trained or edited here and not exported (kept in the data folder)."""
        return self.unsaved.entries()

    def request_quit(self) -> None:
        """File ▸ Quit: ask about a modified text the session cannot keep and about tokenizers not
        exported, then close."""
        if self._confirm_quit():
            self._quit_confirmed = True
            self.close()

    def _confirm_quit(self) -> bool:
        # a modified text is kept by the session and reopens at the next start; only one it cannot
        # keep (too long, or the settings folder not writable) is asked about
        if self.document.is_modified() and not self.session.save():
            answer = self.document.ask(quitting=True)
            if answer == "cancel":
                return False
            if answer == "save":
                self.document.save(then=self.request_quit)  # (quits once saved)
                return False
        # the same for the Chat tab's conversation
        if self.chat_view.is_modified() and not self.session.keeps_chat():
            answer = self.chat_view.ask(quitting=True)
            if answer == "cancel":
                return False
            if answer == "save":
                self.chat_view.save(then=self.request_quit)
                return False
        kept = self.unsaved_work()
        if not kept:
            return True
        answer = ask_keep_unsaved(self, kept)
        if answer == "discard":
            for entry in kept:
                self.discard_kept(entry)
        return answer != "cancel"
