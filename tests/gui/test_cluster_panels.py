"""The Training panel and the Statistics view run on a real Dask LocalCluster of 2 worker processes
and give what "this machine" gives; Cancel stops a cluster run and leaves the view usable; an
unreachable scheduler shows an error naming it and changes nothing else; the cluster choices are
disabled, saying why, without Dask; a tokenizer with no file is measured on the cluster too (it goes
as its bytes); a corpus URL needs a cluster.  Skipped without
`distributed` (the test extra has it), except under CI=true."""
from __future__ import annotations

import os
import sys
import threading

import pytest

import tokviz
from tokviz.cluster import INSTALL_HINT
from tokviz.defaults import default_tokenizer_path, resource_path, sample_text_path
from tokviz.gui.work.run_on import HERE, SCHEDULER, WORKERS, RunOnBox
from tokviz.gui.views.stats_view import StatsView
from tokviz.gui.panels.train_panel import TrainPanel
from tokviz.train import TRAINERS, TrainOptions, train

UNREACHABLE = "tcp://127.0.0.1:9"
TIMING = {"seconds", "mb_per_second"}


@pytest.fixture
def distributed():
    if os.environ.get("CI") == "true":
        import distributed

        return distributed
    return pytest.importorskip("distributed", reason='Dask distributed is not installed (pip install "tokviz[cluster]")')


@pytest.fixture
def panel(qtbot):
    p = TrainPanel()
    qtbot.addWidget(p)
    p.resize(1000, 700)
    p.show()
    yield p
    p.shutdown(30_000)


@pytest.fixture
def view(qtbot):
    v = StatsView()
    qtbot.addWidget(v)
    v.resize(1000, 700)
    v.show()
    v.set_tokenizer(tokviz.load(default_tokenizer_path()))
    yield v
    v.shutdown(30_000)


@pytest.fixture
def big_text(tmp_path):
    """About 15 MB: long enough to cancel a run in the middle."""
    big = tmp_path / "big.txt"
    big.write_text(sample_text_path().read_text(encoding="utf-8") * 3000, encoding="utf-8")
    return big


def _item(box: RunOnBox, where: str):
    return box.where.model().item(box.where.findData(where))


def _train(qtbot, panel, tmp_path, name: str) -> bytes:
    before = panel.result
    assert panel.start()
    qtbot.waitUntil(lambda: not panel.is_training(), timeout=120_000)
    assert panel.result is not before and panel.status.text().startswith("Trained"), panel.status.text()
    out = tmp_path / f"{name}.json"
    tokviz.save(panel.result, out)
    return out.read_bytes()


@pytest.mark.slow
def test_training_on_two_local_workers_equals_this_machine(qtbot, panel, tmp_path, distributed):
    panel.set_files([resource_path("training.txt")])
    panel.set_model("bytelevel-bpe")
    panel.vocab_size.setValue(600)
    here = _train(qtbot, panel, tmp_path, "here")
    panel.run_on.set_choice(WORKERS, 2)
    shown = []
    panel.run_on.dashboardShown.connect(shown.append)
    on_cluster = _train(qtbot, panel, tmp_path, "cluster")
    assert on_cluster == here
    assert shown and shown[0].startswith("http")  # the dashboard link was shown during the run...
    assert panel.run_on.dashboard.isHidden()  # ...and goes when it ends
    assert panel.run_on.choice() == (WORKERS, 2) and panel.run_on.where.isEnabled()

    panel.set_model("bpe")  # character BPE counts on the cluster too
    panel.end_of_word.setCurrentText("glued")  # (what tokenizer.json can hold)
    panel.vocab_size.setValue(900)  # (its alphabet alone is 600-odd characters)
    panel.run_on.set_choice(HERE)
    here = _train(qtbot, panel, tmp_path, "bpe-here")
    panel.run_on.set_choice(WORKERS, 2)
    assert _train(qtbot, panel, tmp_path, "bpe-cluster") == here

    panel.set_model("unigram")  # and Unigram, with its words pruned
    panel.vocab_size.setValue(700)
    panel.min_word_count.setValue(2)
    panel.run_on.set_choice(HERE)
    here = _train(qtbot, panel, tmp_path, "unigram-here")
    panel.run_on.set_choice(WORKERS, 2)
    assert _train(qtbot, panel, tmp_path, "unigram-cluster") == here
    panel.min_word_count.setValue(1)
    assert _train(qtbot, panel, tmp_path, "unigram-all") != here


@pytest.mark.slow
def test_statistics_on_two_local_workers_equal_this_machine(qtbot, view, distributed):
    view.set_corpus([resource_path("training.txt"), sample_text_path()])
    with qtbot.waitSignal(view.finished, timeout=60_000) as here:
        view.run()
    shown_here = view.shown_values()
    view.run_on.set_choice(WORKERS, 2)
    links = []
    view.run_on.dashboardShown.connect(links.append)
    with qtbot.waitSignal(view.finished, timeout=120_000) as cluster:
        view.run()
    a, b = here.args[0].as_dict(), cluster.args[0].as_dict()
    assert {k: v for k, v in a.items() if k not in TIMING} == {k: v for k, v in b.items() if k not in TIMING}
    assert (here.args[0].counts == cluster.args[0].counts).all()
    shown = view.shown_values()
    assert {k: v for k, v in shown.items() if k not in TIMING} == {k: v for k, v in shown_here.items() if k not in TIMING}
    assert links and view.run_on.dashboard.isHidden()


@pytest.mark.slow
def test_cancel_a_cluster_training_then_train_again(qtbot, panel, big_text, distributed):
    panel.set_files([big_text])
    panel.set_model("bytelevel-bpe")
    panel.vocab_size.setValue(5000)
    panel.run_on.set_choice(WORKERS, 2)
    with qtbot.waitSignal(panel.cancelled, timeout=120_000):
        with qtbot.waitSignal(panel.run_on.dashboardShown, timeout=60_000):  # connected, counting
            assert panel.start()
            assert not panel.run_on.where.isEnabled()  # (no change of place during a run)
        panel.cancel()
    assert panel.result is None and panel.status.text() == "Cancelled."
    assert not panel.is_training() and panel.train_button.isEnabled() and panel.run_on.where.isEnabled()
    assert panel.run_on.dashboard.isHidden()
    panel.set_files([resource_path("training.txt")])
    panel.vocab_size.setValue(400)
    with qtbot.waitSignal(panel.trained, timeout=120_000):
        assert panel.start()
    assert panel.result.vocab_size == 400


def test_cancel_while_connecting_stops_at_once(qtbot, panel, distributed):
    import socket

    with socket.socket() as silent:  # accepts the connection, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        panel.set_files([resource_path("training.txt")])
        panel.run_on.set_choice(SCHEDULER, "tcp://127.0.0.1:%d" % silent.getsockname()[1])
        assert panel.start()
        qtbot.wait(300)
        assert panel.is_training()
        with qtbot.waitSignal(panel.cancelled, timeout=10_000):
            panel.cancel()
        # the panel did not wait for the connection attempt, which goes on until its timeout
        assert any(t.name == "tokviz-connect" for t in threading.enumerate())
    assert panel.status.text() == "Cancelled." and panel.train_button.isEnabled()


@pytest.mark.slow
def test_cancel_a_cluster_measure_then_measure_again(qtbot, view, big_text, distributed):
    view.set_corpus([big_text])
    view.run_on.set_choice(WORKERS, 2)
    with qtbot.waitSignal(view.cancelled, timeout=120_000):
        with qtbot.waitSignal(view.run_on.dashboardShown, timeout=60_000):
            view.run()
            assert view.is_running() and not view.cancel_button.isHidden()
        view.cancel()
    assert view.status.text() == "Cancelled." and view.result is None
    assert view.run_button.isEnabled() and view.cancel_button.isHidden() and view.run_on.where.isEnabled()
    view.set_corpus([sample_text_path()])
    with qtbot.waitSignal(view.finished, timeout=120_000):
        view.run()
    assert view.result is not None and view.result.tokens > 0


@pytest.mark.slow
def test_an_unreachable_scheduler_names_its_address(qtbot, panel, view, distributed):
    panel.set_files([resource_path("training.txt")])
    panel.vocab_size.setValue(400)
    with qtbot.waitSignal(panel.trained, timeout=60_000):
        assert panel.start()
    before = panel.result
    panel.run_on.set_choice(SCHEDULER, UNREACHABLE)
    with qtbot.waitSignal(panel.failed, timeout=60_000) as blocker:
        assert panel.start()
        assert panel.is_training()  # (connecting happens on the worker, not here)
    assert UNREACHABLE in blocker.args[0] and UNREACHABLE in panel.status.text()
    assert panel.result is before and panel.export_button.isEnabled() and panel.train_button.isEnabled()

    view.set_corpus([sample_text_path()])
    with qtbot.waitSignal(view.finished, timeout=60_000):
        view.run()
    figures = view.shown_values()
    view.run_on.set_choice(SCHEDULER, UNREACHABLE)
    view.run()
    assert view.is_running()  # connecting happens on the worker
    qtbot.waitUntil(lambda: not view.is_running(), timeout=60_000)
    assert UNREACHABLE in view.status.text() and view.status.text().startswith("Failed")
    assert view.shown_values() == figures and view.run_button.isEnabled()


def test_every_model_can_be_trained_on_a_cluster_and_the_choice_stays(qtbot, panel, distributed):
    panel.run_on.set_choice(SCHEDULER, "tcp://10.0.0.5:8786")
    for model in TRAINERS:
        panel.set_model(model)
        assert panel.run_on.disabled_reason() is None
        assert _item(panel.run_on, WORKERS).isEnabled() and _item(panel.run_on, SCHEDULER).isEnabled()
        assert panel.run_on.choice() == (SCHEDULER, "tcp://10.0.0.5:8786")
    again = RunOnBox()
    qtbot.addWidget(again)
    again.set_state(panel.run_on.state())  # what the settings keep
    assert again.choice() == (SCHEDULER, "tcp://10.0.0.5:8786") and again.workers.value() == 2


@pytest.mark.slow
def test_a_tokenizer_with_no_file_is_measured_on_the_cluster(qtbot, view, distributed):
    """The tokenizer goes to the workers as its bytes: one trained and not kept has the cluster
    choices too, and gives this machine's figures there."""
    trained = train("bytelevel-bpe", [resource_path("training.txt")], TrainOptions(vocab_size=300))
    view.set_tokenizer(trained)
    assert _item(view.run_on, WORKERS).isEnabled()
    view.set_corpus([resource_path("training.txt")])
    with qtbot.waitSignal(view.finished, timeout=60_000) as here:
        view.run()
    view.run_on.set_choice(WORKERS, 2)
    assert view.run_on.choice() == (WORKERS, 2)
    with qtbot.waitSignal(view.finished, timeout=120_000) as cluster:
        view.run()
    a, b = here.args[0].as_dict(), cluster.args[0].as_dict()
    assert {k: v for k, v in a.items() if k not in TIMING} == {k: v for k, v in b.items() if k not in TIMING}


def test_a_url_is_listed_and_needs_a_cluster(qtbot, view, panel, monkeypatch):
    from tokviz.gui.work import run_on

    monkeypatch.setattr(run_on, "ask_url", lambda parent: "s3://bucket/corpus/*.txt")
    monkeypatch.setattr("tokviz.gui.views.stats_view.ask_url", run_on.ask_url)
    monkeypatch.setattr("tokviz.gui.panels.train_panel.ask_url", run_on.ask_url)
    view.set_corpus([sample_text_path()])
    view._ask_url()
    assert view.corpus() == [str(sample_text_path()), "s3://bucket/corpus/*.txt"]
    view.run_on.set_choice(HERE)
    view.run()
    assert "s3://bucket/corpus/*.txt is read by a Dask cluster's workers" in view.status.text()
    assert not view.is_running()
    view.compare()
    assert "Compare runs on this machine and cannot read s3://bucket/corpus/*.txt" in view.status.text()
    panel.set_files([sample_text_path(), sample_text_path()])
    panel._ask_url()
    assert panel.training_files() == [sample_text_path(), "s3://bucket/corpus/*.txt"]
    panel.run_on.set_choice(HERE)
    assert not panel.start()
    assert "is read by a Dask cluster's workers" in panel.status.text()


def test_without_dask_the_cluster_choices_say_how_to_get_it(qtbot, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # what `import distributed` meets when it is absent
    p = TrainPanel()
    qtbot.addWidget(p)
    v = StatsView()
    qtbot.addWidget(v)
    v.set_tokenizer(tokviz.load(default_tokenizer_path()))
    for box in (p.run_on, v.run_on):
        for where in (SCHEDULER, WORKERS):
            item = _item(box, where)
            assert not item.isEnabled() and item.toolTip() == INSTALL_HINT
        assert box.choice() == (HERE, None) and 'pip install "tokviz[cluster]"' in box.where.toolTip()
    p.shutdown()
    v.shutdown()


def test_the_window_remembers_each_views_choice(qtbot, make_window, tmp_path, distributed):
    from tokviz.gui.settings import Settings

    settings = Settings(tmp_path / "shared.ini")
    first = make_window(settings=settings)
    first.train_panel.run_on.set_choice(WORKERS, 3)
    first.stats_view.run_on.set_choice(SCHEDULER, "tcp://10.0.0.9:8786")
    first.close()
    second = make_window(settings=Settings(tmp_path / "shared.ini"))
    assert second.train_panel.run_on.choice() == (WORKERS, 3)
    assert second.stats_view.run_on.state().startswith("scheduler tcp://10.0.0.9:8786")
    second.close()
