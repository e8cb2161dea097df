"""The GPT-2 layout: `vocab.json` (byte-level token -> id) and `merges.txt` side by side.

The layout does not store the split regex or added tokens: it is read as transformers reads it, by
the class a `tokenizer_config.json` beside it names (GPT-2 without one; Qwen2 splits digits one by
one), with the special and added tokens of that class and config (see hf_config.py).
"""
from __future__ import annotations

from pathlib import Path

from ..core import decoders as dec
from ..core import normalizers as norm
from ..core import post_processors as post
from ..core import pre_tokenizers as pre
from ..core.models import BPE
from ..core.patterns import QWEN2_PATTERN
from ..core.tokenizer import Source, Tokenizer
from ..errors import TokvizError
from ..messages import QT_TRANSLATE_NOOP, Message
from ..paths import regular_file_or_none
from ._util import Fields, check_vocab, first_bad_merge_line, read_json, read_text
from .clip_folder import read_clip
from .hf_config import added_tokens, config_class, read_config, refuse_unless, special_token_texts


def read_merge_lines(path: Path) -> list[str]:
    """The "a b" lines of a merges.txt, without its "#version" header and blank lines."""
    lines = read_text(path).replace("\r\n", "\n").split("\n")
    if lines and lines[0].startswith("#version"):
        lines = lines[1:]
    return [line for line in lines if line]


def _fail(message: str, path: Path):
    raise TokvizError(message, path)


# The transformers classes this layout is read as, each with its special-token defaults (transformers
# 5.x); CLIPTokenizer is read by clip_folder.py.  Another class is refused by name.
CLASS_DEFAULTS = {
    "GPT2Tokenizer": {"bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>"},
    "Qwen2Tokenizer": {"eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>", "pad_token": "<|endoftext|>"},
    "RobertaTokenizer": {"bos_token": "<s>", "eos_token": "</s>", "sep_token": "</s>", "cls_token": "<s>",
                         "unk_token": "<unk>", "pad_token": "<pad>", "mask_token": "<mask>"},
}


def _check_config(config, cls: str) -> None:
    """Refuse the config keys that would change what transformers does in a way tokviz does not follow."""
    refuse_unless(config, "errors", "replace", "tokviz decodes invalid UTF-8 as U+FFFD (errors='replace') only")
    refuse_unless(config, "clean_up_tokenization_spaces_for_bpe_even_though_it_will_corrupt_output", False,
                  "tokviz does not apply transformers' clean-up to a BPE tokenizer's decode")
    if cls == "RobertaTokenizer":
        for key in ("add_bos_token", "add_eos_token"):
            refuse_unless(config, key, False, "RobertaTokenizer's <s> ... </s> are its post-processor's")
    for key in ("add_prefix_space", "add_bos_token", "add_eos_token", "split_special_tokens", "trim_offsets"):
        if config is not None and config.data.get(key) is not None:
            config.get(key, bool)  # (type check)


# The two files' names: Hugging Face's, and those of OpenAI's GPT-2 release (also fairseq's).
FILE_PAIRS = (("vocab.json", "merges.txt"), ("encoder.json", "vocab.bpe"))


def gpt2_files(folder: Path) -> tuple[Path, Path]:
    """The vocabulary and merges files of a GPT-2 layout folder (the first pair present)."""
    for vocab_name, merges_name in FILE_PAIRS:
        if (regular_file_or_none(folder / vocab_name, "a vocabulary file") is not None
                or regular_file_or_none(folder / merges_name, "a merges file") is not None):
            return folder / vocab_name, folder / merges_name
    return folder / "vocab.json", folder / "merges.txt"


def read_gpt2(folder: Path) -> Tokenizer:
    """vocab.json + merges.txt (or encoder.json + vocab.bpe), read as transformers' GPT2Tokenizer
    (or the class the folder's tokenizer_config.json names, when tokviz implements it) reads them."""
    vocab_path, merges_path = gpt2_files(folder)
    for p in (vocab_path, merges_path):
        if regular_file_or_none(p) is None:
            raise TokvizError(Message(QT_TRANSLATE_NOOP("formats", "not found: the GPT-2 layout needs {vocab} and "
                                                               "{merges} side by side"), vocab=vocab_path.name,
                                      merges=merges_path.name), p)
    vocab = read_json(vocab_path)
    Fields({"vocab": vocab}, vocab_path).get("vocab", dict, required=True)
    check_vocab(vocab, lambda message: _fail(message, vocab_path))
    lines = read_merge_lines(merges_path)
    bad = first_bad_merge_line(vocab, lines)
    if bad is not None:
        raise TokvizError(f"merge {bad[0] + 1}: {bad[1]}", merges_path)

    config = read_config(folder)
    cls = config_class(config) or "GPT2Tokenizer"
    if cls == "CLIPTokenizer":
        _check_config(config, cls)
        return read_clip(folder, vocab, lines, config)
    if cls not in CLASS_DEFAULTS:
        config.fail(Message(QT_TRANSLATE_NOOP("formats", "tokenizer_class {cls!r} is not implemented by tokviz for the "
                                                         "vocab.json + merges.txt layout (it reads {known}); a "
                                                         "tokenizer.json of it would say exactly what it does"),
                            cls=config.data["tokenizer_class"], known=", ".join(CLASS_DEFAULTS)))
    _check_config(config, cls)
    get = (lambda key, default: config.get(key, bool, default)) if config is not None else (lambda key, default: default)
    defaults = CLASS_DEFAULTS[cls]
    added = added_tokens(config, vocab, defaults)
    prefix_space = get("add_prefix_space", False)
    normalizer, processor = None, None
    if cls == "Qwen2Tokenizer":
        normalizer = norm.UnicodeForm("NFC")
        pre_tokenizer = pre.Sequence([pre.Split(QWEN2_PATTERN, "Isolated"),
                                      pre.ByteLevel(add_prefix_space=prefix_space, use_regex=False)])
    else:
        pre_tokenizer = pre.ByteLevel(add_prefix_space=prefix_space, use_regex=True)
    ids = {t.content: t.id for t in added}
    specials = {attr: t for attr, t in special_token_texts(config, defaults).items() if t in ids}
    if cls == "RobertaTokenizer":
        if "sep_token" in specials and "cls_token" in specials:
            processor = post.RobertaProcessing((ids[specials["sep_token"]], specials["sep_token"]),
                                               (ids[specials["cls_token"]], specials["cls_token"]),
                                               trim_offsets=get("trim_offsets", True), add_prefix_space=prefix_space)
    else:
        # transformers' template: [bos] $A [eos] as add_bos_token / add_eos_token say
        single, tokens = [], {}
        for key, attr in (("add_bos_token", "bos_token"), ("add_eos_token", "eos_token")):
            if get(key, False) and attr in specials:
                tokens[attr] = [(ids[specials[attr]], specials[attr])]
                single.append(("special", attr))
            if key == "add_bos_token":
                single.append(("sequence", "A"))
        if tokens:
            processor = post.TemplateProcessing(single, tokens)
    tok = Tokenizer(
        BPE(vocab, None, merge_lines=lines),
        normalizer=normalizer,
        pre_tokenizer=pre_tokenizer,
        post_processor=processor,
        decoder=dec.ByteLevel(),
        added_tokens=added,
        special_in_text=not get("split_special_tokens", False),
        source=Source("gpt2", str(folder), folder.name, {"tokenizer_class": cls}),
    )
    tok.decode_skips_special = False  # transformers' decode keeps special tokens
    return tok
