"""CLIP's vocab.json + merges.txt folder (the text encoder of Stable Diffusion and Flux), read as
transformers' CLIPTokenizer reads it.

CLIPTokenizer builds this pipeline from the two files: NFC, runs of white space made one space and
lower-casing; the text cut by CLIP's word pattern (the rest, white space, dropped), then GPT-2's byte
mapping; BPE whose words end in "</w>"; <|startoftext|> ... <|endoftext|> around a sequence; and
a decode that turns each "</w>" into a space and strips the ends.  (transformers 5 does not use
ftfy: neither does this reader.)
"""
from __future__ import annotations

from pathlib import Path

from ..core import decoders as dec
from ..core import normalizers as norm
from ..core import post_processors as post
from ..core import pre_tokenizers as pre
from ..core.models import BPE
from ..core.tokenizer import Source, Tokenizer
from ._util import Fields
from .hf_config import added_tokens, special_token_texts

CLIP_DEFAULTS = {"bos_token": "<|startoftext|>", "eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>",
                 "pad_token": "<|endoftext|>"}
CLIP_WORDS = r"""<\|startoftext\|>|<\|endoftext\|>|'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+"""
END_OF_WORD = "</w>"


def _decode(tok: Tokenizer, ids: list[int], skip_special_tokens: bool) -> str:
    special = tok.added.special_ids
    tokens = [tok.id_to_token(i) for i in ids if not (skip_special_tokens and i in special)]
    return tok.decoder.decode(tokens).replace(END_OF_WORD, " ").strip()


def read_clip(folder: Path, vocab: dict[str, int], lines: list[str], config: Fields | None) -> Tokenizer:
    """The CLIPTokenizer of a folder whose vocab.json and merges.txt are already read and checked."""
    # (CLIPTokenizer ignores add_prefix_space, add_bos_token, add_eos_token and trim_offsets: measured)
    added = added_tokens(config, vocab, CLIP_DEFAULTS)
    ids = {t.content: t.id for t in added}
    specials = special_token_texts(config, CLIP_DEFAULTS)
    for attr in ("bos_token", "eos_token"):
        if specials.get(attr) not in ids:
            where = config or Fields({}, folder / "tokenizer_config.json")
            where.fail(f"CLIPTokenizer needs its {attr} ({specials.get(attr)!r}) in the vocabulary or the config")
    bos, eos = specials["bos_token"], specials["eos_token"]
    unk = specials.get("unk_token")
    tok = Tokenizer(
        BPE(vocab, None, merge_lines=lines, unk_token=unk if unk in vocab else None, end_of_word_suffix=END_OF_WORD),
        normalizer=norm.Sequence([norm.UnicodeForm("NFC"), norm.Replace(r"\s+", " ", True), norm.Lowercase()]),
        pre_tokenizer=pre.Sequence([pre.Split(CLIP_WORDS, "Removed", invert=True),
                                    pre.ByteLevel(add_prefix_space=False, use_regex=True)]),
        post_processor=post.RobertaProcessing((ids[eos], eos), (ids[bos], bos), trim_offsets=False,
                                              add_prefix_space=False),
        decoder=dec.ByteLevel(),
        added_tokens=added,
        special_in_text=not (config is not None and config.get("split_special_tokens", bool, False)),
        source=Source("gpt2", str(folder), folder.name, {"tokenizer_class": "CLIPTokenizer"}),
        decode_fn=_decode,
    )
    tok.decode_skips_special = False  # transformers' decode keeps special tokens
    return tok
