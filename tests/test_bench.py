"""`tokviz bench` and benchmarks/peer_speed.py: report structure, the cold / warm-unseen / repeat
passes, ids checked against the peer libraries, exit code on mismatch.
No timing assertions: only that the numbers are there."""
from __future__ import annotations

import importlib.util
import json
import lzma
import subprocess
import sys
from pathlib import Path

import pytest

import tokviz
from tokviz import bench
from tokviz.cli import main
from tokviz.defaults import default_tokenizer_path

from _shared import BUNDLED, CORPUS, TOKENIZERS, need, shared, sweep

DEMO = str(default_tokenizer_path())
PEER_SPEED = Path(__file__).resolve().parents[1] / "benchmarks" / "peer_speed.py"


def run_json(capsys, *argv):
    code = main(["bench", *argv, "--json"])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def _check_speed(numbers):
    assert numbers["seconds"] > 0 and numbers["mb_per_s"] > 0 and numbers["tokens_per_s"] > 0 and numbers["tokens"] > 0


def _check_row(row, name):
    assert row["name"] == name and row["version"]
    _check_speed(row)
    assert set(row["phases"]) == set(bench.PHASES)
    for phase in bench.PHASES:
        _check_speed(row["phases"][phase])
    # one pass over all the text = cold + warm-unseen
    assert row["seconds"] == pytest.approx(row["phases"]["cold"]["seconds"] + row["phases"]["warm_unseen"]["seconds"])
    assert row["tokens"] == row["phases"]["cold"]["tokens"] + row["phases"]["warm_unseen"]["tokens"]
    assert row["phases"]["repeat"]["tokens"] == row["phases"]["warm_unseen"]["tokens"]


def need_module(module: str):
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed")


@pytest.fixture
def varied_file(tmp_path):
    """No two chunks alike."""
    path = tmp_path / "varied.txt"
    path.write_text("".join(f"line {i}: 你好 🙂 {i * 7919 % 1000} tokens\n" for i in range(600)), encoding="utf-8")
    return path


@pytest.fixture
def text_file(tmp_path):
    path = tmp_path / "small.txt"
    path.write_text("Hello, world! 你好 🙂 tokens, tokens and more tokens.\n" * 300, encoding="utf-8")
    return path


def test_demo_tokenizer_alone(capsys, text_file):
    code, report, _ = run_json(capsys, "-t", DEMO, str(text_file), "--chunk-kb", "1")
    assert code == 0
    assert report["format"] == "minbpe" and report["encoder"] in ("python", "native")
    assert report["bytes"] == text_file.stat().st_size
    chunks = bench.read_chunks([text_file], 1)
    assert report["chunks"] == len(chunks) > 10
    assert report["threads"] == 1 and report["chunk_kb"] == 1 and report["repeat"] == 3
    assert report["method"] == "one encode call per chunk"
    passes = report["passes"]
    assert passes["cold"]["chunks"] + passes["warm_unseen"]["chunks"] == len(chunks)
    assert passes["repeat"] == passes["warm_unseen"]
    assert passes["cold"]["bytes"] + passes["warm_unseen"]["bytes"] == report["bytes"]
    assert [r["name"] for r in report["results"]] == ["tokviz"]
    row = report["results"][0]
    _check_row(row, "tokviz")
    assert row["version"] == tokviz.__version__ and row["load_seconds"] > 0
    demo = tokviz.load(DEMO)  # each chunk is encoded on its own
    assert row["tokens"] == sum(len(demo.encode(c).ids) for c in chunks)
    assert "agree" not in row  # tokviz's repeat gave the ids of its first pass
    assert report["skipped"] == [] and report["agree"] is True


def test_halves_keep_each_files_mix(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("a" * 5000, encoding="utf-8")
    b.write_text("b" * 3000, encoding="utf-8")
    cold, warm = bench.split_halves([a, b], chunk_kb=1)
    assert [c[0] for c in cold] == ["a"] * 3 + ["b"] * 2
    assert [c[0] for c in warm] == ["a"] * 2 + ["b"] * 1
    assert "".join(c for c in cold + warm if c[0] == "a") == "a" * 5000


def test_two_passes_are_consecutive_parts_of_the_file(tmp_path):
    path = tmp_path / "t.txt"
    text = "海洋🙂é abc\n" * 20000  # about 300 KB
    path.write_text(text, encoding="utf-8")
    first, second = bench.two_passes(path, mb=0.1, chunk_kb=8)
    assert 100_000 <= bench.utf8_size(first) < 100_000 + 8192
    assert 100_000 <= bench.utf8_size(second) < 100_000 + 8192
    assert text.startswith("".join(first) + "".join(second))
    assert all(len(c.encode("utf-8")) <= 8192 for c in first + second)
    small = tmp_path / "small.txt"
    small.write_text("x" * 1000, encoding="utf-8")
    assert bench.two_passes(small, mb=1) == (["x" * 1000], [])


def test_explicit_reference_that_does_not_apply_is_reported_skipped(capsys, text_file):
    code, report, _ = run_json(capsys, "-t", DEMO, str(text_file), "--against", ",".join(bench.PEERS))
    assert code == 0
    assert {s["name"] for s in report["skipped"]} == set(bench.PEERS)
    assert all("applies to" in s["reason"] for s in report["skipped"])


def test_human_output(capsys, text_file):
    assert main(["bench", "-t", DEMO, str(text_file), "--threads", "2", "--chunk-kb", "2"]) == 0
    out = capsys.readouterr().out
    assert "2 threads, one batch call per pass" in out
    for label in ("cold MB/s", "warm-unseen MB/s", "repeat MB/s", "load s", "tokens/s", "tokviz 0."):
        assert label in out


def test_chunks_are_cut_at_character_boundaries(tmp_path):
    path = tmp_path / "cjk.txt"
    text = "海洋🙂é" * 500
    path.write_text(text, encoding="utf-8")
    chunks = bench.read_chunks([path], chunk_kb=0.01)  # 10 bytes: cuts land inside characters
    assert "".join(chunks) == text and all(len(c.encode("utf-8")) <= 10 for c in chunks)


def _fake_peer(monkeypatch, name, make_encode):
    """Replace peer `name` by one that applies to the demo tokenizer and encodes with `make_encode(tok)`."""
    demo = tokviz.load(DEMO)

    def setup(source, threads):
        return (lambda: demo), lambda tok: (make_encode(tok), None)

    monkeypatch.setitem(bench.PEERS, name, bench.PeerSpec("tokviz", "tokviz", ("minbpe",), setup))


def test_mismatch_is_counted_and_exits_1(capsys, varied_file, monkeypatch):
    cold, warm = bench.split_halves([varied_file], 2)
    wrong = set(warm[::2])
    _fake_peer(monkeypatch, "tiktoken", lambda tok: lambda text: tok.encode(text).ids + ([0] if text in wrong else []))
    code, report, _ = run_json(capsys, "-t", DEMO, str(varied_file), "--chunk-kb", "2", "--against", "tiktoken")
    assert code == 1 and report["agree"] is False
    row = report["results"][1]
    assert row["mismatched_chunks"] == len(wrong) > 1 and row["agree"] is False
    assert row["first_mismatch"]["chunk"] == len(cold) and "pass" not in row["first_mismatch"]
    assert row["first_mismatch"]["text"] == warm[0][:80]
    main(["bench", "-t", DEMO, str(varied_file), "--chunk-kb", "2", "--against", "tiktoken"])
    assert f"{len(wrong)} chunks DIFFER" in capsys.readouterr().out


def test_a_cache_that_goes_wrong_on_repeat_is_caught(capsys, varied_file, monkeypatch):
    def make_encode(tok):
        seen = set()

        def encode(text):  # right the first time a text is seen, wrong the second time
            ids = tok.encode(text).ids
            if text in seen:
                ids = ids[:-1]
            seen.add(text)
            return ids

        return encode

    _fake_peer(monkeypatch, "hf", make_encode)
    code, report, _ = run_json(capsys, "-t", DEMO, str(varied_file), "--chunk-kb", "2", "--against", "hf")
    assert code == 1
    row = report["results"][1]
    assert row["mismatched_chunks"] == report["passes"]["warm_unseen"]["chunks"]
    assert row["first_mismatch"]["chunk"] == report["passes"]["cold"]["chunks"]
    assert row["first_mismatch"]["pass"] == "repeat"
    main(["bench", "-t", DEMO, str(varied_file), "--chunk-kb", "2", "--against", "hf"])
    assert "first mismatch with hf (repeat): chunk" in capsys.readouterr().out


def test_a_peer_that_cannot_load_is_skipped_with_the_reason(capsys, text_file, monkeypatch):
    def setup(source, threads):
        def construct():
            raise ValueError("unsupported normalizer\nBertNormalizer")
        return construct, None

    monkeypatch.setitem(bench.PEERS, "tokie", bench.PeerSpec("tokviz", "tokviz", ("minbpe",), setup))
    code, report, _ = run_json(capsys, "-t", DEMO, str(text_file))  # listed without being asked for
    assert code == 0 and [r["name"] for r in report["results"]] == ["tokviz"]
    reason = f"cannot load {Path(DEMO).name}: ValueError: unsupported normalizer BertNormalizer"
    assert report["skipped"] == [{"name": "tokie", "reason": reason}]


def test_a_peer_that_is_not_installed_is_skipped(capsys, text_file, monkeypatch):
    monkeypatch.setitem(bench.PEERS, "tokie", bench.PeerSpec("no_such_module_xyz", "no-such-package", ("minbpe",),
                                                             None))
    code, report, _ = run_json(capsys, "-t", DEMO, str(text_file))
    assert code == 0
    assert report["skipped"] == [{"name": "tokie", "reason": "not installed (pip install no-such-package)"}]


def test_unknown_reference_is_an_error(capsys, text_file):
    assert main(["bench", "-t", DEMO, str(text_file), "--against", "spacy"]) == 2
    assert "unknown reference spacy" in capsys.readouterr().err


@pytest.mark.slow
def test_default_peers_are_those_for_the_format(capsys):
    tok = str(need(TOKENIZERS / "cl100k_base.tiktoken"))
    text = str(need(CORPUS / "en.txt"))
    code, report, _ = run_json(capsys, "-t", tok, text, "--limit-kb", "16", "--chunk-kb", "4", "--repeat", "1")
    assert code == 0, report
    listed = {r["name"] for r in report["results"][1:]} | {s["name"] for s in report["skipped"]}
    assert listed <= {"fastokens", "kitoken", "bpe-openai", "rs-bpe", "tiktoken"}
    installed = {n for n in listed if importlib.util.find_spec(bench.PEERS[n].module)}
    assert {r["name"] for r in report["results"][1:]} == installed
    assert all(r["agree"] for r in report["results"][1:])


# Peers whose ids agree with tokviz's on these files (kitoken on the sentencepiece unigram model
# does not: it orders some byte-fallback pieces differently).
REAL_PEERS = [
    ("cl100k_base.tiktoken", "tiktoken"),
    ("cl100k_base.tiktoken", "fastokens"),
    ("cl100k_base.tiktoken", "kitoken"),
    ("cl100k_base.tiktoken", "bpe-openai"),
    ("cl100k_base.tiktoken", "rs-bpe"),
    ("qwen2.5/tokenizer.json", "hf"),
    ("qwen2.5/tokenizer.json", "fastokens"),
    ("qwen2.5/tokenizer.json", "tokie"),
    ("llama3/tokenizer.json", "kitoken"),
    ("bert-minilm/tokenizer.json", "hf"),
    ("bert-minilm/tokenizer.json", "tokie"),
    ("bert-minilm/tokenizer.json", "kitoken"),  # its padding / truncation to 128 removed
    ("sentencepiece/unigram_8k.model", "sentencepiece"),
    ("sentencepiece/bpe_8k.model", "kitoken"),
]


@pytest.mark.shared
@shared
@pytest.mark.parametrize("rel, name", sweep(REAL_PEERS, [("cl100k_base.tiktoken", "tiktoken"), ("qwen2.5/tokenizer.json", "hf")]))
def test_against_peer_libraries_on_shared_tokenizers(capsys, rel, name):
    need_module(bench.PEERS[name].module)
    tok = str(need(TOKENIZERS / rel))
    files = [str(need(CORPUS / f"{c}.txt")) for c in ("en", "zh", "multi")]
    code, report, _ = run_json(capsys, "-t", tok, *files, "--limit-kb", "24", "--chunk-kb", "4", "--against", name)
    assert code == 0, report
    assert [r["name"] for r in report["results"]] == ["tokviz", name], report["skipped"]
    ref = report["results"][1]
    _check_row(ref, name)
    assert ref["load_seconds"] > 0 and ref["version"] == bench.package_version(bench.PEERS[name].package)
    assert ref["agree"] is True and ref["mismatched_chunks"] == 0 and ref["first_mismatch"] is None
    assert ref["tokens"] == report["results"][0]["tokens"] and ref["ratio"] > 0
    assert all(ref["phases"][p]["ratio"] > 0 for p in bench.PHASES)
    assert report["agree"] is True and report["chunks"] >= 18


@pytest.mark.shared
def test_batch_mode_with_two_threads(capsys):
    need_module("tiktoken")
    tok = str(need(TOKENIZERS / "cl100k_base.tiktoken"))
    files = [str(need(CORPUS / f"{c}.txt")) for c in ("en", "zh")]
    code, report, _ = run_json(capsys, "-t", tok, *files, "--limit-kb", "24", "--chunk-kb", "4", "--threads", "2",
                               "--against", "tiktoken")
    assert code == 0 and report["method"] == "one batch call per pass, 2 threads"
    _check_row(report["results"][1], "tiktoken")
    assert report["results"][1]["agree"] is True


@pytest.mark.shared
def test_peer_that_cannot_load_a_real_file_is_skipped():
    need_module("fastokens")
    source = bench.source_of(need(TOKENIZERS / "sentencepiece" / "bpe_8k.model"))
    with pytest.raises(bench._Skip, match="applies to tokenizer.json and .tiktoken files only"):
        bench.load_peer("fastokens", source)
    source.format = "hf-json"  # a .model file handed to a tokenizer.json reader
    with pytest.raises(bench._Skip, match=r"cannot load bpe_8k.model: \w+"):
        bench.load_peer("fastokens", source)


def test_source_of_matches_tokviz_load():
    path = need(TOKENIZERS / "cl100k_base.tiktoken")
    source = bench.source_of(path)
    loaded = tokviz.load(path).source
    assert (source.format, source.path, source.name, source.extra["pattern"]) == \
        (loaded.format, loaded.path, loaded.name, loaded.extra["pattern"])
    qwen = need(TOKENIZERS / "qwen2.5")
    # (the peers read the folder's tokenizer.json; tokviz reads the folder, its config included)
    assert Path(bench.source_of(qwen).path) == qwen / "tokenizer.json"
    assert Path(tokviz.load(qwen).source.path) == qwen


def test_info_shows_the_encoder_in_use(capsys):
    assert main(["info", "-t", DEMO]) == 0
    rows = dict(line.split(None, 1) for line in capsys.readouterr().out.splitlines() if line.startswith("encoder"))
    info = tokviz.load(DEMO).describe()
    assert rows["encoder"].strip() == info["encoder_detail"]
    assert info["encoder_detail"].startswith(info["encoder"])  # "native (gpt2 scanner)" or "python"


# ---- tokviz bench --runs / --threads 1,2,...: fresh processes, medians, the thread table ---------------


@pytest.mark.slow
def test_runs_in_fresh_processes_with_a_thread_table(capsys, varied_file, tmp_path):
    need_module("tokenizers")
    bert = tmp_path / "bert-minilm.json"  # (a real file kept with the tests)
    bert.write_bytes(lzma.decompress((BUNDLED / "bert-minilm" / "tokenizer.json.xz").read_bytes()))
    argv = ["-t", str(bert), str(varied_file), "--chunk-kb", "2", "--threads",
            "2,1", "--runs", "3", "--repeat", "1", "--against", "hf"]
    code, report, err = run_json(capsys, *argv)
    assert code == 0 and report["agree"] is True, report["skipped"]
    assert report["runs"] == 3 and report["threads"] == [1, 2] and report["machine"]["cpu"] and report["machine"]["cores"] >= 1
    assert list(report["single"]) == ["tokviz", "hf"] and list(report["batch"]) == ["tokviz", "hf"]
    assert all(list(by) == ["1", "2"] for by in report["batch"].values())
    cells = list(report["single"].values()) + [c for by in report["batch"].values() for c in by.values()]
    for cell in cells:
        assert cell["agree"] is True and cell["first_mismatch"] is None and cell["load_seconds"] > 0
        for phase in bench.PHASES:
            numbers = cell["phases"][phase]
            assert len(numbers["runs_mb_per_s"]) == 3 and all(v > 0 for v in numbers["runs_mb_per_s"])
            assert numbers["mb_per_s"] == sorted(numbers["runs_mb_per_s"])[1]
            assert numbers["tokens"] > 0 and numbers["bytes"] > 0
    # the same text in every cell: the same number of tokens, for tokviz and the reference alike
    assert len({c["phases"]["cold"]["tokens"] for c in cells}) == 1
    assert len({c["phases"]["warm_unseen"]["tokens"] for c in cells}) == 1
    assert err.count("MB/s") == 6  # a progress line per cell

    assert main(["bench", *argv[:-2], "--against", ""]) == 0
    out = capsys.readouterr().out
    assert report["machine"]["cpu"] in out and "median of 3 runs" in out
    assert "One thread, one encode call per chunk" in out and "Batches: one call per pass" in out
    assert "tokviz ÷ fastest peer" not in out  # (no peer asked for)


def test_a_thread_list_without_one_gives_the_batch_table_only(capsys, text_file):
    code, report, _ = run_json(capsys, "-t", DEMO, str(text_file), "--threads", "2,3", "--repeat", "1", "--against", "")
    assert code == 0 and report["single"] == {} and list(report["batch"]["tokviz"]) == ["2", "3"]
    assert report["runs"] == 1


@pytest.mark.parametrize("value", ["0", "1,0", "two", "1,,2"])
def test_bad_thread_counts_are_refused(capsys, text_file, value):
    with pytest.raises(SystemExit) as exc:
        main(["bench", "-t", DEMO, str(text_file), "--threads", value])
    assert exc.value.code == 2 and "threads must be whole numbers of at least 1" in capsys.readouterr().err


def test_the_first_differing_chunk_and_token_are_found(tmp_path):
    import numpy as np

    from tokviz.bench_runs import _first_difference

    def save(path, cold, warm):
        np.savez(path, cold=np.concatenate(cold), warm_unseen=np.concatenate(warm),
                 cold_offsets=np.cumsum([0] + [len(c) for c in cold]), warm_unseen_offsets=np.cumsum([0] + [len(c) for c in warm]))

    cold, warm = [[1, 2], [3]], [[4, 5, 6], [7, 8]]
    save(tmp_path / "a.npz", cold, warm)
    save(tmp_path / "b.npz", cold, warm)
    texts = (["ab", "c"], ["def", "gh"])
    assert _first_difference(tmp_path / "a.npz", tmp_path / "b.npz", *texts) is None
    save(tmp_path / "b.npz", cold, [[4, 5, 6], [7, 9]])
    assert _first_difference(tmp_path / "a.npz", tmp_path / "b.npz", *texts) == {
        "pass": "warm_unseen", "chunk": 1, "token": 1, "tokviz": [8], "reference": [9], "text": "gh"}
    save(tmp_path / "b.npz", [[1, 2, 2], [3]], warm)  # a longer chunk: it differs where the shorter one ends
    assert _first_difference(tmp_path / "a.npz", tmp_path / "b.npz", *texts)["token"] == 2


# ---- benchmarks/peer_speed.py ----------------------------------------------------------------------


def _peer_speed(*argv):
    return subprocess.run([sys.executable, str(PEER_SPEED), *argv], capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_peer_speed_tiny_run():
    need_module("tiktoken")
    need(TOKENIZERS / "cl100k_base.tiktoken")
    need(CORPUS / "zh.txt")
    args = ["--mb", "0.05", "--tokenizers", "cl100k", "--corpora", "zh", "--peers", "tiktoken,tokie"]
    proc = _peer_speed(*args)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.startswith("# tokviz beside its peers, ") and "cores" in out and "## repeat (MB/s)" in out
    rows = [line for line in out.splitlines() if line.startswith("| cl100k |")]
    assert [r.split(" | ")[1].split()[0] for r in rows] == ["tokviz", "tiktoken", "tokviz"] * 2
    assert rows[1].endswith("| agree |")
    assert "- cl100k / tokie: applies to tokenizer.json files only" in out  # asked for: listed

    proc = _peer_speed(*args, "--json")
    report = json.loads(proc.stdout)
    assert report["agree"] is True and report["machine"]["cores"] >= 1
    by_encoder = {r["encoder"]: r for r in report["records"]}
    assert set(by_encoder) == {"tokviz", "tiktoken"}
    for rec in by_encoder.values():
        assert rec["load_seconds"] > 0 and rec["repeat_same_ids"]
        for phase in bench.PHASES:
            assert rec["phases"][phase]["mb_per_s"] > 0 and rec["phases"][phase]["tokens"] > 0
        assert 50_000 <= rec["phases"]["cold"]["bytes"] < 50_000 + 8192
    assert by_encoder["tiktoken"]["mismatch"] is None
    assert by_encoder["tiktoken"]["phases"]["cold"]["tokens"] == by_encoder["tokviz"]["phases"]["cold"]["tokens"]


def test_peer_speed_finds_the_first_differing_token(tmp_path):
    import numpy as np

    spec = importlib.util.spec_from_file_location("peer_speed", PEER_SPEED)
    peer_speed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(peer_speed)
    corpus = tmp_path / "c.txt"
    corpus.write_text("abc " * 10000, encoding="utf-8")
    args = type("Args", (), {"mb": 0.016, "chunk_kb": 8})()
    cold, warm = bench.two_passes(corpus, args.mb, args.chunk_kb)
    assert len(cold) == 2 and len(warm) == 2
    ids = {p: [[1, 2, 3], [4, 5, 6]] for p in bench.PHASES}

    def save(path, ids):
        arrays = {p: peer_speed.ids_arrays(ids[p]) for p in ids}
        np.savez(path, **{p: a[0] for p, a in arrays.items()}, **{f"{p}_offsets": a[1] for p, a in arrays.items()})

    save(tmp_path / "a.npz", ids)
    save(tmp_path / "b.npz", ids)
    assert peer_speed.compare_ids(tmp_path / "a.npz", tmp_path / "b.npz", corpus, args) is None
    ids["repeat"] = [[1, 2, 3], [4, 9]]  # a peer whose second look at a text goes wrong
    save(tmp_path / "b.npz", ids)
    found = peer_speed.compare_ids(tmp_path / "a.npz", tmp_path / "b.npz", corpus, args)
    assert found == {"pass": "repeat", "chunk": 1, "token": 1, "chunks_differing": 1, "tokviz": [5, 6], "peer": [9],
                     "text": warm[1][:60]}
