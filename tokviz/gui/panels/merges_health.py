"""The Merges panel's Health tab, drawn: a vocabulary health report (`analysis.health.HealthReport`)
as its summary line, its findings tree (a section per kind of finding, each row a token or a merge
with why) and the bar chart of the count per finding on a log axis."""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem

from ...analysis.health import HealthReport
from ..widgets.messages import show
from ..widgets.plots import MIN_PLOT_HEIGHT, CategoryAxis
from ..widgets.style import TokenTheme

SECTION_LIMIT = 2000  # rows listed per kind of finding
# HealthReport.counts()'s names, as the chart shows them
FINDINGS = {
    "unreachable": QT_TRANSLATE_NOOP("MergesHealth", "unreachable"),
    "bad merges": QT_TRANSLATE_NOOP("MergesHealth", "bad merges"),
    "partial UTF-8": QT_TRANSLATE_NOOP("MergesHealth", "partial UTF-8"),
    "duplicates": QT_TRANSLATE_NOOP("MergesHealth", "duplicates"),
    "split specials": QT_TRANSLATE_NOOP("MergesHealth", "split specials"),
    "undecodable": QT_TRANSLATE_NOOP("MergesHealth", "undecodable"),
    "unproduced specials": QT_TRANSLATE_NOOP("MergesHealth", "unproduced specials"),
    "intermediate-only": QT_TRANSLATE_NOOP("MergesHealth", "intermediate-only"),
    "added duplicates": QT_TRANSLATE_NOOP("MergesHealth", "added duplicates"),
    "same decode": QT_TRANSLATE_NOOP("MergesHealth", "same decode"),
    "stray bytes": QT_TRANSLATE_NOOP("MergesHealth", "stray bytes"),
}


def _tr(text: str) -> str:
    return QCoreApplication.translate("MergesHealth", text)


def finding_name(name: str) -> str:
    """A kind of finding (a key of `HealthReport.counts()`) as shown."""
    return _tr(FINDINGS[name]) if name in FINDINGS else name


def health_summary(report: HealthReport) -> str:
    """The line above the chart: the model, its size and how many kinds of finding it has."""
    counts = report.counts()
    found = sum(1 for v in counts.values() if v)
    line = QCoreApplication.translate(
        "MergesHealth", "{model}, {size} tokens ({checked} checked for reachability): {found} of {kinds} kinds of "
                        "finding (the chart; the list below).").format(
        model=report.model, size=f"{report.vocab_size:,}", checked=f"{report.checked:,}", found=found,
        kinds=len(counts))
    return line + "".join(f"\n{show(n)}" for n in report.notes)


def counts_tooltip(counts: dict[str, int]) -> str:
    each = QCoreApplication.translate("MergesHealth", "{count} {finding}")
    return QCoreApplication.translate("MergesHealth", ", ").join(
        each.format(count=f"{v:,}", finding=finding_name(k)) for k, v in counts.items())


def fill_tree(tree: QTreeWidget, report: HealthReport, label_of, id_to_token) -> None:
    """The findings of `report` in `tree`, a section per kind (the first, unreachable tokens,
    expanded); a row naming a token holds it (UserRole) for double-clicking to its tree.
    `label_of(symbol)`: a model symbol as people read it; `id_to_token(id)`."""
    tree.clear()
    heading = QCoreApplication.translate("MergesHealth", "{title} ({count})")

    def section(title: str, rows):
        top = QTreeWidgetItem([heading.format(title=title, count=f"{len(rows):,}"), ""])
        tree.addTopLevelItem(top)
        top.setFirstColumnSpanned(True)  # (a section's title is not cut at the first column)
        top.setToolTip(0, top.text(0))
        for label, detail, token in rows[:SECTION_LIMIT]:
            child = QTreeWidgetItem([label, detail])
            child.setToolTip(0, label)
            child.setToolTip(1, detail)
            if token is not None:
                child.setData(0, Qt.ItemDataRole.UserRole, token)
            top.addChild(child)
        return top

    def ids(seq) -> str:
        return ", ".join(map(str, seq))

    def tok(i: int) -> str:
        return label_of(id_to_token(i) or "")

    ids_are = QCoreApplication.translate("MergesHealth", "ids {ids}")
    encodes_to = QCoreApplication.translate("MergesHealth", "encodes to {pieces}")
    section(QCoreApplication.translate("MergesHealth", "Unreachable tokens"),
            [(f"{i}  {label_of(t)}", encodes_to.format(pieces=" | ".join(map(label_of, got))), t)
             for i, t, got in report.unreachable]).setExpanded(True)
    section(QCoreApplication.translate("MergesHealth", "Merges that cannot work as listed"),
            [(f"#{r}  {label_of(a)} + {label_of(b)}", show(why), None) for r, a, b, why in report.bad_merges])
    section(QCoreApplication.translate("MergesHealth", "Tokens that are not UTF-8 alone (byte-level: expected)"),
            [(f"{i}  {label_of(t)}", "", t) for i, t in report.partial_utf8])
    section(QCoreApplication.translate("MergesHealth", "Duplicate token strings"),
            [(repr(t), ids_are.format(ids=ids(group)), None) for t, group in report.duplicates])
    section(QCoreApplication.translate("MergesHealth", "Added tokens the pre-tokenizer would split"),
            [(f"{i}  {c}", " | ".join(p), None) for i, c, p in report.split_specials])
    th = report.tokens
    if th is None:
        return
    only_from = QCoreApplication.translate("MergesHealth", "only from {who}")
    merged_again = QCoreApplication.translate("MergesHealth", "IoS {ios}: {merged} of {count} merged again")
    model_token = QCoreApplication.translate("MergesHealth", "model token {id}")
    section(QCoreApplication.translate("MergesHealth", "Undecodable: decode, then encode, never gives the token back"),
            [(f"{i}  {label_of(t)}", "; ".join(f"{show(form)} → [{ids(got)}]" for form, got in forms.items()), t)
             for i, t, _, forms in th.undecodable])
    section(QCoreApplication.translate("MergesHealth", "Specials text never produces"),
            [(f"{i}  {c}", only_from.format(who=show(who)), None) for i, c, who in th.unproduced_specials])
    section(QCoreApplication.translate("MergesHealth", "Intermediate-only (IoS ≥ {threshold} in {corpus})").format(
                threshold=f"{th.ios_threshold:g}", corpus=show(th.corpus)),
            [(f"{i}  {label_of(t)}", merged_again.format(ios=f"{ios:.2f}", merged=f"{k:,}", count=f"{n:,}"), t)
             for i, t, ios, n, k in th.intermediate])
    section(QCoreApplication.translate("MergesHealth", "Added tokens duplicating model tokens"),
            [(f"{a}  {c}", model_token.format(id=m), None) for a, c, m in th.added_duplicates])
    section(QCoreApplication.translate("MergesHealth", "Ids that decode alike"),
            [(repr(t), ids_are.format(ids=ids(group)), None) for t, group in th.same_decode])
    section(QCoreApplication.translate("MergesHealth", "Stray bytes: text only with their neighbours"),
            [(f"{i}  {tok(i)}", f"[{h}] {show(why)}", None) for i, _, h, why in th.stray_bytes])


def fit_tree_columns(tree: QTreeWidget) -> None:
    """The findings fit the first column, but in a narrow dock the detail column stays in sight."""
    fm = tree.fontMetrics()
    labels = [top.child(k).text(0) for top in map(tree.topLevelItem, range(tree.topLevelItemCount()))
              for k in range(min(top.childCount(), 200))]
    wanted = max(map(fm.horizontalAdvance, labels), default=0) + 2 * tree.indentation() + 16
    tree.setColumnWidth(0, max(120, min(wanted, int(tree.viewport().width() * 0.6))))


def plot_counts(plot: pg.PlotWidget, axis: CategoryAxis, counts: dict[str, int], theme: TokenTheme) -> None:
    """Horizontal bars of the count per finding on a log axis, each labelled with its count."""
    plot.clear()
    names = list(counts)
    axis.set_names([finding_name(n) for n in names])
    values = np.array([counts[n] for n in names], float)
    y = np.arange(len(names), dtype=float)
    low = math.log10(0.5)  # (a bar starts at 0.5, so that a count of 1 shows)
    shown = values > 0
    if shown.any():
        plot.addItem(pg.BarGraphItem(x0=low, y=y[shown], height=0.7, width=np.log10(values[shown]) - low,
                                     brush=pg.mkBrush(theme.palette[1])))
    top = max(1.0, math.log10(max(values.max(initial=1), 1)))
    for k, v in enumerate(values):
        label = pg.TextItem(f" {int(v):,}", color=theme.text, anchor=(0, 0.5))
        label.setPos(math.log10(v) if v > 0 else low, k)
        plot.addItem(label)
    plot.setXRange(low, top * 1.15 + 0.3, padding=0)
    plot.setYRange(-0.6, len(names) - 0.4, padding=0)
    line = axis.label_extent("x")
    plot.setMinimumHeight(max(MIN_PLOT_HEIGHT, int(len(names) * line) + 50))
    plot.show()
