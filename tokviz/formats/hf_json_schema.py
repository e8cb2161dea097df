"""The field types HF tokenizers (serde) requires of a tokenizer.json, checked before reading it.

HF tokenizers refuses a file whose fields have the wrong JSON type, miss a required field, hold a
number out of its integer type's range, or (in plain structs: added tokens, truncation, padding,
a template's special tokens) repeat a key; tokviz refuses the same files, naming the field. The
tables below were measured on HF tokenizers 0.23.3 by changing one field at a time of real files and
of files HF tokenizers writes itself (for the components no real file here holds).
Components and fields not listed are checked by the readers in hf_json.py only.
"""
from __future__ import annotations

from pathlib import Path

from ..errors import TokvizError
from ._util import DuplicateKeys, IntegerAsFloat, _kind

U32 = (1 << 32) - 1
USIZE = (1 << 64) - 1

# field -> (kind, required). Kinds: "bool", "str", "u32", "usize", "list", "object"; a trailing
# "?" accepts null as well (an Option in HF).  Required fields may not be missing; the others may.
_ADDED_TOKEN = {"id": ("u32", True), "content": ("str", True), "single_word": ("bool", True),
                "lstrip": ("bool", True), "rstrip": ("bool", True), "normalized": ("bool", True),
                "special": ("bool", True)}
_TRUNCATION = {"max_length": ("usize", True), "stride": ("usize", True), "strategy": ("str", True),
               "direction": ("str", False)}
_PADDING = {"direction": ("str", True), "pad_to_multiple_of": ("usize?", False), "pad_id": ("u32", True),
            "pad_type_id": ("u32", True), "pad_token": ("str", True)}
_BYTE_LEVEL = {"add_prefix_space": ("bool", True), "trim_offsets": ("bool", True), "use_regex": ("bool", False)}
_REPLACE = {"pattern": ("object", True), "content": ("str", True)}
_METASPACE = {"replacement": ("char", True), "prepend_scheme": ("str", False), "split": ("bool?", False),
              "add_prefix_space": ("bool?", False), "str_rep": ("str?", False)}
_COMPONENTS = {
    "model.BPE": {"dropout": ("number?", False), "unk_token": ("str?", False), "continuing_subword_prefix": ("str?", False),
                  "end_of_word_suffix": ("str?", False), "fuse_unk": ("bool?", False), "byte_fallback": ("bool?", False),
                  "ignore_merges": ("bool?", False), "vocab": ("object", True), "merges": ("list", True)},
    "model.WordPiece": {"unk_token": ("str", True), "continuing_subword_prefix": ("str", True),
                        "max_input_chars_per_word": ("usize", True), "vocab": ("object", True)},
    "model.WordLevel": {"vocab": ("object", True), "unk_token": ("str", True)},
    "model.Unigram": {"unk_id": ("usize?", False), "vocab": ("list", True), "byte_fallback": ("bool", False)},
    "normalizer.BertNormalizer": {"clean_text": ("bool", True), "handle_chinese_chars": ("bool", True),
                                  "strip_accents": ("bool?", False), "lowercase": ("bool", True)},
    "normalizer.Sequence": {"normalizers": ("list", True)},
    "pre_tokenizer.ByteLevel": _BYTE_LEVEL,
    "pre_tokenizer.Split": {"pattern": ("object", True), "behavior": ("str", True), "invert": ("bool", True)},
    "pre_tokenizer.Sequence": {"pretokenizers": ("list", True)},
    "normalizer.Replace": _REPLACE,
    "normalizer.Prepend": {"prepend": ("str", True)},
    "normalizer.Strip": {"strip_left": ("bool", True), "strip_right": ("bool", True)},
    "normalizer.Precompiled": {"precompiled_charsmap": ("str", True)},
    "pre_tokenizer.Metaspace": _METASPACE,
    "pre_tokenizer.Punctuation": {"behavior": ("str", False)},
    "pre_tokenizer.Digits": {"individual_digits": ("bool", True)},
    "pre_tokenizer.CharDelimiterSplit": {"delimiter": ("char", True)},
    "post_processor.BertProcessing": {"sep": ("list", True), "cls": ("list", True)},
    "post_processor.RobertaProcessing": {"sep": ("list", True), "cls": ("list", True), "trim_offsets": ("bool", True),
                                         "add_prefix_space": ("bool", True)},
    "post_processor.ByteLevel": _BYTE_LEVEL,
    "post_processor.TemplateProcessing": {"single": ("list", True), "pair": ("list", True),
                                          "special_tokens": ("object", True)},
    "post_processor.Sequence": {"processors": ("list", True)},
    "decoder.ByteLevel": _BYTE_LEVEL,
    "decoder.WordPiece": {"prefix": ("str", True), "cleanup": ("bool", True)},
    "decoder.Metaspace": _METASPACE,
    "decoder.Replace": _REPLACE,
    "decoder.Strip": {"content": ("char", True), "start": ("usize", True), "stop": ("usize", True)},
    "decoder.BPEDecoder": {"suffix": ("str", True)},
    "decoder.CTC": {"pad_token": ("str", True), "word_delimiter_token": ("str", True), "cleanup": ("bool", True)},
    "decoder.Sequence": {"decoders": ("list", True)},
}
_TRUNCATION_STRATEGIES = ("LongestFirst", "OnlyFirst", "OnlySecond")
_DIRECTIONS = ("Left", "Right")


class _Checker:
    def __init__(self, path: Path | str):
        self.path = path

    def fail(self, where: str, message: str):
        raise TokvizError(f"{where}: {message} (HF tokenizers refuses it)", self.path)

    def value(self, where: str, value, kind: str) -> None:
        nullable = kind.endswith("?")
        kind = kind.rstrip("?")
        if value is None:
            if not nullable:
                self.fail(where, f"expected {_NAMES[kind]}, got null")
            return
        ok = {
            "bool": lambda v: type(v) is bool,
            "str": lambda v: type(v) is str,
            "char": lambda v: type(v) is str and len(v) == 1,
            "u32": lambda v: type(v) is int and 0 <= v <= U32,
            "usize": lambda v: type(v) is int and 0 <= v <= USIZE,
            "number": lambda v: type(v) in (int, float, IntegerAsFloat),
            "list": lambda v: type(v) is list,
            "object": lambda v: isinstance(v, dict),
        }[kind](value)
        if not ok:
            if kind in ("u32", "usize") and type(value) is int:
                self.fail(where, f"{value} is out of range ({'too large' if value > 0 else 'negative'}: "
                                 f"expected {_NAMES[kind]})")
            if kind in ("u32", "usize") and isinstance(value, IntegerAsFloat):
                self.fail(where, f"{value.literal} is out of range ({'too large' if value else '-0'}, which HF "
                                 f"tokenizers reads as a float: expected {_NAMES[kind]})")
            self.fail(where, f"expected {_NAMES[kind]}, got {_kind(value)}")

    def fields(self, where: str, obj, table: dict, *, plain_struct: bool, type_may_repeat: bool = False) -> None:
        """`obj` against `table`; a plain struct (not a tagged component) refuses repeated keys."""
        if not isinstance(obj, dict):
            self.fail(where, f"expected an object, got {_kind(obj)}")
        repeated = [k for k in getattr(obj, "duplicate_keys", ()) if not (k == "type" and type_may_repeat)]
        if plain_struct and repeated:
            self.fail(where, f"the key {repeated[0]!r} appears twice")
        # (as serde: the fields present, in the file's order, then the missing ones)
        for key in obj:
            if key in table:
                self.value(f"{where}.{key}" if where else key, obj[key], table[key][0])
        for key, (kind, required) in table.items():
            if required and key not in obj:
                self.fail(where, f"missing field {key!r}")

    def component(self, where: str, section: str, obj) -> None:
        if not isinstance(obj, dict):
            return  # (the reader names it)
        kind = obj.get("type")
        if section == "model" and ("type" in obj and kind is None or "type" in getattr(obj, "duplicate_keys", ())):
            self.fail(f"{where}.type", "expected the name of a model type")
        table = _COMPONENTS.get(f"{section}.{kind}")
        if kind == "RobertaProcessing":
            self.roberta(where, obj)
        if table is not None:
            # (HF refuses a repeated key in a post-processor; other components keep its last value)
            self.fields(where, obj, table, plain_struct=section == "post_processor",
                        type_may_repeat=kind == "TemplateProcessing")  # (measured: HF reads a template's tag apart)
        if kind == "Sequence":
            key = {"normalizer": "normalizers", "pre_tokenizer": "pretokenizers", "post_processor": "processors",
                   "decoder": "decoders"}[section]
            for i, sub in enumerate(obj.get(key) or []):
                self.component(f"{where}.{key}[{i}]", section, sub)
        pattern = obj.get("pattern")
        if kind in ("Split", "Replace") and isinstance(pattern, dict):
            if len(pattern) != 1:  # (a repeated key keeps its last value, as in HF)
                self.fail(f"{where}.pattern", "expected an object with the single key 'String' or 'Regex'")
        if kind == "Metaspace" and obj.get("add_prefix_space") is False and obj.get("prepend_scheme", "always") != "never":
            self.fail(f"{where}.add_prefix_space", "false contradicts prepend_scheme "
                                                   f"{obj.get('prepend_scheme', 'always (the default)')!r}")
        if section == "post_processor" and kind == "TemplateProcessing":
            self.template(where, obj)

    def roberta(self, where: str, obj) -> None:
        """A RobertaProcessing HF cannot read as one (a repeated key other than sep/cls, trim_offsets or
        add_prefix_space missing or not a bool) is read by HF as a BertProcessing: refused by name."""
        repeated = [k for k in getattr(obj, "duplicate_keys", ()) if k not in ("sep", "cls")]
        if repeated:
            problem, key = "appears twice", repeated[0]
        else:
            key = next((k for k in ("trim_offsets", "add_prefix_space") if type(obj.get(k)) is not bool), None)
            problem = f"expected bool, got {_kind(obj.get(key)) if key in obj else 'nothing'}" if key else None
        if problem:
            raise TokvizError(f"{where}.{key}: {problem} (HF tokenizers then reads the RobertaProcessing as a "
                              "BertProcessing, which tokviz does not follow)", self.path)

    def template(self, where: str, obj) -> None:
        specials = obj.get("special_tokens") or {}
        if isinstance(specials, DuplicateKeys):
            self.fail(f"{where}.special_tokens", f"the special token {specials.duplicate_keys[0]!r} appears twice")
        for key in ("single", "pair"):
            for i, piece in enumerate(obj.get(key) or []):
                at = f"{where}.{key}[{i}]"
                if (not isinstance(piece, dict) or isinstance(piece, DuplicateKeys) or len(piece) != 1
                        or next(iter(piece)) not in ("SpecialToken", "Sequence")):
                    self.fail(at, "a template piece must be {'SpecialToken': {...}} or {'Sequence': {...}}")
                name, body = next(iter(piece.items()))
                self.fields(f"{at}.{name}", body, {"id": ("str", True), "type_id": ("u32", True)}, plain_struct=True)
                if name == "Sequence" and body["id"] not in ("A", "B"):
                    self.fail(f"{at}.Sequence.id", f"expected 'A' or 'B', got {body['id']!r}")
                if name == "SpecialToken" and body["id"] not in specials:
                    raise TokvizError(f"{at}.SpecialToken.id: {body['id']!r} is not one of the template's special_tokens "
                                      "(HF tokenizers loads the file but fails when it adds special tokens)", self.path)
        single = obj.get("single") or []
        if not any(isinstance(p, dict) and "Sequence" in p for p in single):
            raise TokvizError(f"{where}.single: the template has no Sequence piece (HF tokenizers then drops the text "
                              "itself, even without special tokens)", self.path)
        for name, spec in specials.items():
            at = f"{where}.special_tokens.{name}"
            self.fields(at, spec, {"id": ("str", True), "ids": ("list", True), "tokens": ("list", True)}, plain_struct=True)
            for i, token_id in enumerate(spec["ids"]):
                self.value(f"{at}.ids[{i}]", token_id, "u32")
            for i, token in enumerate(spec["tokens"]):
                self.value(f"{at}.tokens[{i}]", token, "str")


_NAMES = {"bool": "bool", "str": "str", "char": "a string of one character", "u32": "int (0 to 2**32-1)",
          "usize": "int (0 to 2**64-1)", "number": "a number", "list": "list", "object": "dict"}


def check_serde_shapes(data, path: Path | str) -> None:
    """Refuse, as HF tokenizers does, a tokenizer.json whose fields have types HF cannot read."""
    if not isinstance(data, dict):
        return  # (the reader names it)
    check = _Checker(path)
    if isinstance(data, DuplicateKeys):
        # (HF reads every value of a repeated top-level key, refusing the file when any one of them
        # is malformed; only the last value is kept here, so the file is refused either way)
        check.fail(data.duplicate_keys[0], "this top-level key appears twice; tokviz reads each key once")
    if "added_tokens" in data and type(data["added_tokens"]) is not list:
        check.value("added_tokens", data["added_tokens"], "list")
    if "version" in data and data["version"] != "1.0":
        check.value("version", data["version"], "str")
        check.fail("version", f"unknown tokenizer.json version {data['version']!r} (expected '1.0')")
    if data.get("truncation") is not None:
        truncation = data["truncation"]
        check.fields("truncation", truncation, _TRUNCATION, plain_struct=True)
        if truncation["strategy"] not in _TRUNCATION_STRATEGIES:
            check.fail("truncation.strategy", f"expected one of {', '.join(_TRUNCATION_STRATEGIES)}, got {truncation['strategy']!r}")
        if truncation.get("direction", "Right") not in _DIRECTIONS:
            check.fail("truncation.direction", f"expected Left or Right, got {truncation['direction']!r}")
    if data.get("padding") is not None:
        padding = data["padding"]
        check.fields("padding", padding, _PADDING, plain_struct=True)
        strategy = padding.get("strategy")
        if strategy != "BatchLongest":
            if not (isinstance(strategy, dict) and list(strategy) == ["Fixed"]) or isinstance(strategy, DuplicateKeys):
                check.fail("padding.strategy", "expected 'BatchLongest' or {'Fixed': length}")
            check.value("padding.strategy.Fixed", strategy["Fixed"], "usize")
        if padding["direction"] not in _DIRECTIONS:
            check.fail("padding.direction", f"expected Left or Right, got {padding['direction']!r}")
    added = data.get("added_tokens")
    if isinstance(added, list):
        for i, token in enumerate(added):
            check.fields(f"added_tokens[{i}]", token, _ADDED_TOKEN, plain_struct=True)
    for section in ("normalizer", "pre_tokenizer", "post_processor", "decoder", "model"):
        if data.get(section) is not None:
            check.component(section, section, data[section])
    model = data.get("model")
    if isinstance(model, dict) and isinstance(model.get("vocab"), dict):
        for token, token_id in model["vocab"].items():
            if type(token_id) is int and token_id > U32:
                check.fail(f"model.vocab[{token!r}]", f"{token_id} is out of range (too large: expected {_NAMES['u32']})")
