"""The Robustness page: the side-by-side tokens of the original and perturbed text, the counts, and
the corpus run on a worker (progress, Cancel) with its chart and table.  Real tokenizers from
tests/data/real; counts checked against HF tokenizers on the perturbed text."""
from __future__ import annotations

import lzma
from pathlib import Path

import pytest

import tokviz
from tokviz.analysis.perturb import PERTURBATIONS, perturb
from tokviz.analysis.robustness import perturbed_pieces
from tokviz.gui.analyses.robustness_view import RobustnessView
from tokviz.gui.widgets.style import DARK

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
TEXT = ("Welcome to tokviz! Every coloured box below is one token.\n\n"
        "Café naïve résumé: modern clear models read 10 Objects at 50 Hz.\n")


@pytest.fixture(scope="module")
def toks(tmp_path_factory):
    """name -> (tokviz tokenizer, HF reference) for Qwen2.5 and BERT-MiniLM."""
    hf = pytest.importorskip("tokenizers")
    root = tmp_path_factory.mktemp("real")
    out = {}
    for name, rel in (("qwen2.5", "qwen2.5/tokenizer.json"), ("bert", "bert-minilm/tokenizer.json")):
        path = root / name / "tokenizer.json"
        path.parent.mkdir()
        path.write_bytes(lzma.decompress((REAL / f"{rel}.xz").read_bytes()))
        ref = hf.Tokenizer.from_file(str(path))
        ref.no_truncation()
        ref.no_padding()
        out[name] = (tokviz.load(path), ref)
    return out


@pytest.fixture
def view(qtbot, toks):
    v = RobustnessView()
    qtbot.addWidget(v)
    v.resize(1280, 800)
    v.show()
    yield v
    v.shutdown()


def _ids(ref, text):
    return ref.encode(text, add_special_tokens=False).ids


def test_side_by_side_tokens_and_counts(qtbot, view, toks):
    with qtbot.waitSignal(view.previewed, timeout=30_000) as blocker:
        view.set_tokenizers({name: tok for name, (tok, _) in toks.items()})
        view.set_text(TEXT)
    result = blocker.args[0]
    assert result.perturbed.name == "homoglyph" == view.perturbation_name()
    want = perturb("homoglyph", TEXT, view.rate_box.value(), view.seed_box.value())
    assert result.perturbed.text == want.text != TEXT
    qwen_ref = toks["qwen2.5"][1]
    assert list(view.original_view.encoding().ids) == _ids(qwen_ref, TEXT)
    assert list(view.perturbed_view.encoding().ids) == _ids(qwen_ref, want.text)
    n, m = len(_ids(qwen_ref, TEXT)), len(_ids(qwen_ref, want.text))
    assert view.original_label.text() == f"Original — {n:,} tokens"
    assert f"{m:,} tokens, {m - n:+,} (×{m / n:.2f})" in view.perturbed_label.text()
    assert view.perturbed_view.marks()  # the tokens over a change are marked
    assert view.counts_table.rowCount() == 2
    assert view.counts_table.item(1, 0).text() == "bert"
    assert view.counts_table.item(1, 2).text() == f"{len(_ids(toks['bert'][1], want.text)):,}"

    view.tokenizer_box.setCurrentText("bert")  # the other tokenizer's pair
    assert list(view.perturbed_view.encoding().ids) == _ids(toks["bert"][1], want.text)

    # another perturbation, rate and seed: BERT lowercases, so upper case changes none of its tokens
    with qtbot.waitSignal(view.previewed, timeout=30_000) as blocker:
        view.set_perturbation("upper")
        view.rate_box.setValue(1.0)
        view.seed_box.setValue(4)
    assert blocker.args[0].perturbed.text == TEXT.upper()
    assert list(view.perturbed_view.encoding().ids) == list(view.original_view.encoding().ids)
    assert "+0 (×1.00)" in view.perturbed_label.text()


def test_corpus_run_chart_and_table(qtbot, view, toks, tmp_path):
    view.set_tokenizers({name: tok for name, (tok, _) in toks.items()})
    view.set_text(TEXT)
    with qtbot.waitSignal(view.finished, timeout=60_000) as blocker:
        view.run()
        assert not view.run_button.isEnabled() and not view.cancel_button.isHidden()
    report = blocker.args[0]
    assert report.chars == len(TEXT) and report.perturbations == list(PERTURBATIONS)
    assert view.results_table.rowCount() == len(PERTURBATIONS)
    assert view.results_table.columnCount() == 3 + 2 * 2
    bars = [i for i in view.plot.getPlotItem().items if type(i).__name__ == "BarGraphItem"]
    assert len(bars) == 2  # one colour per tokenizer
    assert view.progress.isHidden() and view.cancel_button.isHidden() and view.run_button.isEnabled()
    # the figures against the reference on the perturbed pieces
    ref = toks["qwen2.5"][1]
    new = sum(len(_ids(ref, piece)) for _, piece, _, _ in perturbed_pieces(TEXT, "ocr", report.rate, report.seed))
    assert report.cell("ocr", "qwen2.5").perturbed_tokens == new
    assert report.cell("lower", "bert").ratio == 1.0
    row = [view.results_table.item(_row_of("ocr"), c).text() for c in range(view.results_table.columnCount())]
    assert row[0] == PERTURBATIONS["ocr"].label and row[3] == f"{report.cell('ocr', 'qwen2.5').mean_inflation:.3f}"
    assert view.table_markdown().startswith("| perturbation |")

    # a chosen file instead of the current text
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("Straße und Café.\n\nΑλφα and Omega ≤ 3 & 4 % 5.\n" * 20, encoding="utf-8")
    view.set_corpus_file(str(corpus))
    with qtbot.waitSignal(view.finished, timeout=60_000) as blocker:
        view.run()
    assert blocker.args[0].chars == len(corpus.read_text(encoding="utf-8"))
    view.set_theme(DARK)
    assert view.plot.backgroundBrush().color().name() == DARK.background


def _row_of(name: str) -> int:
    return list(PERTURBATIONS).index(name)


def test_corpus_cancel_and_errors(qtbot, view, toks, tmp_path):
    view.set_tokenizers({"qwen2.5": toks["qwen2.5"][0]})
    view.set_text(TEXT * 20000)  # (2.5 MB: seconds of work, cancelled at its first progress)
    with qtbot.waitSignal(view.cancelled, timeout=60_000):
        view.run()
        qtbot.waitUntil(lambda: view.progress.value() > 0, timeout=30_000)
        view.cancel()
    assert view.status.text() == "Cancelled." and view.run_button.isEnabled()

    missing = tmp_path / "missing.txt"
    view.set_corpus_file(str(missing))
    with qtbot.waitSignal(view.failed, timeout=30_000) as blocker:
        view.run()
    assert "missing.txt" in blocker.args[0] and "missing.txt" in view.status.text()
    qtbot.waitUntil(lambda: not view.is_busy(), timeout=30_000)


def test_no_tokenizers(qtbot, view):
    view.set_tokenizers({})
    view.set_text(TEXT)
    assert not view.run_button.isEnabled()
    view.run()
    assert "No tokenizer" in view.status.text()
    qtbot.waitUntil(lambda: view.preview_status.text() == "No tokenizer.", timeout=5_000)


def test_scrolling_one_side_scrolls_the_other_to_the_same_place(qtbot, view, toks):
    lines = "".join(f"Line {k}: the quick brown fox & the lazy dog ≤ α.\n" for k in range(400))
    view.set_perturbation("latex")
    with qtbot.waitSignal(view.previewed, timeout=30_000):
        view.set_tokenizers({"qwen2.5": toks["qwen2.5"][0]})
        view.set_text(lines)
    qtbot.waitUntil(lambda: view.original_view.row_count() > 0, timeout=10_000)
    bar = view.original_view.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)
    enc_a, enc_b = view.original_view.encoding(), view.perturbed_view.encoding()
    a = enc_a.text[enc_a.offsets[view.original_view.top_token()][0]:].split("\n", 1)
    b = enc_b.text[enc_b.offsets[view.perturbed_view.top_token()][0]:].split("\n", 1)
    assert view.perturbed_view.verticalScrollBar().value() > 0
    line_a = lines.count("\n", 0, lines.index(a[1]))  # the line each view shows at its top
    line_b = enc_b.text.count("\n", 0, enc_b.text.index(b[1]))
    assert line_a == line_b


def test_hovering_a_token_outlines_the_same_place_on_the_other_side(qtbot, view, toks):
    text = "a & b α c"
    view.set_perturbation("latex")
    with qtbot.waitSignal(view.previewed, timeout=30_000):
        view.set_tokenizers({"qwen2.5": toks["qwen2.5"][0]})
        view.set_text(text)
        view.rate_box.setValue(1.0)
    original, perturbed = view.original_view.encoding(), view.perturbed_view.encoding()
    assert perturbed.text == "a \\& b $\\alpha$ c"
    b_index = next(i for i, (s, e) in enumerate(original.offsets) if text[s:e].strip() == "b")
    view.original_view.tokenHovered.emit(b_index)
    s, e = perturbed.offsets[view.perturbed_view.hovered_token()]
    assert perturbed.text[s:e].strip() == "b"
    alpha = next(i for i, (s, e) in enumerate(perturbed.offsets) if "alpha" in perturbed.text[s:e])
    view.perturbed_view.tokenHovered.emit(alpha)
    s, e = original.offsets[view.original_view.hovered_token()]
    assert "α" in original.text[s:e]


@pytest.mark.slow
def test_screenshot_of_the_page(qtbot, tmp_path, toks):
    from PySide6.QtGui import QImage

    from tokviz.gui.screenshot import screenshot

    paths = [str(tok.source.path) for tok, _ in toks.values()]
    text = tmp_path / "t.txt"
    text.write_text("Привет, world! 中文分词 and Café.\n\nSecond paragraph & more.\n", encoding="utf-8")
    out = screenshot("robustness", paths, str(text), tmp_path / "robustness.png", width=1280, height=800)
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1280, 800)
    colours = {image.pixel(x, y) for x in range(0, 1280, 9) for y in range(0, 800, 9)}
    assert len(colours) > 20  # tokens, bars: not a blank page


@pytest.mark.shared
@pytest.mark.slow
def test_a_corpus_of_megabytes_runs_on_the_worker_with_progress(qtbot, view, toks, tmp_path):
    from .helpers import shared_corpus

    corpus = tmp_path / "en3mb.txt"
    corpus.write_text(shared_corpus("en")[:3_000_000], encoding="utf-8")
    view.set_tokenizers({name: tok for name, (tok, _) in toks.items()})
    view.set_corpus_file(str(corpus))
    seen: list[int] = []
    view.progress.valueChanged.connect(seen.append)
    with qtbot.waitSignal(view.finished, timeout=300_000) as blocker:
        view.run()
    report = blocker.args[0]
    assert report.chars == 3_000_000 and report.pieces > 1000
    assert len(seen) > 5 and seen == sorted(seen)  # the bar moved forward while the UI thread ran
    # BERT lowercases: upper case changes nothing but the rare ß, which upper-cases to SS (then ss)
    assert report.cell("upper", "bert").ratio == pytest.approx(1.0, abs=1e-4)
    assert report.cell("homoglyph", "qwen2.5").ratio > 1.2


def test_the_corpus_chart_of_seven_tokenizers_names_every_perturbation_and_keeps_its_bars_thick(qtbot, view, toks):
    from tokviz import defaults
    from tokviz.gui.widgets.plots import MIN_BAR_PX, rows_drawn

    demo = tokviz.load(defaults.default_tokenizer_path())
    seven = {name: tok for name, (tok, _) in toks.items()} | {f"demo-{k}": demo for k in range(5)}
    view.set_tokenizers(seven)
    view.set_text(TEXT)
    with qtbot.waitSignal(view.finished, timeout=60_000):
        view.run()
    bars = [i for i in view.plot.getPlotItem().items if type(i).__name__ == "BarGraphItem"]
    assert len(bars) == 7
    for size in ((1280, 800), (900, 420)):  # (the second as short as the page is in the window at 1280x800)
        view.resize(*size)
        qtbot.wait(100)
        rows, thinnest = rows_drawn(view.plot, view.category_axis)
        assert rows == list(range(len(PERTURBATIONS))), "a name per perturbation"
        assert thinnest >= MIN_BAR_PX - 0.5, f"bars {thinnest:.1f} px thick"
    # a short page scrolls the chart instead of squeezing it
    assert view.plot.height() > view.plot_scroll.viewport().height()
