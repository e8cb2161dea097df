"""The Analyses tab of the main window: its pages analyse the Compare tab's set (or the explorer's
tokenizer alone), follow the explorer's text, and run on the real tokenizers of tests/data/real."""
from __future__ import annotations

import lzma
from pathlib import Path

import pytest

import tokviz
from tokviz.analysis.overlap import overlap as compute_overlap

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


@pytest.fixture(scope="module")
def qwen(tmp_path_factory):
    folder = tmp_path_factory.mktemp("qwen-analyses")
    (folder / "tokenizer.json").write_bytes(lzma.decompress((REAL / "qwen2.5" / "tokenizer.json.xz").read_bytes()))
    return tokviz.load(folder / "tokenizer.json")


@pytest.fixture(scope="module")
def bert(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bert-analyses")
    data = lzma.decompress((REAL / "bert-minilm" / "tokenizer.json.xz").read_bytes())
    (folder / "tokenizer.json").write_bytes(data)
    return tokviz.load(folder / "tokenizer.json")


def test_pages_analyse_the_explorers_tokenizer_then_the_compare_set(qtbot, make_window, qwen, bert):
    window = make_window(qwen, "Tokenizers cut text into tokens.")
    view = window.analyses_view
    assert [view.tabs.tabText(i) for i in range(view.tabs.count())] == ["Fairness", "Robustness", "Overlap"]
    window.tabs.setCurrentWidget(view)
    # the Compare set starts as the explorer's tokenizer; every page gets the same set
    qtbot.waitUntil(lambda: list(view.tokenizers().values()) == [qwen], timeout=10_000)
    assert all(page._tokenizers == view.tokenizers() for page in view.pages)
    assert "Compare" in view.header.text()

    window.compare_view.add_tokenizer(bert)
    qtbot.waitUntil(lambda: len(view.tokenizers()) == 2, timeout=30_000)
    assert list(view.tokenizers().values()) == [qwen, bert]

    overlap = view.pages[2]
    with qtbot.waitSignal(overlap.finished, timeout=120_000) as blocker:
        overlap.run()
    report = blocker.args[0]
    (pair,) = report.pairs
    # the same pair computed directly, off the GUI
    (direct,) = compute_overlap(view.tokenizers()).pairs
    assert pair.shared == direct.shared > 0 and pair.jaccard == direct.jaccard

    window.compare_view.remove_pane(1)
    qtbot.waitUntil(lambda: list(view.tokenizers().values()) == [qwen], timeout=10_000)


def test_the_robustness_page_follows_the_explorers_text(qtbot, make_window, qwen):
    window = make_window(qwen, "first text")
    view = window.analyses_view
    window.tabs.setCurrentWidget(view)
    robustness = view.pages[1]
    qtbot.waitUntil(lambda: robustness._text == "first text", timeout=10_000)
    window.editor.setPlainText("Ein zweiter Text über Ölfässer.")
    qtbot.waitUntil(lambda: robustness._text == "Ein zweiter Text über Ölfässer.", timeout=30_000)
    qtbot.waitUntil(lambda: robustness.preview is not None and not robustness.is_busy(), timeout=30_000)
    assert robustness.preview.perturbed.original == "Ein zweiter Text über Ölfässer."


def test_closing_the_window_stops_a_running_analysis(qtbot, make_window, qwen):
    window = make_window(qwen, "text")
    view = window.analyses_view
    window.tabs.setCurrentWidget(view)
    qtbot.waitUntil(lambda: bool(view.tokenizers()), timeout=10_000)
    fairness = view.pages[0]
    fairness.run()  # on the shipped parallel sample
    assert view.is_busy()
    window.close()
    assert not view.is_busy()


def test_window_screenshot_runs_an_analysis_page(qtbot, tmp_path):
    from PySide6.QtGui import QImage

    from tokviz import defaults
    from tokviz.gui.screenshot import screenshot

    demo = defaults.default_tokenizer_path()
    bert_file = tmp_path / "bert" / "tokenizer.json"
    bert_file.parent.mkdir()
    bert_file.write_bytes(lzma.decompress((REAL / "bert-minilm" / "tokenizer.json.xz").read_bytes()))
    out = screenshot("window", [str(demo), str(bert_file)], None, tmp_path / "overlap.png", width=1280, height=800,
                     tab="overlap")
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1280, 800)
    with pytest.raises(ValueError, match="fairness, robustness, overlap"):
        screenshot("window", [str(demo)], None, tmp_path / "x.png", tab="analysis")


def test_pages_have_stable_names_whatever_the_language(qtbot, make_window, qwen):
    window = make_window(qwen, "text")
    view = window.analyses_view
    for k, (key, name) in enumerate((("fairness", "FairnessPage"), ("robustness", "RobustnessPage"),
                                     ("overlap", "OverlapPage"))):
        assert view.index_of(key) == k == view.index_of(name) and view.pages[k].objectName() == name
    assert view.index_of("analysis") == -1


def test_the_robustness_chart_in_the_window_at_1280x800_with_seven_tokenizers(qtbot, make_window):
    """In the window at 1280x800 (every dock open) the corpus chart names every perturbation and draws
    bars at least MIN_BAR_PX thick: it scrolls rather than squeezing them."""
    from tokviz import defaults
    from tokviz.analysis.perturb import PERTURBATIONS
    from tokviz.gui.widgets.plots import MIN_BAR_PX, rows_drawn

    demo = tokviz.load(defaults.default_tokenizer_path())
    window = make_window(demo, "Tokenizers cut text into tokens.\n\nEvery coloured box is one token.")
    window.resize(1280, 800)
    for dock in window.docks.all():
        dock.show()
    view = window.analyses_view
    window.tabs.setCurrentWidget(view)
    view.tabs.setCurrentIndex(view.index_of("robustness"))
    page = view.pages[view.index_of("robustness")]
    qtbot.waitUntil(lambda: bool(page._tokenizers) and page._text != "", timeout=10_000)
    page.set_tokenizers({f"demo-{k}": demo for k in range(7)})
    with qtbot.waitSignal(page.finished, timeout=60_000):
        page.run()
    qtbot.wait(100)
    bars = [i for i in page.plot.getPlotItem().items if type(i).__name__ == "BarGraphItem"]
    assert len(bars) == 7
    rows, thinnest = rows_drawn(page.plot, page.category_axis)
    assert rows == list(range(len(PERTURBATIONS))), "a name per perturbation"
    assert thinnest >= MIN_BAR_PX - 0.5, f"bars {thinnest:.1f} px thick"
    assert page.plot.height() > page.plot_scroll.viewport().height()  # (it scrolls: the page is short)
