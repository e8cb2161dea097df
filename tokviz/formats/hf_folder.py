"""A folder holding `tokenizer.json` and a `tokenizer_config.json` (or a `special_tokens_map.json`, or a
model's `config.json`), read as transformers 5.x `AutoTokenizer.from_pretrained(folder)` reads it.

transformers loads tokenizer.json with HF tokenizers, then registers the config's tokens on top of
it: `added_tokens_decoder`, the named special tokens (bos, eos, unk, sep, pad, cls, mask and any
other `*_token` key whose value is a token) and `additional_special_tokens` / `extra_special_tokens`.
A token the file lacks gets a new id; a plain vocabulary entry named as a special token becomes a
special added token (matched whole in text, skipped by `decode(skip_special_tokens=True)`).
`special_tokens_map.json` is read only when the config has no `added_tokens_decoder`, and then its
values win over the config's.  Its decode keeps special tokens unless told (`decode_skips_special`).

The class transformers picks (hf_folder_classes.py: the config's `tokenizer_class`, weighed against
config.json's `model_type`) decides the pipeline: most classes (none named, PreTrainedTokenizerFast,
TokenizersBackend, a Llama class over a byte-level file, names transformers does not know) take
tokenizer.json's pipeline as it is; Qwen2Tokenizer, Qwen3_5Tokenizer, GPT2Tokenizer, BertTokenizer,
LlamaTokenizer (over a file that is not byte-level), GemmaTokenizer and CohereTokenizer rebuild their
own pipeline from the file's vocabulary (and merges), which is done here too.  The other classes that rebuild their
pipeline, custom code (`auto_map`) and keys that change encoding in ways tokviz does not implement
are refused by name.  A tokenizer.json opened as a file is read as HF tokenizers reads it.
"""
from __future__ import annotations

from pathlib import Path

from ..core import decoders as dec
from ..core import normalizers as norm
from ..core import post_processors as post
from ..core import pre_tokenizers as pre
from ..core.added import AddedToken, AddedVocabulary, resolve_hf_added_tokens
from ..core.models import BPE, WordPiece
from ..core.patterns import QWEN2_PATTERN, QWEN35_PATTERN
from ..core.tokenizer import Tokenizer
from ..paths import regular_file_or_none
from ..messages import QT_TRANSLATE_NOOP, Message
from ._util import Fields, first_surrogate, read_json, read_text, surrogate_message
from .hf_config import SPECIAL_ATTRIBUTES, read_config
from .hf_folder_classes import AS_IS, auto_class
from .hf_json import _refuse_shared_match_string, build_hf_tokenizer, check_serde_shapes

SPECIAL_TOKENS_MAP = "special_tokens_map.json"

# Class -> its special-token defaults (transformers 5.24), for the classes rebuilt here.
_REBUILT_HERE = {
    "Qwen2": {"unk_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "pad_token": "<|endoftext|>"},
    "Qwen3_5": {"unk_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "pad_token": "<|endoftext|>"},
    "GPT2": {"unk_token": "<|endoftext|>", "bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>"},
    "Bert": {"unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]", "cls_token": "[CLS]",
             "mask_token": "[MASK]"},
    "Llama": {"unk_token": "<unk>", "bos_token": "<s>", "eos_token": "</s>"},
    "Gemma": {"unk_token": "<unk>", "bos_token": "<bos>", "eos_token": "<eos>", "pad_token": "<pad>",
              "mask_token": "<mask>"},
    "Cohere": {"unk_token": "<UNK>", "bos_token": "<BOS_TOKEN>", "eos_token": "<|END_OF_TURN_TOKEN|>",
               "pad_token": "<PAD>", "cls_token": "<CLS>", "sep_token": "<SEP>", "mask_token": "<MASK_TOKEN>"},
}

# Config keys that change what transformers encodes or decodes and that tokviz does not follow,
# with the value that changes nothing.
_REFUSED_UNLESS = {
    "fix_mistral_regex": (False, "transformers then replaces the pre-tokenizer's split pattern"),
    "clean_up_tokenization_spaces_for_bpe_even_though_it_will_corrupt_output":
        (False, "tokviz does not apply transformers' clean-up to a decode"),
}


def has_transformers_config(folder: Path) -> bool:
    """Whether transformers reads more than tokenizer.json in this folder (a config.json's model_type
    can choose the class)."""
    return any(regular_file_or_none(folder / name, "a settings file") is not None
               for name in ("tokenizer_config.json", SPECIAL_TOKENS_MAP, "config.json"))


def read_hf_folder(folder: Path) -> Tokenizer:
    """The folder's tokenizer.json with the tokens and settings of its tokenizer_config.json and
    special_tokens_map.json, as transformers' `AutoTokenizer.from_pretrained(folder)` gives them."""
    path = folder / "tokenizer.json"
    data = read_json(path, serde=True)
    if isinstance(data, dict) and "model" in data:
        check_serde_shapes(data, path)
    tokenizer = build_hf_tokenizer(data, path, name=folder.name)
    config = read_config(folder) or Fields({}, folder / "tokenizer_config.json")
    cls = _class_name(config, folder)
    _refuse_settings(config)
    model_data = data["model"] if isinstance(data, dict) else {}
    rebuilt = cls in _REBUILT_HERE
    kwargs, model_specific = _settings(config, folder)
    if rebuilt:
        _rebuild_pipeline(tokenizer, cls, config, kwargs, model_data)
    file_entries = _file_entries(data)
    padding = data.get("padding") if isinstance(data.get("padding"), dict) else None
    registered, special_tokens_map = _registered_tokens(kwargs, model_specific, file_entries, cls, config, padding)
    entries = ([] if rebuilt else file_entries) + registered
    _install(tokenizer, entries, data)
    if cls == "Bert":
        _bert_post_processor(tokenizer, kwargs, config)
    split = kwargs.get("split_special_tokens", False)
    if not isinstance(split, bool):
        config.fail(f"split_special_tokens: expected true or false, got {split!r:.40}")
    if split:
        _refuse_split_with_renamed_specials(config, tokenizer, entries)
    tokenizer.special_in_text = not split
    _apply_clean_up(config, tokenizer)
    tokenizer.decode_skips_special = False  # transformers' decode keeps special tokens
    tokenizer.source.extra["transformers_class"] = f"{cls}Tokenizer" if cls else "TokenizersBackend"
    tokenizer.source.extra["special_tokens_map"] = special_tokens_map
    tokenizer.source.path = str(folder)  # (reopened, e.g. by a session or a cluster's workers, as the folder)
    return tokenizer


# ---- the class ---------------------------------------------------------------------------

def _class_name(config: Fields, folder: Path) -> str | None:
    """The class transformers reads the folder with, short ("Qwen2"; None: tokenizer.json as it
    is); refuses the classes tokviz does not implement."""
    auto_map = config.data.get("auto_map")
    if auto_map is not None and (not isinstance(auto_map, dict) or auto_map.get("AutoTokenizer") is not None):
        config.fail(QT_TRANSLATE_NOOP("formats", "auto_map names custom tokenizer code, which transformers runs only "
                                                 "with trust_remote_code and tokviz does not run"))
    name = config.get("tokenizer_class", str)
    model = _model_config(folder)
    chosen = auto_class(name, model.get("model_type", str), model.get("tokenizer_class", str),
                        lambda: '"ByteLevel"' in read_text(folder / "tokenizer.json"),
                        lambda: regular_file_or_none(folder / "tekken.json", "a tokenizer file") is not None)
    where = (f"tokenizer_class {name!r}" if name is not None else
             f"{model.path.name}'s model_type {model.data.get('model_type')!r}")
    if chosen is None:
        model.fail(Message(QT_TRANSLATE_NOOP("formats", "tokenizer_class {cls!r} is not a class transformers knows; it "
                                                        "fails to load this folder"),
                           cls=model.data.get("tokenizer_class")))
    if chosen == AS_IS:
        return None
    if chosen in _REBUILT_HERE:
        return chosen
    if chosen == "MistralCommonBackend":
        model.fail(Message(QT_TRANSLATE_NOOP("formats", "model_type {model_type!r}: transformers reads this folder's "
                                                        "tekken.json with mistral-common; open tekken.json instead"),
                           model_type=model.data.get("model_type")))
    (config if name is not None else model).fail(Message(
        QT_TRANSLATE_NOOP("formats", "{where}: transformers reads this folder with {chosen}Tokenizer, which builds its "
                                     "own pipeline from the vocabulary instead of taking tokenizer.json's; tokviz does "
                                     "not implement it (it follows {known} and the classes that take tokenizer.json "
                                     "as it is)"),
        where=where, chosen=chosen, known=", ".join(k + "Tokenizer" for k in _REBUILT_HERE)))


def _model_config(folder: Path) -> Fields:
    """The folder's config.json (the model's settings: its model_type steers transformers' choice of
    class), empty when there is none."""
    path = folder / "config.json"
    if regular_file_or_none(path, "a settings file") is None:
        return Fields({}, path)
    data = read_json(path)
    if not isinstance(data, dict):
        Fields({}, path).fail("expected an object (transformers fails to read this folder's model settings)")
    return Fields(data, path)


def _rebuild_pipeline(tokenizer: Tokenizer, cls: str, config: Fields, kwargs: dict, model_data: dict) -> None:
    """The pipeline the class (transformers 5.24) builds from tokenizer.json's vocabulary (and
    merges); the file's post-processor is kept (BertTokenizer replaces it after its tokens are
    known: `_bert_post_processor`)."""
    kind = model_data.get("type") or type(tokenizer.model).__name__
    if cls == "Bert":
        if not isinstance(tokenizer.model, WordPiece) or kind != "WordPiece":
            config.fail(f"tokenizer_class BertTokenizer needs a WordPiece model in tokenizer.json, not {kind}")
        unk = _named_content(kwargs, "unk_token", "[UNK]", config)
        if unk is None or unk not in tokenizer.model.vocab:
            config.fail(f"unk_token {unk!r}: BertTokenizer's WordPiece needs its unknown token in the vocabulary")
        flags = {key: config.get(key, bool, default) for key, default in
                 (("do_lower_case", True), ("tokenize_chinese_chars", True))}
        strip_accents = config.get("strip_accents", bool)
        tokenizer.model = WordPiece(dict(tokenizer.model.vocab), unk_token=unk)
        tokenizer.normalizer = norm.BertNormalizer(clean_text=True, handle_chinese_chars=flags["tokenize_chinese_chars"],
                                                   strip_accents=strip_accents, lowercase=flags["do_lower_case"])
        tokenizer.pre_tokenizer = pre.BertPreTokenizer()
        tokenizer.decoder = dec.WordPiece()
        tokenizer.space_marker = None
        return
    if not isinstance(tokenizer.model, BPE) or kind != "BPE":
        config.fail(f"tokenizer_class {cls}Tokenizer needs a BPE model in tokenizer.json, not {kind}")
    raw = model_data.get("merges") or []
    lines = raw if all(isinstance(m, str) for m in raw) else None
    merges = None if lines is not None else [tuple(m.split(" ") if isinstance(m, str) else m) for m in raw]
    vocab = dict(model_data["vocab"])
    tokenizer.space_marker = None
    if cls in ("Llama", "Gemma"):
        unk = None
        if cls == "Gemma":  # (Llama's BPE has no unknown token)
            unk = _named_content(kwargs, "unk_token", "<unk>", config)
            if unk is None or unk not in vocab:
                config.fail(f"unk_token {unk!r}: GemmaTokenizer's BPE fails on every text with a character outside "
                            "the vocabulary when its unknown token is not in it, which tokviz does not reproduce")
        tokenizer.model = BPE(vocab, merges, merge_lines=lines, unk_token=unk, fuse_unk=True, byte_fallback=True)
        steps = [dec.Replace("▁", " "), dec.ByteFallback(), dec.Fuse()]
        if cls == "Gemma":
            tokenizer.normalizer = norm.Replace(" ", "▁")
            tokenizer.pre_tokenizer = pre.Split(" ", "MergedWithPrevious", False, False)
        else:
            prefix_space = config.get("add_prefix_space", bool, None)
            prefix_space = True if prefix_space is None else prefix_space
            legacy = config.get("legacy", bool, False)
            scheme = ("first" if not legacy else "always") if prefix_space else "never"
            tokenizer.normalizer = None
            tokenizer.pre_tokenizer = pre.Metaspace("▁", scheme, False)
            if prefix_space:
                steps.append(dec.Strip(" ", 1, 0))
        tokenizer.decoder = dec.Sequence(steps)
        tokenizer.space_marker = "▁"
        return
    prefix_space = config.get("add_prefix_space", bool, False)
    tokenizer.model = BPE(vocab, merges, merge_lines=lines)
    tokenizer.decoder = dec.ByteLevel()
    if cls in ("Qwen2", "Qwen3_5"):
        tokenizer.normalizer = norm.UnicodeForm("NFC")
        pattern = QWEN2_PATTERN if cls == "Qwen2" else QWEN35_PATTERN
        tokenizer.pre_tokenizer = pre.Sequence([pre.Split(pattern, "Isolated"),
                                                pre.ByteLevel(add_prefix_space=prefix_space, use_regex=False)])
    elif cls == "Cohere":
        tokenizer.normalizer = norm.UnicodeForm("NFC")
        tokenizer.pre_tokenizer = pre.Sequence([pre.Digits(True), pre.ByteLevel(add_prefix_space=prefix_space)])
    else:
        tokenizer.normalizer = None
        tokenizer.pre_tokenizer = pre.ByteLevel(add_prefix_space=prefix_space, use_regex=True)


def _named_content(kwargs: dict, attr: str, default: str | None, config: Fields) -> str | None:
    """The content of a named special token as the class receives it (its default when not set)."""
    value = kwargs[attr] if attr in kwargs else default
    token = _token(config, attr, value, typed_only=True)
    return token.content if token is not None else None


def _bert_post_processor(tokenizer: Tokenizer, kwargs: dict, config: Fields) -> None:
    """BertTokenizer's [CLS] $A [SEP], with the ids its tokens have once they are registered."""
    parts = {}
    for attr, default, fallback_id in (("cls_token", "[CLS]", 2), ("sep_token", "[SEP]", 3)):
        content = _named_content(kwargs, attr, default, config)
        if content is None:  # (the class writes the text "None" with a fixed id)
            parts[attr] = [(fallback_id, "None")]
            continue
        if any(c.isspace() for c in content) or not content:
            config.fail(f"{attr} {content!r}: BertTokenizer writes its post-processor as a template string "
                        "split at white space, which transformers fails to build for this token")
        parts[attr] = [(tokenizer.token_to_id(content), content)]  # (a named token is always registered)
    tokenizer.post_processor = post.TemplateProcessing(
        [("special", "cls_token"), ("sequence", "A"), ("special", "sep_token")], parts)


def _refuse_split_with_renamed_specials(config: Fields, tokenizer: Tokenizer, entries: list[AddedToken]) -> None:
    """With split_special_tokens, HF tokenizers leaves a special token unmatched by its own content,
    but a normalized one is known (and decoded) by its normalized content, which is not special:
    tokviz keeps one flag per token."""
    normalize = tokenizer.normalizer.normalize_str if tokenizer.normalizer is not None else str
    specials = {e.content for e in entries if e.special}
    for e in entries:
        if e.normalized and e.content in specials and normalize(e.content) != e.content:
            config.fail(f"split_special_tokens = true with the special token {e.content!r} matched after "
                        f"normalization (as {normalize(e.content)!r}): HF tokenizers then treats it as special in "
                        "text but not in decode, which tokviz does not implement")


def _refuse_settings(config: Fields) -> None:
    for key, (harmless, why) in _REFUSED_UNLESS.items():
        value = config.data.get(key)
        if value is not None and value != harmless:
            config.fail(f"{key} = {value!r} is not supported: {why}")


def _apply_clean_up(config: Fields, tokenizer: Tokenizer) -> None:
    """transformers' decode clean-up (" ." -> "." and the like), which it skips for BPE models."""
    value = config.data.get("clean_up_tokenization_spaces")
    if value is not None and not isinstance(value, bool):
        config.fail(f"clean_up_tokenization_spaces: expected true or false, got {value!r:.40}")
    if value and not isinstance(tokenizer.model, BPE):
        tokenizer.decode_fn = _decode_cleaned


def _decode_cleaned(tokenizer: Tokenizer, ids: list[int], skip_special_tokens: bool) -> str:
    skipped = tokenizer.added.special_ids - getattr(tokenizer, "_kept_on_decode", frozenset())
    tokens = [tokenizer.id_to_token(i) for i in ids if not (skip_special_tokens and i in skipped)]
    text = tokenizer.decoder.decode(tokens) if tokenizer.decoder is not None else " ".join(tokens)
    return dec.transformers_cleanup(text)


# ---- the settings, merged as transformers merges them --------------------------------------

def _settings(config: Fields, folder: Path) -> tuple[dict, dict]:
    """The config's keys after transformers' merge with special_tokens_map.json (read only when the
    config has no `added_tokens_decoder`; its values then win) and its renames, and the
    model-specific special tokens (other `*_token` keys and an `extra_special_tokens` object) in
    the order transformers registers them."""
    kwargs = dict(config.data)
    if not kwargs.get("extra_special_tokens") and "additional_special_tokens" in kwargs:
        kwargs["extra_special_tokens"] = kwargs.pop("additional_special_tokens")
    explicit = {key: kwargs.pop(key) for key in list(kwargs)
                if key not in SPECIAL_ATTRIBUTES and key.endswith("_token") and isinstance(kwargs[key], str)}
    if isinstance(kwargs.get("extra_special_tokens"), dict):
        explicit.update(kwargs.pop("extra_special_tokens"))
    if "added_tokens_decoder" not in kwargs:
        _merge_special_tokens_map(kwargs, folder)
        if isinstance(kwargs.get("extra_special_tokens"), dict):
            explicit.update(kwargs.pop("extra_special_tokens"))
    if "additional_special_tokens" in kwargs and "extra_special_tokens" not in kwargs:
        kwargs["extra_special_tokens"] = kwargs.pop("additional_special_tokens")  # (the class's own rename)
    found = {key: value for key, value in kwargs.items()
             if key not in SPECIAL_ATTRIBUTES and key.endswith("_token")
             and (isinstance(value, str) or (isinstance(value, dict) and value.get("__type") == "AddedToken"))}
    return kwargs, {**found, **explicit}


def _merge_special_tokens_map(kwargs: dict, folder: Path) -> None:
    if regular_file_or_none(folder / "added_tokens.json", "a settings file") is not None:
        Fields({}, folder / "added_tokens.json").fail(
            "transformers adds the tokens of this legacy file when tokenizer_config.json has no "
            "added_tokens_decoder; tokviz does not read it")
    map_path = folder / SPECIAL_TOKENS_MAP
    if regular_file_or_none(map_path, "a settings file") is None:
        return
    special_map = Fields(read_json(map_path), map_path)
    for key, value in special_map.data.items():
        if key == "extra_special_tokens" and isinstance(value, list):
            merged = list(kwargs.get("extra_special_tokens") or [])
            for token in value:
                token = _special_dict(special_map, key, token) if isinstance(token, dict) else token
                if token not in merged:
                    merged.append(token)
            value = merged
        elif isinstance(value, dict) and key != "extra_special_tokens":
            value = _special_dict(special_map, key, value)
        kwargs[key] = value


def _special_dict(where: Fields, key: str, value: dict) -> dict:
    """A token object of special_tokens_map.json: transformers makes it special whatever it says."""
    spec = {k: v for k, v in value.items() if k != "special"}
    if not isinstance(spec.get("content"), str):
        where.fail(f"{key}: expected a token object with a 'content' string, got {value!r:.60}")
    return {**spec, "special": True, "__type": "AddedToken"}


def _file_entries(data: dict) -> list[AddedToken]:
    """tokenizer.json's own added tokens (checked by build_hf_tokenizer), in file order."""
    out = []
    for t in data.get("added_tokens") or []:
        special = bool(t.get("special", False))
        out.append(AddedToken(t["content"], t["id"], special=special, lstrip=bool(t.get("lstrip", False)),
                              rstrip=bool(t.get("rstrip", False)), single_word=bool(t.get("single_word", False)),
                              normalized=bool(t.get("normalized", not special))))
    return out


class _Token:
    """transformers' AddedToken while it is being registered: `normalized` unset means "not special"
    at the time it is added (as HF tokenizers' Python AddedToken)."""

    def __init__(self, content: str, *, special: bool = False, lstrip: bool = False, rstrip: bool = False,
                 single_word: bool = False, normalized: bool | None = None, from_string: bool = False):
        self.content, self.special, self.lstrip, self.rstrip = content, special, lstrip, rstrip
        self.single_word, self.normalized = single_word, normalized
        self.from_string = from_string  # (transformers registers a token given as a string as special)

    def key(self):
        return (self.content, self.special, self.lstrip, self.rstrip, self.single_word, self.normalized)

    def added(self) -> AddedToken:
        normalized = (not self.special) if self.normalized is None else self.normalized
        return AddedToken(self.content, -1, special=self.special, lstrip=self.lstrip, rstrip=self.rstrip,
                          single_word=self.single_word, normalized=normalized)


_FLAGS = ("special", "lstrip", "rstrip", "single_word", "normalized")


def _token_from_dict(where: Fields, key: str, value: dict) -> _Token:
    unknown = sorted(k for k in value if k not in ("content", "__type", *_FLAGS))
    if unknown:
        where.fail(f"{key}: unknown token field {unknown[0]!r}")
    if not isinstance(value.get("content"), str):
        where.fail(f"{key}: expected a token object with a 'content' string, got {value!r:.60}")
    flags = {}
    for flag in _FLAGS:
        v = value.get(flag)
        if v is not None and not isinstance(v, bool):
            where.fail(f"{key}.{flag}: expected true or false, got {v!r:.40}")
        if v is not None:
            flags[flag] = v
    return _Token(value["content"], **flags)


def _token(where: Fields, key: str, value, *, typed_only: bool) -> _Token | None:
    """A token given in the config as a string or a serialized AddedToken ("__type": "AddedToken";
    transformers refuses another object where a token belongs, `typed_only`)."""
    if value is None:
        return None
    if isinstance(value, str):
        return _Token(value, from_string=True)
    if isinstance(value, dict) and (value.get("__type") == "AddedToken" or not typed_only):
        return _token_from_dict(where, key, value)
    where.fail(f"{key}: expected a token (a string or an AddedToken object), got {value!r:.60}")


def _registered_tokens(kwargs: dict, model_specific: dict, file_entries: list[AddedToken], cls: str | None,
                       config: Fields, padding: dict | None) -> tuple[list[AddedToken], dict[str, str]]:
    """The tokens transformers adds to the backend, in the order it adds them (the backend holds
    `file_entries` already unless the class `cls` rebuilt its pipeline), and its special_tokens_map
    (attribute -> content: the variables a chat template is rendered with)."""
    rebuilt = cls in _REBUILT_HERE
    class_defaults = _REBUILT_HERE.get(cls, {})
    decoder = kwargs.get("added_tokens_decoder")
    by_index: dict[int, _Token] = {}
    if decoder is not None:
        if not isinstance(decoder, dict):
            config.fail(f"added_tokens_decoder: expected an object, got {decoder!r:.40}")
        for index, value in decoder.items():
            if not (index.isdecimal() or (index[:1] == "-" and index[1:].isdecimal())) or len(index) > 12:
                config.fail(f"added_tokens_decoder: key {index!r:.40} is not a token id")
            if not isinstance(value, dict) or "__type" in value:
                config.fail(f"added_tokens_decoder.{index}: expected a token object, got {value!r:.60}")
            by_index[int(index)] = _token_from_dict(config, f"added_tokens_decoder.{index}", value)
    else:  # (legacy: the file's own tokens are registered again)
        for t in file_entries:
            by_index[t.id] = _Token(t.content, special=t.special, lstrip=t.lstrip, rstrip=t.rstrip,
                                    single_word=t.single_word, normalized=t.normalized)
    decoder_by_content = {t.content: t for t in by_index.values()}

    named: dict[str, _Token] = {}
    for attr in SPECIAL_ATTRIBUTES:
        value = kwargs[attr] if attr in kwargs else class_defaults.get(attr)
        if (attr == "pad_token" and attr not in kwargs and cls in (None, "Llama") and padding
                and isinstance(padding.get("pad_token"), str)):
            value = padding["pad_token"]  # (tokenizer.json's padding names the pad token unless the class does)
        token = _token(config, attr, value, typed_only=True)
        if token is not None:
            if attr in kwargs and token.content in decoder_by_content:
                token = decoder_by_content[token.content]  # (the decoder's flags for that content)
            named[attr] = token
    for key, value in model_specific.items():
        token = _token(config, key, value, typed_only=True)
        if token is not None:
            named[key] = token
    extra = kwargs.get("extra_special_tokens")
    extra_tokens: list[_Token] = []
    if isinstance(extra, list):
        extra_tokens = [_token(config, f"extra_special_tokens[{i}]", v, typed_only=True) for i, v in enumerate(extra)]
        extra_tokens = [t for t in extra_tokens if t is not None]
    elif extra is not None:
        config.fail(f"extra_special_tokens: expected a list or an object of tokens, got {extra!r:.60}")

    to_add = [by_index[i] for i in sorted(by_index)]
    present = {t.content for t in to_add} | ({t.content for t in file_entries} if not rebuilt else set())
    queued = {t.key() for t in to_add}
    for token in list(named.values()) + extra_tokens:
        if token.content not in present and token.key() not in queued:
            to_add.append(token)
            queued.add(token.key())
    named_contents = {t.content for t in named.values()}
    for token in to_add:
        if token.from_string or token.content in named_contents:
            token.special = True
    out = [t.added() for t in to_add]
    if cls == "Qwen2":
        # Qwen2Tokenizer registers every special token once more, as special
        contents = list(dict.fromkeys([t.content for t in named.values()] + [t.content for t in extra_tokens]))
        out += [AddedToken(c, -1, special=True, normalized=False) for c in contents]
    if cls == "Cohere":
        # CohereTokenizer's `_post_init` adds every named and extra token again, as special
        for t in list(named.values()) + extra_tokens:
            again = t.added()
            out.append(AddedToken(again.content, -1, special=True, lstrip=again.lstrip, rstrip=again.rstrip,
                                  single_word=again.single_word,
                                  normalized=False if t.from_string or t.normalized is None else t.normalized))
    return out, {attr: t.content for attr, t in named.items()}


def _install(tokenizer: Tokenizer, entries: list[AddedToken], data: dict) -> None:
    """Give the tokenizer the added tokens HF tokenizers ends with after `entries` were added in turn."""
    model = tokenizer.model
    normalizer = tokenizer.normalizer
    bad = first_surrogate([t.content for t in entries])
    if bad is not None:
        Fields({}, tokenizer.source.path).fail(surrogate_message(bad, "token"))
    resolved = resolve_hf_added_tokens(entries, model.token_to_id, model.vocab_size,
                                       normalizer.normalize_str if normalizer is not None else None)
    patterns = {False: resolved.raw_patterns, True: resolved.normalized_patterns}
    root = Fields(data, tokenizer.source.path)
    for normalized, pairs in patterns.items():
        _refuse_shared_match_string(root, pairs, normalized)
    tokenizer.added = AddedVocabulary(resolved.tokens, patterns=patterns)
    tokenizer.clear_cache()
