"""The languages tokviz speaks, with no Qt imports (the command line checks --lang before Qt starts)."""
from __future__ import annotations

ENGLISH = "en"
# Each language under its own name: the menu must be readable by someone who cannot read the other.
LANGUAGES = {ENGLISH: "English", "zh_CN": "简体中文"}


class UnknownLanguage(ValueError):
    """A language tokviz has no translation for."""


def check_language(language: str) -> str:
    """`language` in the spelling tokviz uses (zh-cn, zh_CN.UTF-8, zh-Hans and zh
    all give zh_CN), or UnknownLanguage."""
    wanted = language.strip().split(".")[0].replace("-", "_").lower()
    for code in LANGUAGES:
        if wanted == code.lower():
            return code
    for code in LANGUAGES:  # another region or script of a language tokviz speaks (en_GB, zh_Hans)
        if wanted and wanted.split("_")[0] == code.split("_")[0].lower():
            return code
    raise UnknownLanguage(f"tokviz has no translation for {language!r}; it speaks {', '.join(LANGUAGES)}")
