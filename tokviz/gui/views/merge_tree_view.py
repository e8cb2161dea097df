"""The merge tree of a token drawn as a real tree: the token at the top, the merges that made it
below, down to the bytes or characters it started from.

Leaves sit side by side at the bottom row of their depth (a tidy layout: each parent centred over
its two children); every node shows the token (bytes that are not a whole character as ⟨e6⟩) and,
one per line so that nodes stay narrow in a side dock, its id, the rank of the merge that made it
and the count of that merge at training time when the model knows it.

The tree is scaled to fit the view on show and resize, but never so far that its smallest text is
below MIN_LEGIBLE_PT points: a bigger tree is shown at that scale and scrolls (drag, wheel).
Ctrl+wheel, the + / - keys or `zoom()` zoom; `fit()` (or 0) returns to fitting.  Clicking a node
emits `tokenActivated(token)` (the panel then shows that token's tree).
"""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPen, QTransform
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene, QGraphicsView

from ...analysis.merges import MergeNode
from .coloring import theme_text_color
from ..widgets.style import DEFAULT_THEME, TokenTheme, mono_font

H_GAP = 10.0
V_GAP = 26.0
PAD = 5.0
MIN_LEGIBLE_PT = 7.0  # fitting never draws the smallest text (a node's facts) below this size
MAX_ZOOM = 4.0


class _NodeItem(QGraphicsItem):
    """One node: a rounded box with the token and a line of facts."""

    def __init__(self, node: MergeNode, label: str, facts: list[str], size: tuple[float, float], colors, fonts):
        super().__init__()
        self.node = node
        self.label = label
        self.facts = facts
        self.w, self.h = size
        self.fill, self.border, self.text, self.muted = colors
        self.font, self.small = fonts
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        lines = [label, *facts]
        if not node.reachable:
            lines.append(QCoreApplication.translate("MergeTreeView", "unreachable: its own string never encodes to it"))
        self.setToolTip("\n".join(lines))
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
        painter.setPen(self.muted)
        painter.setFont(self.small)
        line_h = QFontMetricsF(self.small).height()
        for k, fact in enumerate(self.facts):
            line = QRectF(rect.left(), top.bottom() + k * line_h, rect.width(), line_h)
            painter.drawText(line, Qt.AlignmentFlag.AlignHCenter, fact)

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
        self.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.theme = theme
        self._root: MergeNode | None = None
        self._items: list[_NodeItem] = []
        self._font = mono_font()
        self._small = QFont(self._font)
        self._small.setPointSizeF(max(6.0, self._font.pointSizeF() * 0.85))
        self._label_of = lambda token: token
        self._press = QPointF()
        self._fitting = True  # follow the view's size until the user zooms
        self.setBackgroundBrush(QColor(theme.background))

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
            scene.setSceneRect(QRectF())
            return
        fm, fm_small = QFontMetricsF(self._font), QFontMetricsF(self._small)
        sizes: dict[int, tuple[float, float]] = {}
        labels: dict[int, tuple[str, list[str]]] = {}
        for node in root.walk():
            label = self._label_of(node.token)
            facts = [f for f in (
                self.tr("id {id}").format(id=node.id) if node.id is not None else self.tr("not a token"),
                f"#{node.rank}" if node.rank is not None else "",
                f"×{node.count:,}" if node.count is not None else "") if f]
            labels[id(node)] = (label, facts)
            width = max([fm.horizontalAdvance(label)] + [fm_small.horizontalAdvance(f) for f in facts]) + 2 * PAD
            sizes[id(node)] = (width, fm.height() + len(facts) * fm_small.height() + PAD)
        row_h = max(h for _, h in sizes.values()) + V_GAP
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
            positions[id(node)] = QPointF(x, depth * row_h)
            return x

        place(root, 0)
        edge_pen = QPen(QColor(self.theme.marker), 1.2)
        colors = self.theme.palette
        for node in root.walk():
            p = positions[id(node)]
            for child in node.children:
                c = positions[id(child)]
                scene.addLine(p.x(), p.y() + sizes[id(node)][1], c.x(), c.y(), edge_pen)
        for k, node in enumerate(root.walk()):
            fill = QColor(colors[k % len(colors)]) if node.id is not None else QColor(self.theme.neutral)
            item = _NodeItem(node, *labels[id(node)], sizes[id(node)],
                             (fill, fill.darker(self.theme.border_darker),
                              QColor(theme_text_color(fill.name(), self.theme)), QColor(self.theme.message_text)),
                             (self._font, self._small))
            item.setPos(positions[id(node)])
            scene.addItem(item)
            self._items.append(item)
        scene.setSceneRect(scene.itemsBoundingRect().adjusted(-12, -12, 12, 12))
        self.fit()

    def tree(self) -> MergeNode | None:
        return self._root

    def node_items(self) -> list[_NodeItem]:
        """The drawn nodes, parents before children (for tests: positions, labels)."""
        return list(self._items)

    # ---- scale ----------------------------------------------------------------------------------------
    def scale_factor(self) -> float:
        return self.transform().m11()

    def legible_scale(self) -> float:
        """The smallest scale at which a node's smallest text is still MIN_LEGIBLE_PT points."""
        return min(1.0, MIN_LEGIBLE_PT / self._small.pointSizeF())

    def fit_scale(self) -> float:
        """The scale `fit()` uses: the whole tree in the view (never above 1:1), but not below
        `legible_scale()`."""
        rect = self.scene().sceneRect()
        view = self.viewport().size()
        if rect.isEmpty() or view.isEmpty():
            return 1.0
        whole = min(1.0, view.width() / rect.width(), view.height() / rect.height())
        return max(whole, self.legible_scale())

    def is_fitting(self) -> bool:
        """True while the view follows its size (until the user zooms)."""
        return self._fitting

    def fit(self) -> None:
        """Scale the tree to the view (see `fit_scale`); a tree still bigger than the view scrolls,
        its root in sight."""
        self._fitting = True
        scale = self.fit_scale()
        self._apply_scale(scale)
        if self._items:
            top = self.scene().sceneRect().top()
            self.centerOn(self._items[0].x(), top + self.viewport().height() / scale / 2)

    def zoom(self, factor: float) -> None:
        """Zoom by `factor` (the view stops following its size), down to whichever is smaller of
        seeing the whole tree and the legible scale, up to MAX_ZOOM."""
        rect, view = self.scene().sceneRect(), self.viewport().size()
        whole = min(view.width() / rect.width(), view.height() / rect.height()) if not rect.isEmpty() else 1.0
        low = min(whole, self.legible_scale())
        scale = min(max(self.scale_factor() * factor, low), MAX_ZOOM)
        self._fitting = False
        self._apply_scale(scale)

    def _apply_scale(self, scale: float) -> None:
        self.setTransform(QTransform.fromScale(scale, scale))

    # ---- events -----------------------------------------------------------------------------------------
    def wheelEvent(self, event) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.zoom(1.15 if event.angleDelta().y() > 0 else 1 / 1.15)
            event.accept()
        else:
            super().wheelEvent(event)

    def keyPressEvent(self, event) -> None:
        key = event.key()
        if key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.zoom(1.25)
        elif key == Qt.Key.Key_Minus:
            self.zoom(1 / 1.25)
        elif key == Qt.Key.Key_0:
            self.fit()
        else:
            super().keyPressEvent(event)

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
        if self._root is not None and self._fitting:
            self.fit()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._root is not None and self._fitting:
            self.fit()
