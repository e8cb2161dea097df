"""The merge tree of a token drawn as a real tree: the token at the top, the merges that made it
below, down to the bytes or characters it started from.

Leaves sit side by side at the bottom row of their depth (a tidy layout: each parent centred over
its two children); every node shows the token (bytes that are not a whole character as ⟨e6⟩),
its id and the rank of the merge that made it, and the count of that merge at training time when
the model knows it.  The wheel zooms; clicking a node emits `tokenActivated(token)` (the panel then
shows that token's tree).
"""
from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene, QGraphicsView

from ..analysis.merges import MergeNode
from .style import DEFAULT_THEME, TokenTheme, mono_font

H_GAP = 14.0
V_GAP = 34.0
PAD = 6.0


class _NodeItem(QGraphicsItem):
    """One node: a rounded box with the token and a line of facts."""

    def __init__(self, node: MergeNode, label: str, facts: str, size: tuple[float, float], colors, fonts):
        super().__init__()
        self.node = node
        self.label = label
        self.facts = facts
        self.w, self.h = size
        self.fill, self.border, self.text, self.muted = colors
        self.font, self.small = fonts
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip(f"{label}\n{facts}" + ("" if node.reachable else "\nunreachable: its own string never encodes to it"))
        self.setAcceptHoverEvents(True)
        self._hover = False

    def boundingRect(self) -> QRectF:
        return QRectF(-self.w / 2 - 2, -2, self.w + 4, self.h + 4)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        pen = QPen(self.border, 2.0 if self._hover else 1.0)
        if not self.node.reachable:
            pen.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.setBrush(QBrush(self.fill))
        rect = QRectF(-self.w / 2, 0, self.w, self.h)
        painter.drawRoundedRect(rect, 4, 4)
        painter.setPen(self.text)
        painter.setFont(self.font)
        top = QRectF(rect.left(), rect.top() + PAD / 2, rect.width(), QFontMetricsF(self.font).height())
        painter.drawText(top, Qt.AlignmentFlag.AlignHCenter, self.label)
        if self.facts:
            painter.setPen(self.muted)
            painter.setFont(self.small)
            bottom = QRectF(rect.left(), top.bottom(), rect.width(), QFontMetricsF(self.small).height())
            painter.drawText(bottom, Qt.AlignmentFlag.AlignHCenter, self.facts)

    def hoverEnterEvent(self, event) -> None:
        self._hover = True
        self.update()

    def hoverLeaveEvent(self, event) -> None:
        self._hover = False
        self.update()


class MergeTreeView(QGraphicsView):
    """Shows a MergeNode tree; `label_of(token) -> str` turns a model symbol into what people read."""

    tokenActivated = Signal(str)

    def __init__(self, parent=None, theme: TokenTheme = DEFAULT_THEME):
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.theme = theme
        self._root: MergeNode | None = None
        self._items: list[_NodeItem] = []
        self._font = mono_font()
        self._small = QFont(self._font)
        self._small.setPointSizeF(max(6.0, self._font.pointSizeF() * 0.78))
        self._label_of = lambda token: token
        self._press = QPointF()

    def set_theme(self, theme: TokenTheme) -> None:
        self.theme = theme
        self.setBackgroundBrush(QColor(theme.background))
        if self._root is not None:
            self.set_tree(self._root, self._label_of)

    def set_tree(self, root: MergeNode | None, label_of=None) -> None:
        """Draw `root`'s tree (None: clear) and fit it in the view."""
        if label_of is not None:
            self._label_of = label_of
        self._root = root
        scene = self.scene()
        scene.clear()
        self._items = []
        if root is None:
            return
        fm, fm_small = QFontMetricsF(self._font), QFontMetricsF(self._small)
        box_h = fm.height() + fm_small.height() + PAD
        sizes: dict[int, tuple[float, float]] = {}
        labels: dict[int, tuple[str, str]] = {}
        for node in root.walk():
            label = self._label_of(node.token)
            facts = " · ".join(f for f in (
                f"id {node.id}" if node.id is not None else "not a token",
                f"#{node.rank}" if node.rank is not None else "",
                f"×{node.count:,}" if node.count is not None else "") if f)
            labels[id(node)] = (label, facts)
            sizes[id(node)] = (max(fm.horizontalAdvance(label), fm_small.horizontalAdvance(facts)) + 2 * PAD, box_h)
        positions: dict[int, QPointF] = {}
        next_x = [0.0]

        def place(node: MergeNode, depth: int) -> float:
            w = sizes[id(node)][0]
            if node.is_leaf:
                x = next_x[0] + w / 2
                next_x[0] += w + H_GAP
            else:
                xs = [place(c, depth + 1) for c in node.children]
                x = sum(xs) / len(xs)
                next_x[0] = max(next_x[0], x + w / 2 + H_GAP)
            positions[id(node)] = QPointF(x, depth * (box_h + V_GAP))
            return x

        place(root, 0)
        edge_pen = QPen(QColor(self.theme.marker), 1.2)
        colors = self.theme.palette
        for node in root.walk():
            p = positions[id(node)]
            for child in node.children:
                c = positions[id(child)]
                scene.addLine(p.x(), p.y() + box_h, c.x(), c.y(), edge_pen)
        for k, node in enumerate(root.walk()):
            fill = QColor(colors[k % len(colors)]) if node.id is not None else QColor(self.theme.neutral)
            item = _NodeItem(node, *labels[id(node)], sizes[id(node)],
                             (fill, fill.darker(self.theme.border_darker), QColor(self.theme.text),
                              QColor(self.theme.message_text)),
                             (self._font, self._small))
            item.setPos(positions[id(node)])
            scene.addItem(item)
            self._items.append(item)
        scene.setSceneRect(scene.itemsBoundingRect().adjusted(-20, -20, 20, 20))
        self.fit()

    def tree(self) -> MergeNode | None:
        return self._root

    def node_items(self) -> list[_NodeItem]:
        """The drawn nodes, parents before children (for tests: positions, labels)."""
        return list(self._items)

    def fit(self) -> None:
        """Zoom so the whole tree fits (never larger than 1:1)."""
        self.resetTransform()
        rect = self.scene().sceneRect()
        if rect.width() > self.viewport().width() or rect.height() > self.viewport().height():
            self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)

    def zoom(self, factor: float) -> None:
        scale = self.transform().m11() * factor
        if 0.05 <= scale <= 8.0:
            self.scale(factor, factor)

    def wheelEvent(self, event) -> None:
        self.zoom(1.15 if event.angleDelta().y() > 0 else 1 / 1.15)

    def mouseReleaseEvent(self, event) -> None:
        super().mouseReleaseEvent(event)
        if event.button() == Qt.MouseButton.LeftButton and (event.position() - self._press).manhattanLength() < 4:
            item = self.itemAt(event.position().toPoint())
            while item is not None and not isinstance(item, _NodeItem):
                item = item.parentItem()
            if item is not None:
                self.tokenActivated.emit(item.node.token)

    def mousePressEvent(self, event) -> None:
        self._press = event.position()
        super().mousePressEvent(event)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self._root is not None:
            self.fit()
