"""Vocabulary overlap and merge-order agreement (tokviz.analysis.overlap, `tokviz overlap`).

Every expected figure is measured here independently: vocabularies read with the reference
libraries (HF tokenizers, tiktoken, sentencepiece) or the files' JSON, byte-level strings decoded
with a byte table written below, tiktoken merges recovered from the ranks by a plain BPE written
below, all compared with Python sets and dicts.
"""
from __future__ import annotations

import json
import lzma
import threading
from pathlib import Path

import pytest

import tokviz
from tokviz.analysis.overlap import overlap
from tokviz.cli import main
from tokviz.errors import Cancelled

from _shared import SHARED_TOKENIZER_FILES, TOKENIZERS, need

REAL = Path(__file__).parent / "data" / "real"


def _byte_table() -> dict[str, int]:
    """GPT-2's byte-level alphabet: printable Latin-1 bytes stand for themselves, the others are
    shifted to U+0100 upwards in byte order."""
    keep = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAC + 1), *range(0xAE, 0xFF + 1)]
    table, shifted = {}, 0
    for b in range(256):
        if b in keep:
            table[chr(b)] = b
        else:
            table[chr(256 + shifted)] = b
            shifted += 1
    return table


BYTE_OF = _byte_table()


def bytelevel(s: str) -> bytes:
    return bytes(BYTE_OF[c] for c in s)


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    root = tmp_path_factory.mktemp("overlap")

    def get(name: str, as_name: str | None = None) -> Path:
        src = REAL / name
        target = root / (as_name or name.removesuffix(".xz"))
        if not target.exists():
            if src.is_dir():
                target.mkdir()
                for child in src.iterdir():
                    data = child.read_bytes()
                    out = target / child.name
                    if child.suffix == ".xz":
                        data, out = lzma.decompress(data), out.with_suffix("")
                    out.write_bytes(data)
            else:
                target.write_bytes(lzma.decompress(src.read_bytes()))
        return target

    return get


def hf_vocab(path: Path) -> dict[str, int]:
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(path)).get_vocab(with_added_tokens=False)


def hf_merges(path: Path) -> list[tuple[bytes, bytes]]:
    merges = json.loads(path.read_text(encoding="utf-8"))["model"]["merges"]
    pairs = [m.split(" ") if isinstance(m, str) else m for m in merges]
    return [(bytelevel(a), bytelevel(b)) for a, b in pairs]


def recovered_merges(ranks: dict[bytes, int]) -> list[tuple[bytes, bytes]]:
    """Each multi-byte token's merge, in rank order: the two parts that BPE with only the lower
    ranks leaves of the token's bytes (tiktoken keeps no merge list)."""
    out = []
    for token, rank in sorted(ranks.items(), key=lambda kv: kv[1]):
        if len(token) < 2:
            continue
        parts = [bytes([b]) for b in token]
        while len(parts) > 1:
            best = min(((ranks.get(parts[i] + parts[i + 1], rank), i) for i in range(len(parts) - 1)))
            if best[0] >= rank:
                break
            i = best[1]
            parts[i:i + 2] = [parts[i] + parts[i + 1]]
        if len(parts) == 2:
            out.append((parts[0], parts[1]))
    return out


def first_positions(seq) -> dict:
    pos: dict = {}
    for k, item in enumerate(seq):
        pos.setdefault(item, k)
    return pos


def ordered_run(seq, other) -> int:
    """How many leading items of seq are in `other` at increasing positions."""
    pos = first_positions(other)
    last = -1
    for k, item in enumerate(seq):
        p = pos.get(item)
        if p is None or p <= last:
            return k
        last = p
    return len(seq)


@pytest.fixture(scope="module")
def qwen(real):
    """The bundled Qwen2.5 loaded once for the module (overlap only reads a tokenizer)."""
    return tokviz.load(real("qwen2.5") / "tokenizer.json")


# ---- runnable from tests/data alone ---------------------------------------------------------------
@pytest.mark.slow
def test_a_tokenizer_with_itself(real):
    path = real("qwen2.5") / "tokenizer.json"
    tok = tokviz.load(path)
    report = overlap({"a": tok, "b": tok})
    pair = report.pairs[0]
    vocab = hf_vocab(path)
    n_merges = len(json.loads(path.read_text(encoding="utf-8"))["model"]["merges"])
    assert pair.shared == pair.tokens_a == pair.tokens_b == len({bytelevel(t) for t in vocab})
    assert pair.jaccard == 1.0 and pair.a_in_b == pair.b_in_a == 1.0
    assert pair.same_id == pair.shared and pair.same_id_prefix >= len(vocab)
    m = pair.merges
    assert m.merges_a == m.merges_b == m.common_prefix == n_merges
    assert m.a_prefix_of_b and m.b_prefix_of_a and m.spearman == pytest.approx(1.0)
    assert m.first_difference is None
    assert pair.special_shared == len(tok.added.tokens) and pair.special_only_a == pair.special_only_b == 0
    assert "same vocabulary" in pair.verdict


@pytest.mark.slow
def test_qwen_against_gpt2(real):
    """GPT-2's ranks (whisper's copy) against Qwen2.5: the shared tokens and merges as sets."""
    from tiktoken.load import load_tiktoken_bpe

    qwen_path = real("qwen2.5") / "tokenizer.json"
    gpt2_path = real("whisper-gpt2.tiktoken.xz", "gpt2.tiktoken")
    report = overlap({"qwen": tokviz.load(qwen_path), "gpt2": tokviz.load(gpt2_path)})
    pair = report.pairs[0]

    ranks = load_tiktoken_bpe(str(gpt2_path))
    qwen = {bytelevel(t): i for t, i in hf_vocab(qwen_path).items()}
    shared = qwen.keys() & ranks.keys()
    assert (pair.tokens_a, pair.tokens_b, pair.shared) == (len(qwen), len(ranks), len(shared))
    assert pair.jaccard == pytest.approx(len(shared) / len(qwen.keys() | ranks.keys()))
    assert pair.same_id == sum(qwen[t] == ranks[t] for t in shared)

    gpt2_merges = recovered_merges(ranks)
    qwen_merges = hf_merges(qwen_path)
    m = pair.merges
    assert (m.merges_a, m.merges_b, m.derived_a, m.derived_b) == (len(qwen_merges), len(gpt2_merges), False, True)
    assert m.shared == len(set(qwen_merges) & set(gpt2_merges))
    prefix = next((k for k, (x, y) in enumerate(zip(qwen_merges, gpt2_merges)) if x != y), None)
    assert m.common_prefix == prefix
    assert m.a_ordered_in_b == ordered_run(qwen_merges, gpt2_merges)
    assert m.b_ordered_in_a == ordered_run(gpt2_merges, qwen_merges)
    assert sum(s for s, _, _ in pair.scripts.values()) == pair.shared
    assert sum(map(sum, pair.scripts.values())) == len(qwen.keys() | ranks.keys())
    assert pair.scripts["CJK"][1] > pair.scripts["CJK"][0]  # (Qwen's Chinese tokens are its own)


def test_bpe_against_wordpiece(real, qwen):
    """A WordPiece has no merge list (reported, not an error); its '##' pieces are kept apart
    from word-initial ones, and its special tokens are counted on their own."""
    folder = real("bert-minilm")
    qwen_path = real("qwen2.5") / "tokenizer.json"
    bert = tokviz.load(folder / "tokenizer.json")
    report = overlap({"qwen": qwen, "bert": bert})
    pair = report.pairs[0]
    assert pair.merges is None and "bert is a WordPiece (no merge list)" in pair.merges_note
    assert "Merges not compared" in pair.verdict
    assert [t.merge_source for t in report.tokenizers] == ["merge list", "none (WordPiece)"]

    config = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
    specials = {t["content"] for t in config["added_tokens"]}
    lines = [w for w in (folder / "vocab.txt").read_text(encoding="utf-8").split("\n") if w]
    words = {w.encode() for w in lines if w not in specials and not (w.startswith("##") and w != "##")}
    pieces = {w[2:].encode() for w in lines if w not in specials and w.startswith("##") and w != "##"}
    qwen_bytes = {bytelevel(t) for t in hf_vocab(qwen_path)}
    assert pair.tokens_b == len(words) + len(pieces)  # 'ing' and '##ing' both count
    assert len(words & pieces) > 1000  # (so the line above does tell them apart)
    assert pair.shared == len(words & qwen_bytes)
    assert pair.special_only_b == len(specials) and pair.special_shared == 0


@pytest.mark.slow
def test_sentencepiece_pieces_by_their_bytes(real):
    """Mistral's sentencepiece BPE: '▁' is a space, <0xNN> pieces are bytes, control pieces are
    special; merges are derived from the piece order."""
    import sentencepiece as spm

    sp_path = real("mistral-v1.model.xz")
    qwen_path = real("qwen2.5") / "tokenizer.json"
    report = overlap({"mistral": tokviz.load(sp_path), "qwen": tokviz.load(qwen_path)})
    pair = report.pairs[0]
    sp = spm.SentencePieceProcessor(model_file=str(sp_path))
    pieces, control = set(), set()
    for i in range(sp.get_piece_size()):
        piece = sp.id_to_piece(i)
        if sp.is_control(i) or sp.is_unknown(i):
            control.add(piece)
        elif sp.is_byte(i):
            pieces.add(bytes([int(piece[3:5], 16)]))
        else:
            pieces.add(piece.replace("\u2581", " ").encode())
    qwen_bytes = {bytelevel(t) for t in hf_vocab(qwen_path)}
    assert pair.tokens_a == len(pieces)
    assert pair.shared == len(pieces & qwen_bytes)
    assert pair.special_only_a + pair.special_shared == len(control)
    assert report.tokenizers[0].merge_source == "derived from ranks" and pair.merges is not None


def test_a_truncated_merge_list_is_a_prefix(real, qwen, tmp_path):
    """Qwen2.5 cut to its first 20,000 merges: Qwen2.5 extends it, merge for merge."""
    path = real("qwen2.5") / "tokenizer.json"
    config = json.loads(path.read_text(encoding="utf-8"))
    model = config["model"]
    kept_merges = model["merges"][:20_000]
    keep = {t for t in model["vocab"] if len(t) == 1}
    keep |= {"".join(m.split(" ") if isinstance(m, str) else m) for m in kept_merges}
    ordered = sorted(keep, key=model["vocab"].get)
    model["vocab"] = {t: i for i, t in enumerate(ordered)}
    model["merges"] = kept_merges
    config["added_tokens"] = []
    small = tmp_path / "small" / "tokenizer.json"
    small.parent.mkdir()
    small.write_text(json.dumps(config, ensure_ascii=False), encoding="utf-8")

    report = overlap({"small": tokviz.load(small), "qwen": qwen})
    pair = report.pairs[0]
    m = pair.merges
    assert m.common_prefix == m.merges_a == 20_000 and m.a_prefix_of_b and not m.b_prefix_of_a
    assert pair.a_in_b == 1.0 and pair.tokens_a == len(keep)
    assert pair.verdict.startswith("qwen extends small: qwen's first 20,000 merges are small's, in small's order")


def test_progress_and_cancel(qwen):
    tok = qwen
    seen = []
    overlap({"a": tok, "b": tok, "c": tok}, progress=lambda d, t: seen.append((d, t)))
    assert seen == [(k, 6) for k in range(1, 7)]  # 3 tokenizers, then 3 pairs
    stop = threading.Event()
    stop.set()
    with pytest.raises(Cancelled):
        overlap({"a": tok, "b": tok}, cancel=stop)


@pytest.mark.slow
def test_cli_json_table_and_errors(real, capsys):
    qwen = str(real("qwen2.5") / "tokenizer.json")
    gpt2 = str(real("whisper-gpt2.tiktoken.xz", "gpt2.tiktoken"))
    bert = str(real("bert-minilm") / "tokenizer.json")
    from tiktoken.load import load_tiktoken_bpe

    assert main(["overlap", "-t", qwen, "-t", gpt2, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    ranks = load_tiktoken_bpe(gpt2)
    qwen_bytes = {bytelevel(t) for t in hf_vocab(Path(qwen))}
    assert data["jaccard"] == pytest.approx(len(qwen_bytes & ranks.keys()) / len(qwen_bytes | ranks.keys()))
    assert data["pairs"][0]["jaccard"] == data["jaccard"] and data["verdict"] == data["pairs"][0]["verdict"]

    assert main(["overlap", "-t", qwen, "-t", gpt2, "-t", bert, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    names = [t["name"] for t in data["tokenizers"]]
    assert len(set(names)) == 3
    pairs = [(names[0], names[1]), (names[0], names[2]), (names[1], names[2])]
    assert [(p["a"], p["b"]) for p in data["pairs"]] == pairs
    assert all(0.0 <= p["jaccard"] <= 1.0 for p in data["pairs"]) and "jaccard" not in data
    assert data["pairs"][1]["merges"] is None

    assert main(["overlap", "-t", qwen, "-t", gpt2, "--table", "csv"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("A,B,shared,Jaccard") and out.count("\n") == 2

    assert main(["overlap", "-t", qwen, "-t", gpt2]) == 0
    out = capsys.readouterr().out
    assert "| A | B | shared | Jaccard |" in out and " vs " in out and "| category | shared |" in out

    assert main(["overlap", "-t", qwen]) == 2
    assert "at least two tokenizers" in capsys.readouterr().err


# ---- the shared tokenizers -------------------------------------------------------------------------
@pytest.mark.shared
@pytest.mark.slow
def test_llama3_extends_cl100k():
    """Llama 3's vocabulary is cl100k_base's 100,256 tokens at the same ids, plus 27,744 more; every
    merge of cl100k (recovered from its ranks) is in Llama 3's list, in cl100k's order."""
    from tiktoken.load import load_tiktoken_bpe

    cl_path, llama_path = need(SHARED_TOKENIZER_FILES["cl100k"]), need(SHARED_TOKENIZER_FILES["llama3"])
    report = overlap({"cl100k": tokviz.load(cl_path), "llama3": tokviz.load(llama_path)})
    pair = report.pairs[0]
    ranks = load_tiktoken_bpe(str(cl_path))
    llama = {bytelevel(t): i for t, i in hf_vocab(llama_path).items()}
    shared = ranks.keys() & llama.keys()
    assert (pair.tokens_a, pair.tokens_b, pair.shared) == (len(ranks), len(llama), len(shared))
    assert pair.a_in_b == len(shared) / len(ranks)
    assert pair.same_id == sum(ranks[t] == llama[t] for t in shared)
    by_id_cl = {i: t for t, i in ranks.items()}
    by_id_llama = {i: t for t, i in llama.items()}
    same_prefix = next(i for i in range(len(llama) + 1) if by_id_cl.get(i) != by_id_llama.get(i))
    assert pair.same_id_prefix == same_prefix

    cl_merges = recovered_merges(ranks)
    llama_merges = hf_merges(llama_path)
    m = pair.merges
    assert (m.merges_a, m.merges_b) == (len(cl_merges), len(llama_merges))
    assert m.a_in_b == len(set(cl_merges) & set(llama_merges)) / len(set(cl_merges))
    assert m.a_ordered_in_b == ordered_run(cl_merges, llama_merges)
    print(f"\ncl100k in llama3: {pair.a_in_b:.4f}, same-id prefix {pair.same_id_prefix:,}, "
          f"cl100k merges in llama3 in order {m.a_ordered_in_b:,}: {pair.verdict}")
    assert pair.a_in_b == 1.0 and m.a_ordered_in_b == m.merges_a  # (measured above, independently)
    assert pair.verdict.startswith("llama3 was very likely derived from cl100k")


@pytest.mark.slow
def test_qwen_against_cl100k():
    from tiktoken.load import load_tiktoken_bpe

    cl_path, qwen_path = need(SHARED_TOKENIZER_FILES["cl100k"]), need(SHARED_TOKENIZER_FILES["qwen2.5"])
    report = overlap({"qwen2.5": tokviz.load(qwen_path), "cl100k": tokviz.load(cl_path)})
    pair = report.pairs[0]
    ranks = load_tiktoken_bpe(str(cl_path))
    qwen = {bytelevel(t) for t in hf_vocab(qwen_path)}
    assert (pair.tokens_a, pair.tokens_b, pair.shared) == (len(qwen), len(ranks), len(qwen & ranks.keys()))
    assert pair.b_in_a == pytest.approx(len(qwen & ranks.keys()) / len(ranks))
    qwen_merges, cl_merges = hf_merges(qwen_path), recovered_merges(ranks)
    m = pair.merges
    assert m.a_ordered_in_b == ordered_run(qwen_merges, cl_merges)
    assert m.shared == len(set(qwen_merges) & set(cl_merges))
    print(f"\ncl100k in qwen2.5: {pair.b_in_a:.4f}; qwen's merges in cl100k's order: {m.a_ordered_in_b:,}: "
          f"{pair.verdict}")


@pytest.mark.slow
@pytest.mark.shared
def test_two_files_of_one_tokenizer_are_the_same():
    """Qwen2.5 as tokenizer.json and as vocab.json + merges.txt."""
    folder = need(TOKENIZERS / "qwen2.5")
    need(folder / "merges.txt")
    a = tokviz.load(folder / "tokenizer.json")
    b = tokviz.load(folder / "vocab.json")
    pair = overlap({"json": a, "gpt2 files": b}).pairs[0]
    n_merges = sum(1 for line in (folder / "merges.txt").read_text(encoding="utf-8").split("\n")
                   if line and not line.startswith("#version"))
    assert pair.jaccard == 1.0 and pair.merges.common_prefix == pair.merges.merges_b == n_merges
