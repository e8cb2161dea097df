"""The merge tables a model's views read (`analysis.merges`: the rank table of a trace, the merge
index of "used by", unreachable trees and merge ranks), built on a worker, never on the UI thread.

A view asks `trace_ready(model)` / `built_merge_index(model)`; while the answer is no it shows
"indexing…", calls `MergeTables.request(model)` and draws again on `built`.  `token_details` is a
token view's details provider in that manner: a merge rank reads "indexing…" until the index is
built.
"""
from __future__ import annotations

import weakref

from PySide6.QtCore import QCoreApplication, QObject, Signal

from ...analysis.merges import merge_index, prepare_trace
from ...analysis.token_info import NOT_INDEXED, token_facts
from ..work.workers import TaskRunner, describe_error


class MergeTables(QObject):
    """Builds a model's merge tables on one worker thread, at most once per model while it lives
    (`analysis.merges` keeps them with the model, and builds each once even when several threads
    ask).  `built` follows each table; `failed(reason)` a build that raised."""

    built = Signal()
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._runner = TaskRunner(1, self)
        self._asked: weakref.WeakSet = weakref.WeakSet()  # models whose tables are queued or built

    def request(self, model) -> None:
        """Build `model`'s rank table, then its merge index, unless asked before.  The worker holds
        the model only while it builds: a model dropped before its turn is not built."""
        if model in self._asked:
            return
        self._asked.add(model)
        ref = weakref.ref(model)

        def build(step) -> None:
            model = ref()
            if model is not None:
                step(model)

        def failed(exc: BaseException) -> None:
            model = ref()
            if model is not None:
                self._asked.discard(model)  # (asked again, it is tried again)
            self.failed.emit(describe_error(exc))

        for step in (prepare_trace, merge_index):
            self._runner.submit(lambda step=step: build(step), lambda _: self.built.emit(), failed)

    def is_busy(self) -> bool:
        return self._runner.pending() > 0

    def shutdown(self, timeout_ms: int = 5000) -> None:
        self._runner.shutdown(timeout_ms)


def token_details(tokenizer, tables: MergeTables):
    """A token view's details provider for `tokenizer`: `token_facts` without waiting for the merge
    index; until it is built the merge rank reads "indexing…" and `tables` builds it."""
    def details(token_id: int) -> dict[str, object]:
        facts = token_facts(tokenizer, token_id, build=False)
        if facts.get("merge rank") is NOT_INDEXED:
            tables.request(tokenizer.model)
            facts["merge rank"] = QCoreApplication.translate("MergeTables", "indexing…")
        return facts

    return details
