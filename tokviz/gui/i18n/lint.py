"""Strings the user sees that cannot be translated: `python -m tokviz.gui.i18n.lint [PATH ...]`.

pyside6-lupdate only sees strings passed to Qt's translation functions.  This finds the others: a
literal with words in it, or an f-string, handed to a call that shows text (setText, setToolTip,
QLabel(…), addAction, QMessageBox.warning, a plot's setLabel …), and the translation calls lupdate
would misread or miss: a wrapper such as `_tr("…")` (lupdate sees only tr, translate and
QT_TRANSLATE_NOOP), `obj.tr(…)` on anything but `self` (lupdate files it under the variable's name, Qt
looks it up under the object's class), an f-string inside tr (lupdate records the braces, not the
text shown), a translation call inside an f-string's braces (lupdate does not look there), and a
second argument to `self.tr` (lupdate mistakes its context).
"""
from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

GUI = Path(__file__).resolve().parents[1]

# Methods and classes whose string arguments are shown to the user.
TEXT_CALLS = {
    "setText", "setToolTip", "setStatusTip", "setWhatsThis", "setPlaceholderText", "setWindowTitle",
    "setTitle", "setLabelText", "setHeaderLabels", "setHorizontalHeaderLabels", "setVerticalHeaderLabels",
    "addTab", "insertTab", "setTabText", "setTabToolTip", "addMenu", "addAction", "addItem", "addItems",
    "insertItem", "setItemText", "setSuffix", "setPrefix", "setSpecialValueText", "showMessage", "setFormat",
    "setLabel", "setAccessibleName", "setOkButtonText", "setCancelButtonText", "setInformativeText",
    "setDetailedText", "addButton", "addRow", "setLabels", "setToolTipText", "setButtonText", "setEmptyText",
    "information", "warning", "critical", "question", "about", "getOpenFileName", "getOpenFileNames",
    "getSaveFileName", "getExistingDirectory", "getText", "getInt", "getItem", "setNameFilter", "setNameFilters",
    "QLabel", "QPushButton", "QCheckBox", "QRadioButton", "QGroupBox", "QAction", "QToolButton", "QDockWidget",
    "QMenu", "QProgressDialog", "QMessageBox", "QTableWidgetItem", "QTreeWidgetItem", "QListWidgetItem",
    "QStandardItem", "TextItem", "LegendItem", "ElidedLabel", "WrappingLabel",
}
# Words that are names, not English: a string made only of these (and numbers, symbols) needs no translation.
NAMES = {
    "bpe", "json", "utf", "nfc", "nfkc", "nfd", "nfkd", "id", "ids", "wordpiece", "unigram", "sentencepiece",
    "tiktoken", "gguf", "tokviz", "minbpe", "dask", "hf", "ctrl", "shift", "alt", "tsv", "csv", "png", "svg", "npy",
    "qt", "pyside", "python", "numpy", "regex", "rwkv", "tekken", "mb", "kb", "gb", "ms", "ok", "url", "tcp",
    "llama", "qwen", "gpt", "bert", "jinja", "cpu", "txt", "md", "ascii", "cjk", "markdown", "jaccard", "hub",
    "hugging", "face", "localcluster", "esc", "enter", "ios", "strr", "sennrich", "unicode", "ollama", "transformers",
    "huggingface", "github", "html", "xml", "yaml", "latex", "ocr", "vs", "zipf",
}
WORD = re.compile(r"[A-Za-z]{2,}")
AXES = {"bottom", "left", "top", "right"}  # pyqtgraph's names of a plot's sides (setLabel("bottom", …))


@dataclass
class Finding:
    path: Path
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}"


def needs_translation(text: str) -> bool:
    """Whether `text` holds words a reader of another language would need translated."""
    return any(word.lower() not in NAMES for word in WORD.findall(text))


def _call_name(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def _is_translation(node: ast.expr) -> bool:
    """A call of tr / translate / QT_TRANSLATE_NOOP (its result, maybe formatted, is translated)."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
            "format", "arg", "replace", "strip"):
        node = node.func.value
    return isinstance(node, ast.Call) and _call_name(node.func) in ("tr", "translate", "QT_TRANSLATE_NOOP",
                                                                    "QT_TR_NOOP", "_tr")


def _raw_texts(node: ast.expr):
    """The untranslated literal texts with words in `node` (a call's argument)."""
    if _is_translation(node):
        return
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        if node.value not in AXES and needs_translation(node.value):
            yield node.value
    elif isinstance(node, ast.JoinedStr):
        literal = "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
        if needs_translation(literal):
            yield literal
    elif isinstance(node, ast.BinOp):
        yield from _raw_texts(node.left)
        yield from _raw_texts(node.right)
    elif isinstance(node, (ast.List, ast.Tuple)):
        for element in node.elts:
            yield from _raw_texts(element)
    elif isinstance(node, ast.IfExp):
        yield from _raw_texts(node.body)
        yield from _raw_texts(node.orelse)
    elif isinstance(node, ast.Call) and _call_name(node.func) == "join":
        for arg in node.args:
            yield from _raw_texts(arg)


def lint_source(source: str, path: Path) -> list[Finding]:
    findings = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.JoinedStr) and any(
                isinstance(v, ast.FormattedValue) and any(
                    isinstance(c, ast.Call) and _call_name(c.func) in ("tr", "translate")
                    and any(isinstance(a, ast.Constant) for a in c.args) for c in ast.walk(v.value))
                for v in node.values):
            findings.append(Finding(path, node.lineno, "a translation call inside an f-string's braces (lupdate "
                                    "does not look there): translate before, into a variable"))
        if not isinstance(node, ast.Call):
            continue
        name = _call_name(node.func)
        if name == "tr" and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if not (isinstance(owner, ast.Name) and owner.id == "self"):
                findings.append(Finding(path, node.lineno, "tr() on something other than self: use "
                                        "QCoreApplication.translate(\"Context\", …)"))
            if len(node.args) > 1:
                findings.append(Finding(path, node.lineno, "self.tr() with a second argument (lupdate misreads it)"))
        if (isinstance(node.func, ast.Name) and name in ("tr", "_tr") and node.args
                and isinstance(node.args[0], ast.Constant) and len(node.args) == 1):
            findings.append(Finding(path, node.lineno, f"{name}(\"…\"): lupdate does not see a wrapper's calls; "
                                    "write QCoreApplication.translate(\"Context\", …) or self.tr(…)"))
        if isinstance(node.func, ast.Name) and name == "tr" and len(node.args) > 1:
            findings.append(Finding(path, node.lineno, "tr(context, text) through an alias of translate: lupdate "
                                    "takes the context for the text; call QCoreApplication.translate itself"))
        if name in ("tr", "translate", "QT_TRANSLATE_NOOP") and any(isinstance(a, ast.JoinedStr) for a in node.args):
            findings.append(Finding(path, node.lineno, f"an f-string inside {name}(): translate the template, "
                                    "then .format() it"))
        if name in TEXT_CALLS:
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                for text in _raw_texts(arg):
                    findings.append(Finding(path, node.lineno, f"{name}: untranslated {text[:70]!r}"))
    return findings


def lint(paths: list[Path]) -> list[Finding]:
    files = [f for p in paths for f in (sorted(p.rglob("*.py")) if p.is_dir() else [p])]
    return [finding for f in files for finding in lint_source(f.read_text(encoding="utf-8"), f)]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    findings = lint([Path(a) for a in args] or [GUI])
    for finding in findings:
        print(finding)
    print(f"{len(findings)} finding(s)", file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
