"""BERT's `vocab.txt`: one WordPiece token per line, the line number is the id."""
from __future__ import annotations

from pathlib import Path

from ..core import decoders as dec
from ..core import normalizers as norm
from ..core import post_processors as post
from ..core import pre_tokenizers as pre
from ..core.added import AddedToken
from ..core.models import WordPiece
from ..core.tokenizer import Source, Tokenizer
from ..errors import TokvizError
from ._util import Fields, read_json, read_text

BERT_SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


def read_wordpiece_vocab(path: Path) -> Tokenizer:
    text = read_text(path)
    lines = (text.replace("\r\n", "\n") if "\r" in text else text).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    # Reversed, so that a token listed twice keeps its first id.
    vocab = dict(zip(reversed(lines), range(len(lines) - 1, -1, -1)))
    if not vocab:
        raise TokvizError("empty vocabulary", path)
    if "[UNK]" not in vocab:
        raise TokvizError("not a BERT vocab.txt: no [UNK] token", path)
    lowercase = True
    config_path = path.parent / "tokenizer_config.json"
    if config_path.is_file():
        lowercase = Fields(read_json(config_path), config_path).get("do_lower_case", bool, True)
    specials = [AddedToken(t, vocab[t], special=True) for t in BERT_SPECIALS if t in vocab]
    processor = None
    if "[CLS]" in vocab and "[SEP]" in vocab:
        processor = post.BertProcessing(sep=(vocab["[SEP]"], "[SEP]"), cls=(vocab["[CLS]"], "[CLS]"))
    return Tokenizer(
        WordPiece(vocab, unk_token="[UNK]"),
        normalizer=norm.BertNormalizer(lowercase=lowercase),
        pre_tokenizer=pre.BertPreTokenizer(),
        post_processor=processor,
        decoder=dec.WordPiece(),
        added_tokens=specials,
        special_in_text=True,
        source=Source("wordpiece-vocab", str(path), path.parent.name or path.stem),
    )


def write_wordpiece_vocab(tok: Tokenizer, path: Path, *, overwrite: bool = True) -> None:
    """One token per line in id order (BERT's vocab.txt); the ids must run 0..n-1 without gaps."""
    from ..core.models import WordPiece
    from .hf_json_writer import write_text_atomic

    if not isinstance(tok.model, WordPiece):
        raise TokvizError(f"vocab.txt holds WordPiece vocabularies only (this model is {tok.model.kind})")
    by_id: dict[int, str] = {}
    for token, i in tok.model.vocab.items():
        by_id.setdefault(i, token)
    for t in tok.added.tokens:
        by_id.setdefault(t.id, t.content)
    missing = next((i for i in range(len(by_id)) if i not in by_id), None)
    if missing is not None or any("\n" in t or "\r" in t for t in by_id.values()):
        raise TokvizError("vocab.txt needs ids 0..n-1 without gaps and tokens without line breaks")
    write_text_atomic(path, "".join(by_id[i] + "\n" for i in range(len(by_id))), overwrite=overwrite)
