"""The Fairness page: parallel files in, a worker run with progress and Cancel, the grouped bar chart
and the table across tokenizers out, on real tokenizers from tests/data/real (the premiums checked
against HF tokenizers)."""
from __future__ import annotations

import lzma
from pathlib import Path

import pyqtgraph as pg
import pytest

import tokviz
from tokviz.defaults import parallel_sample_path
from tokviz.gui.analyses.fairness_view import FairnessView

DATA = Path(__file__).resolve().parents[1] / "data"
PARALLEL = parallel_sample_path()


@pytest.fixture(scope="module")
def real_paths(tmp_path_factory):
    root = tmp_path_factory.mktemp("real")
    out = {}
    for name, rel in {"qwen2.5": "qwen2.5/tokenizer.json", "bert": "bert-minilm/tokenizer.json"}.items():
        dest = root / f"{name}.json"
        dest.write_bytes(lzma.decompress((DATA / "real" / f"{rel}.xz").read_bytes()))
        out[name] = dest
    return out


@pytest.fixture(scope="module")
def tokenizers(real_paths):
    return {name: tokviz.load(p) for name, p in real_paths.items()}


@pytest.fixture
def view(qtbot):
    v = FairnessView()
    qtbot.addWidget(v)
    v.resize(1280, 800)
    v.show()
    yield v
    v.shutdown()


def _hf_counts(path: Path, languages) -> dict[str, int]:
    hf = pytest.importorskip("tokenizers")
    ref = hf.Tokenizer.from_file(str(path))
    ref.no_truncation()
    ref.no_padding()
    return {lang: len(ref.encode((PARALLEL / f"whatis.{lang}.txt").read_text(encoding="utf-8"),
                                 add_special_tokens=False).ids) for lang in languages}


@pytest.mark.slow
def test_run_draws_the_premiums_of_the_reference_library(qtbot, view, tokenizers, real_paths):
    view.set_tokenizers(tokenizers)
    view.set_text("ignored: this page measures the files")
    view.set_files([PARALLEL])
    assert view.pivot() == "en"  # (chosen by default when there is an English file)
    assert len(view.languages()) == 18 and "pt_BR" in view.languages()
    assert view.set_pivot("de") and view.pivot() == "de"
    assert not view.set_pivot("xx") and view.pivot() == "de"
    assert not view.key.isVisible()  # (no empty legend box before the first run)
    assert not any(isinstance(i, pg.LegendItem) for i in view.plot.getPlotItem().scene().items())
    with qtbot.waitSignal(view.finished, timeout=60_000) as blocker:
        view.run()
        assert view.is_busy() and view.progress.isVisible() and view.cancel_button.isVisible()
    result = blocker.args[0]
    assert view.result is result and not view.is_busy() and not view.progress.isVisible()
    assert result.pivot == "de" and result.languages[0] == "de"
    heights = view.bar_heights()
    assert list(heights) == ["qwen2.5", "bert"]
    for name, path in real_paths.items():
        counts = _hf_counts(path, result.languages)
        expected = [counts[lang] / counts["de"] for lang in result.languages]
        assert heights[name] == pytest.approx(expected), name
        assert heights[name][0] == 1.0
    assert view.axis.names == result.languages
    assert view.key.isVisible() and "qwen2.5" in view.key.text() and "bert" in view.key.text()
    # the table: a row per language, premium / STRR / unk-byte per tokenizer, n/a for Japanese and Chinese
    table = view.table
    assert table.rowCount() == 18 and table.columnCount() == 1 + 3 * 2
    assert table.item(0, 0).text() == "de" and table.item(0, 1).text() == "1.000"
    ja = next(r for r in range(table.rowCount()) if table.item(r, 0).text() == "ja")
    assert table.item(ja, 2).text() == "n/a"
    assert view.table_csv().splitlines()[0] == ("language,qwen2.5 premium,qwen2.5 STRR,qwen2.5 unk/byte,"
                                                "bert premium,bert STRR,bert unk/byte")
    assert view.table_markdown().startswith("| language | qwen2.5 premium |")
    assert "ja:" in view.notes.text() and "zh_CN:" in view.notes.text()
    assert "Highest premium" in view.status.text()
    # hovering: the bar under the mouse, none above it
    from PySide6.QtCore import QPointF

    vb = view.plot.getPlotItem().vb
    ru = result.languages.index("ru")
    bert_ru = result.figures["bert"]["ru"].premium
    assert view.bar_at(vb.mapViewToScene(QPointF(ru - 0.2, 0.5))) == ("qwen2.5", "ru")
    assert view.bar_at(vb.mapViewToScene(QPointF(ru + 0.2, bert_ru * 0.9))) == ("bert", "ru")
    assert view.bar_at(vb.mapViewToScene(QPointF(ru + 0.2, bert_ru * 1.05))) is None
    assert view.bar_at(vb.mapViewToScene(QPointF(ru + 0.5, 0.5))) is None  # (between two languages)


def test_cancel_stops_the_worker(qtbot, view, tokenizers):
    view.set_tokenizers(tokenizers)
    view.set_files([PARALLEL])
    with qtbot.waitSignal(view.cancelled, timeout=60_000):
        view.run()
        view.cancel()
    assert view.status.text() == "Cancelled." and not view.is_busy()
    assert view.run_button.isEnabled() and not view.cancel_button.isVisible()


def test_errors_are_shown_not_raised(qtbot, view, tokenizers, tmp_path):
    with qtbot.waitSignal(view.failed, timeout=5_000) as blocker:
        view.run()  # no tokenizer yet
    assert "No tokenizer" in blocker.args[0]
    assert view.files() == [str(PARALLEL)]  # (it starts on the shipped sample)
    view.set_tokenizers(tokenizers)
    view.set_files([])
    with qtbot.waitSignal(view.failed, timeout=5_000) as blocker:
        view.run()  # no files
    assert "Add parallel files" in blocker.args[0]
    bad = tmp_path / "page.fr.txt"
    bad.write_bytes(b"caf\xe9")
    view.set_files([PARALLEL / "whatis.en.txt", bad])
    assert view.languages() == ["en", "fr"]
    with qtbot.waitSignal(view.failed, timeout=30_000) as blocker:
        view.run()
    assert str(bad) in blocker.args[0] and "not UTF-8" in blocker.args[0]
    assert str(bad) in view.status.text() and not view.is_busy()


def test_theme_and_shutdown(qtbot, view, tokenizers):
    from tokviz.gui.widgets.style import DARK

    view.set_tokenizers(tokenizers)
    view.set_files([PARALLEL / "whatis.en.txt", PARALLEL / "whatis.ru.txt"])
    with qtbot.waitSignal(view.finished, timeout=60_000):
        view.run()
    view.set_theme(DARK)
    assert view.plot.backgroundBrush().color().name() == DARK.background.lower()
    assert len(view.bar_heights()["bert"]) == 2  # (redrawn with the new colours)
    view.shutdown(2000)
    assert not view.is_busy()


@pytest.mark.slow
def test_screenshot_command_renders_the_page(qtbot, real_paths, tmp_path):
    from PySide6.QtGui import QImage

    from tokviz.gui.screenshot import VIEWS, screenshot

    assert "fairness" in VIEWS
    out = screenshot("fairness", [str(real_paths["qwen2.5"]), str(real_paths["bert"])], str(PARALLEL),
                     tmp_path / "fairness.png", 1280, 800)
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1280, 800)
