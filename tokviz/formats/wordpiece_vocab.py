"""BERT's `vocab.txt`: one WordPiece token per line, the line number is the id."""
from __future__ import annotations

import json
from pathlib import Path

from ..core import decoders as dec
from ..core import normalizers as norm
from ..core import post_processors as post
from ..core import pre_tokenizers as pre
from ..core.models import WordPiece
from ..core.tokenizer import Source, Tokenizer
from ..core.unicode import WHITE_SPACE
from ..errors import TokvizError
from ..messages import QT_TRANSLATE_NOOP, Message
from ._util import read_text
from .hf_config import added_tokens, config_class, read_config, refuse_unless, special_token_texts

BERT_DEFAULTS = {"unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]", "cls_token": "[CLS]",
                 "mask_token": "[MASK]"}
_WHITE_SPACE = "".join(sorted(WHITE_SPACE))
BERT_CLASSES = ("BertTokenizer",)  # transformers' class names this layout is read as ("Fast" too)


def _check_config(config, specials: set[str]) -> None:
    """Refuse what would make transformers tokenize otherwise than tokviz does."""
    if config is None:
        return
    cls = config_class(config)
    if cls is not None and cls not in BERT_CLASSES:
        config.fail(Message(QT_TRANSLATE_NOOP("formats", "tokenizer_class {cls!r} is not implemented by tokviz for a "
                                                         "vocab.txt (it reads {known})"),
                            cls=config.data["tokenizer_class"], known=", ".join(BERT_CLASSES)))
    # transformers 5's BertTokenizer ignores these two, its legacy (slow) one honours them: the
    # references disagree, so a value that would matter is refused rather than read one way.
    refuse_unless(config, "do_basic_tokenize", True,
                  "transformers' BertTokenizer ignores it and BertTokenizerLegacy honours it; tokviz does neither")
    refuse_unless(config, "never_split", lambda words: isinstance(words, list) and set(words) <= specials,
                  "words other than special tokens kept whole: transformers' BertTokenizer ignores them and "
                  "BertTokenizerLegacy honours them; tokviz does neither")
    for key in ("add_bos_token", "add_eos_token"):
        refuse_unless(config, key, False, "BertTokenizer adds [CLS] ... [SEP] only")
    for key in ("do_lower_case", "tokenize_chinese_chars", "strip_accents", "clean_up_tokenization_spaces",
                "split_special_tokens"):
        config.get(key, bool)  # (type check)


def read_wordpiece_vocab(path: Path) -> Tokenizer:
    """A BERT vocab.txt, read as transformers' BertTokenizer reads it with the tokenizer_config.json
    beside it (do_lower_case, strip_accents, tokenize_chinese_chars, special and added tokens)."""
    text = read_text(path)
    lines = (text.replace("\r\n", "\n") if "\r" in text else text).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    # As tokenizers' WordPiece.read_file, which BertTokenizer reads it with: white space at a
    # line's end is not part of the token, and a token listed twice keeps its last id.
    vocab = {line.rstrip(_WHITE_SPACE): i for i, line in enumerate(lines)}
    if not vocab:
        raise TokvizError(QT_TRANSLATE_NOOP("formats", "empty vocabulary"), path)
    config = read_config(path.parent)
    specials = special_token_texts(config, BERT_DEFAULTS)
    unk = specials.get("unk_token")
    if unk is None or unk not in vocab:
        raise TokvizError(Message(QT_TRANSLATE_NOOP("formats", "not a BERT vocab.txt: no {unk} token (the unknown "
                                                           "token) in it"), unk=unk or "[UNK]"), path)
    _check_config(config, set(specials.values()))
    get = (lambda key, default: config.get(key, bool, default)) if config is not None else (lambda key, default: default)
    added = added_tokens(config, vocab, BERT_DEFAULTS)
    ids = {t.content: t.id for t in added}
    specials = {attr: t for attr, t in specials.items() if t in ids}
    processor = None
    if "cls_token" in specials and "sep_token" in specials:
        processor = post.BertProcessing(sep=(ids[specials["sep_token"]], specials["sep_token"]),
                                        cls=(ids[specials["cls_token"]], specials["cls_token"]))
    tok = Tokenizer(
        WordPiece(vocab, unk_token=unk),
        normalizer=norm.BertNormalizer(clean_text=True, handle_chinese_chars=get("tokenize_chinese_chars", True),
                                       strip_accents=get("strip_accents", None), lowercase=get("do_lower_case", True)),
        pre_tokenizer=pre.BertPreTokenizer(),
        post_processor=processor,
        decoder=dec.WordPiece(),
        added_tokens=added,
        special_in_text=not get("split_special_tokens", False),
        source=Source("wordpiece-vocab", str(path), path.parent.name or path.stem),
        decode_fn=_decode_with_cleanup if get("clean_up_tokenization_spaces", False) else None,
    )
    tok.decode_skips_special = False  # transformers' decode keeps special tokens
    return tok


def _decode_with_cleanup(tok: Tokenizer, ids: list[int], skip_special_tokens: bool) -> str:
    """transformers' decode with clean_up_tokenization_spaces: the decoder's text, then its clean-up."""
    special = tok.added.special_ids
    tokens = [tok.id_to_token(i) for i in ids if not (skip_special_tokens and i in special)]
    return dec.transformers_cleanup(tok.decoder.decode(tokens))


def wordpiece_vocab_problem(tok: Tokenizer) -> str | None:
    """Why vocab.txt (with the tokenizer_config.json written beside it) cannot hold `tok` so that
    BertTokenizer reads the same tokenizer (None: it can)."""
    model = tok.model
    if not isinstance(model, WordPiece):
        return f"vocab.txt holds WordPiece vocabularies only (this model is {model.kind})"
    if model.prefix != "##" or model.max_input_chars_per_word != 100:
        return ("BertTokenizer reads vocab.txt with the '##' prefix and words of at most 100 characters; this WordPiece "
                f"uses {model.prefix!r} and {model.max_input_chars_per_word}")
    n = tok.normalizer
    if type(n) is not norm.BertNormalizer or not n.clean_text or tok.text_normalizer is not None:
        found = n.describe() if n is not None else "no normalizer"
        return f"BertTokenizer normalizes with BertNormalizer(clean_text=True); this tokenizer has {found}"
    if type(tok.pre_tokenizer) is not pre.BertPreTokenizer:
        found = tok.pre_tokenizer.describe() if tok.pre_tokenizer is not None else "no pre-tokenizer"
        return f"BertTokenizer splits words with BertPreTokenizer; this tokenizer has {found}"
    d = tok.decoder
    if type(d) is not dec.WordPiece or d.prefix != "##" or not d.cleanup:
        return "BertTokenizer decodes with the WordPiece decoder ('##', with clean-up); this tokenizer decodes otherwise"
    if tok.post_processor is not None:
        before, after = tok.post_processor.wrap()
        if len(before) != 1 or len(after) != 1 or tok.post_processor.trims_offsets:
            return "BertTokenizer puts one [CLS]-like token before a text and one [SEP]-like token after it; this " \
                   "tokenizer's post-processor does otherwise"
    elif {BERT_DEFAULTS["cls_token"], BERT_DEFAULTS["sep_token"]} <= {t.content for t in tok.added.tokens}:
        return ("BertTokenizer puts [CLS] and [SEP] around a text when special tokens are added; this tokenizer "
                "has both but no post-processor")
    by_id, problem = _lines_by_id(tok)
    return problem


def _lines_by_id(tok: Tokenizer) -> tuple[dict[int, str], str | None]:
    """Each id's line of vocab.txt, and why they cannot be written (None: they can)."""
    by_id: dict[int, str] = {}
    for token, i in tok.model.vocab.items():
        by_id.setdefault(i, token)
    for t in tok.added.tokens:
        if by_id.setdefault(t.id, t.content) != t.content:
            return by_id, f"id {t.id} is both {by_id[t.id]!r} and the added token {t.content!r}; vocab.txt has one line per id"
    if next((i for i in range(len(by_id)) if i not in by_id), None) is not None:
        return by_id, "vocab.txt needs ids 0..n-1 without gaps"
    bad = next((t for t in by_id.values() if "\n" in t or "\r" in t or t.rstrip(_WHITE_SPACE) != t), None)
    if bad is not None:
        return by_id, (f"the token {bad!r} ends in white space or holds a line break; BertTokenizer reads vocab.txt "
                       "lines without them")
    return by_id, None


def _config(tok: Tokenizer) -> dict:
    """The tokenizer_config.json that makes BertTokenizer read vocab.txt as `tok`."""
    n = tok.normalizer
    contents = {t.content for t in tok.added.tokens} | set(tok.model.vocab)
    specials = {attr: (content if content in contents else None) for attr, content in BERT_DEFAULTS.items()}
    specials["unk_token"] = tok.model.unk_token
    if tok.post_processor is not None:
        (_, cls), = tok.post_processor.wrap()[0]
        (_, sep), = tok.post_processor.wrap()[1]
        specials["cls_token"], specials["sep_token"] = cls, sep
    config = {
        "tokenizer_class": "BertTokenizer",
        "do_lower_case": n.lowercase,
        "strip_accents": n.strip_accents,
        "tokenize_chinese_chars": n.handle_chinese_chars,
        "clean_up_tokenization_spaces": tok.decode_fn is _decode_with_cleanup,
        "split_special_tokens": not tok.special_in_text,
        **specials,
    }
    config["added_tokens_decoder"] = {
        str(t.id): {"content": t.content, "lstrip": t.lstrip, "rstrip": t.rstrip, "single_word": t.single_word,
                    "normalized": t.normalized, "special": t.special}
        for t in sorted(tok.added.tokens, key=lambda t: t.id)
    }
    return config


def write_wordpiece_vocab(tok: Tokenizer, path: Path, *, overwrite: bool = True) -> list[Path]:
    """One token per line in id order (BERT's vocab.txt), and beside it the tokenizer_config.json
    that tells BertTokenizer how to read it (case, accents, special and added tokens), written as
    one transaction (atomic_write).  The paths written."""
    from .atomic_write import write_files_atomic

    problem = wordpiece_vocab_problem(tok)
    if problem is not None:
        raise TokvizError(problem)
    by_id, _ = _lines_by_id(tok)
    files = [(path, "".join(by_id[i] + "\n" for i in range(len(by_id)))),
             (path.parent / "tokenizer_config.json", json.dumps(_config(tok), indent=2, ensure_ascii=False) + "\n")]
    return write_files_atomic(files, overwrite=overwrite)
