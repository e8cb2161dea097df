"""Chat templates: found beside a tokenizer as transformers finds them, rendered as transformers'
`apply_chat_template` renders them (the real templates of tests/data/chat_templates, the bundled
Qwen2.5 one, and small templates for each feature), tokenized to the same ids, and bounded."""
from __future__ import annotations

import json
import lzma
import shutil
import time
from pathlib import Path

import pytest

import tokviz
from tokviz.cli import main as cli_main
from tokviz.core import chat
from tokviz.errors import TokvizError

from _shared import bundled_qwen_folder

transformers = pytest.importorskip("transformers")
transformers.logging.set_verbosity_error()

DATA = Path(__file__).parent / "data"
TEMPLATES = sorted((DATA / "chat_templates").glob("*.jinja"))

TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "The weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
CONVERSATIONS = {
    "multi-turn": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi, café 中文 😀"},
                   {"role": "assistant", "content": "Hello."}, {"role": "user", "content": "And now?"}],
    "system-less": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello."},
                    {"role": "user", "content": "Bye"}],
    "tools": [{"role": "user", "content": "Weather in Paris?"},
              {"role": "assistant", "content": "", "tool_calls": [
                  {"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]},
              {"role": "tool", "name": "get_weather", "content": "18 C"},
              {"role": "assistant", "content": "It is 18 C."}],
    "parts": [{"role": "user", "content": [{"type": "text", "text": "Hello in parts"}]}],
    "reasoning": [{"role": "user", "content": "2+2?"},
                  {"role": "assistant", "reasoning_content": "Four.", "content": "4"},
                  {"role": "user", "content": "3+3?"}],
    "nulls": [{"role": "user", "content": "Hi", "name": None}, {"role": "assistant", "content": "Hey", "tool_calls": None}],
}


@pytest.fixture(scope="module")
def qwen_folder(tmp_path_factory) -> Path:
    """The bundled Qwen2.5 tokenizer (tokenizer.json and tokenizer_config.json with its template)."""
    return bundled_qwen_folder(tmp_path_factory.mktemp("qwen2.5"))


@pytest.fixture(scope="module")
def pair(qwen_folder):
    return tokviz.load(qwen_folder), transformers.AutoTokenizer.from_pretrained(qwen_folder)


def reference(ref, messages, template=None, **kwargs):
    """transformers' rendered text, or the exception it raised."""
    try:
        return ref.apply_chat_template(messages, chat_template=template, tokenize=False, **kwargs)
    except Exception as exc:  # noqa: BLE001 (any error of the template)
        return exc


def ours(tok, messages, template, tools=None, add_generation_prompt=False, **extra):
    try:
        return chat.render(template, chat.Conversation(messages, tools), add_generation_prompt=add_generation_prompt,
                           variables={**tok.chat_templates.variables, **extra})
    except chat.ChatTemplateError as exc:
        return exc


def assert_same(expected, got):
    if isinstance(expected, Exception):
        assert isinstance(got, chat.ChatTemplateError), f"transformers raised {expected!r}; tokviz gave {got!r}"
    else:
        assert not isinstance(got, Exception), f"tokviz raised {got}; transformers gave {expected!r}"
        assert got == expected


@pytest.mark.parametrize("path", TEMPLATES, ids=[p.stem for p in TEMPLATES])
@pytest.mark.parametrize("name", CONVERSATIONS)
@pytest.mark.parametrize("add_generation_prompt", [False, True])
def test_real_templates_render_as_transformers(pair, path, name, add_generation_prompt):
    tok, ref = pair
    source = path.read_text(encoding="utf-8")
    messages = CONVERSATIONS[name]
    tools = TOOLS if name == "tools" else None
    expected = reference(ref, messages, source, tools=tools, add_generation_prompt=add_generation_prompt)
    assert_same(expected, ours(tok, messages, source, tools, add_generation_prompt))


@pytest.mark.parametrize("enable_thinking", [False, True])
def test_template_variables_from_the_caller(pair, enable_thinking):
    tok, ref = pair
    source = (DATA / "chat_templates" / "Qwen-Qwen3-0.6B.jinja").read_text(encoding="utf-8")
    messages = CONVERSATIONS["reasoning"]
    expected = reference(ref, messages, source, add_generation_prompt=True, enable_thinking=enable_thinking)
    assert_same(expected, ours(tok, messages, source, None, True, enable_thinking=enable_thinking))


@pytest.mark.parametrize("name", CONVERSATIONS)
@pytest.mark.parametrize("add_generation_prompt", [False, True])
def test_own_template_text_ids_and_counts(pair, name, add_generation_prompt):
    tok, ref = pair
    messages = CONVERSATIONS[name]
    tools = TOOLS if name == "tools" else None
    template = tok.chat_templates.pick(tools=tools)
    assert template.source == ref.chat_template
    expected_text = reference(ref, messages, tools=tools, add_generation_prompt=add_generation_prompt)
    if isinstance(expected_text, Exception):  # (Qwen2.5's template takes no content parts)
        with pytest.raises(chat.ChatTemplateError):
            chat.count(tok, template, chat.Conversation(messages, tools), add_generation_prompt=add_generation_prompt)
        return
    result = chat.count(tok, template, chat.Conversation(messages, tools), add_generation_prompt=add_generation_prompt,
                        variables=tok.chat_templates.variables)
    assert result.text == expected_text
    expected_ids = ref.apply_chat_template(messages, tools=tools, tokenize=True, return_dict=False,
                                           add_generation_prompt=add_generation_prompt)
    assert result.ids == list(expected_ids)
    assert None not in result.per_message
    assert sum(result.per_message) + result.prompt == len(result.ids)
    for k in range(1, len(messages) + 1):  # each count is what the k-th message adds
        before = ref.apply_chat_template(messages[:k - 1], tools=tools, tokenize=True, return_dict=False) if k > 1 else []
        upto = ref.apply_chat_template(messages[:k], tools=tools, tokenize=True, return_dict=False)
        assert result.per_message[k - 1] == len(upto) - len(before)
    assert (result.prompt > 0) == add_generation_prompt


@pytest.mark.shared
@pytest.mark.first_cases(1)
@pytest.mark.parametrize("name", ["qwen2.5", "llama3"])
def test_shared_tokenizers_templates(name):
    """Every tokenizer in ../shared that ships a chat template: text and ids as transformers'."""
    from _shared import TOKENIZERS, need

    folder = need(TOKENIZERS / name)
    tok, ref = tokviz.load(folder), transformers.AutoTokenizer.from_pretrained(folder)
    for key in ("multi-turn", "system-less", "tools", "reasoning"):
        messages = CONVERSATIONS[key]
        tools = TOOLS if key == "tools" else None
        for agp in (False, True):
            expected = reference(ref, messages, tools=tools, add_generation_prompt=agp)
            template = tok.chat_templates.pick(tools=tools)
            got = ours(tok, messages, template, tools, agp)
            assert_same(expected, got)
            if not isinstance(expected, Exception):
                ids = ref.apply_chat_template(messages, tools=tools, tokenize=True, return_dict=False,
                                              add_generation_prompt=agp)
                assert tok.encode_ids(got) == list(ids)


FEATURES = {
    "loop controls": "{% for m in messages %}{% if m.role == 'system' %}{% continue %}{% endif %}[{{ m.content }}]"
                     "{% if loop.index > 2 %}{% break %}{% endif %}{% endfor %}",
    "generation blocks": "{% for m in messages %}{% if m.role == 'assistant' %}{% generation %}<a>{{ m.content }}"
                         "</a>{% endgeneration %}{% else %}{{ m.content }}{% endif %}{% endfor %}",
    "tojson": "{{ messages | tojson }}|{{ messages[1] | tojson(indent=2, sort_keys=true) }}|"
              "{{ {'b': 'é', 'a': [1, 2]} | tojson(separators=(',', ':')) }}",
    "namespace and dict": "{% set ns = namespace(n=0, last='') %}{% for m in messages %}{% set ns.n = ns.n + 1 %}"
                          "{% set ns.last = m.role %}{% endfor %}{{ ns.n }} {{ ns.last }} {{ dict(a=1, b=[2]) | tojson }}",
    "trim and lstrip blocks": "  {% for m in messages %}\n    {% if m.role == 'user' %}\n  U: {{ m.content }}\n"
                              "    {% endif %}\n  {% endfor %}\n{{- '\\n' if add_generation_prompt }}",
    "special tokens": "{{ bos_token }}|{{ eos_token }}|{{ pad_token }}|{{ unk_token }}|{{ mask_token is defined }}",
    "strftime_now": "{{ strftime_now('%Y') }}",
    "reasoning names": "{% for m in messages %}{{ m.thinking }}/{{ m.reasoning_content }}/{{ m.reasoning }};{% endfor %}",
    "nulls dropped": "{% for m in messages %}{{ m.name is defined }} {{ m.tool_calls is defined }};{% endfor %}",
    "raise_exception": "{% if messages[0].role != 'system' %}{{ raise_exception('start with a system message') }}"
                       "{% endif %}ok",
    "tools and documents": "{{ tools | length if tools else 'no tools' }} {{ documents is none }}",
}


@pytest.mark.parametrize("feature", FEATURES)
@pytest.mark.parametrize("name", ["multi-turn", "reasoning", "nulls", "system-less"])
def test_template_features_render_as_transformers(pair, feature, name):
    tok, ref = pair
    messages = CONVERSATIONS[name]
    for agp in (False, True):
        assert_same(reference(ref, messages, FEATURES[feature], add_generation_prompt=agp),
                    ours(tok, messages, FEATURES[feature], None, agp))


def test_raise_exception_message(pair):
    tok, _ = pair
    err = ours(tok, CONVERSATIONS["system-less"], FEATURES["raise_exception"])
    assert isinstance(err, chat.ChatTemplateError) and "start with a system message" in str(err)


# ---- limits ------------------------------------------------------------------------------------

@pytest.mark.parametrize("source", [
    "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
    "{% macro f(n) %}{% for i in range(100000) %}{% endfor %}{{ f(n) }}{% endmacro %}{{ f(1) }}",
])
def test_a_template_that_runs_too_long_is_stopped(source):
    started = time.monotonic()
    with pytest.raises(chat.ChatTemplateError, match="ran for more than 0.3 s|recursed too deeply"):
        chat.render(source, chat.Conversation([]), time_limit=0.3)
    assert time.monotonic() - started < 3


@pytest.mark.parametrize("source", [
    "{{ 'x' * 1000000000 }}",
    "{{ [0] * 1000000000 }}",
    "{{ 'x'.ljust(1000000000) }}",
    "{{ 'x' | center(1000000000) }}",
    "{{ 2 ** 100000000 }}",
    "{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}",
])
def test_a_template_that_makes_too_much_is_stopped(source):
    with pytest.raises(chat.ChatTemplateError, match="limit of 1,000,000 characters|limit of 4,300 digits"):
        chat.render(source, chat.Conversation([]), max_chars=1_000_000)


@pytest.mark.parametrize("source", [
    "{{ messages.__class__.__mro__[1].__subclasses__() }}",
    "{{ ''.__class__.__base__ }}",
    "{{ cycler.__init__.__globals__ }}",
    "{% set x = messages.append({'role': 'user'}) %}{{ messages | length }}",
    "{{ namespace(_hidden=1) }}",
])
def test_internals_and_changes_are_refused(source):
    with pytest.raises(chat.ChatTemplateError):
        chat.render(source, chat.Conversation([{"role": "user", "content": "x"}]))


def test_a_template_that_does_not_compile_names_its_file(tmp_path):
    template = chat.ChatTemplate("default", "{% for m in messages %}{{ m }}", str(tmp_path / "chat_template.jinja"))
    with pytest.raises(chat.ChatTemplateError, match=r"chat_template\.jinja: the chat template does not compile"):
        chat.render(template, chat.Conversation([]))


# ---- finding the templates beside a tokenizer --------------------------------------------------

def folder_with(qwen_folder: Path, tmp_path: Path, config_template=..., files: dict[str, str] | None = None) -> Path:
    folder = tmp_path / "tok"
    folder.mkdir(parents=True)
    shutil.copy(qwen_folder / "tokenizer.json", folder / "tokenizer.json")
    config = json.loads((qwen_folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    if config_template is not ...:
        config["chat_template"] = config_template
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    for name, text in (files or {}).items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def their_templates(folder: Path) -> dict[str, str]:
    found = transformers.AutoTokenizer.from_pretrained(folder).chat_template
    return found if isinstance(found, dict) else {"default": found}


def our_templates(folder: Path) -> dict[str, str]:
    return {name: t.source for name, t in tokviz.load(folder).chat_templates.templates.items()}


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("config_template, files", [
    ("{{ 'from the config' }}", {}),
    ("{{ 'from the config' }}", {"chat_template.jinja": "{{ 'from the file' }}"}),
    ("{{ 'config' }}", {"chat_template.jinja": "{{ 'file' }}", "additional_chat_templates/tool_use.jinja": "{{ 'tools' }}"}),
    ([{"name": "default", "template": "{{ 'd' }}"}, {"name": "rag", "template": "{{ 'r' }}"}], {}),
    (None, {"additional_chat_templates/a.jinja": "{{ 'a' }}", "additional_chat_templates/b.jinja": "{{ 'b' }}"}),
])
def test_templates_found_as_transformers_finds_them(qwen_folder, tmp_path, config_template, files):
    folder = folder_with(qwen_folder, tmp_path, config_template, files)
    assert our_templates(folder) == their_templates(folder)


def test_pick_follows_transformers(qwen_folder, tmp_path):
    folder = folder_with(qwen_folder, tmp_path, None, {"chat_template.jinja": "{{ 'file' }}",
                                                       "additional_chat_templates/tool_use.jinja": "{{ 'tools' }}"})
    templates = tokviz.load(folder).chat_templates
    assert templates.names() == ["default", "tool_use"]
    assert templates.pick().name == "default"
    assert templates.pick(tools=TOOLS).name == "tool_use"
    assert templates.pick("tool_use").name == "tool_use"
    with pytest.raises(chat.ChatTemplateError, match="no chat template named 'rag'"):
        templates.pick("rag")
    several = folder_with(qwen_folder, tmp_path / "b", [{"name": "a", "template": "x"}, {"name": "b", "template": "y"}])
    with pytest.raises(chat.ChatTemplateError, match="none is the default: name one of a, b"):
        tokviz.load(several).chat_templates.pick()


def test_processor_chat_template_json(qwen_folder, tmp_path):
    folder = folder_with(qwen_folder, tmp_path, None, {"chat_template.json": json.dumps({"chat_template": "{{ 'p' }}"})})
    assert our_templates(folder) == {"default": "{{ 'p' }}"}


@pytest.mark.parametrize("config_template, files, problem", [
    (5, {}, r"tokenizer_config\.json: chat_template: expected a string or a list"),
    ([{"name": "a"}], {}, r"tokenizer_config\.json: chat_template\[0\]"),
    (None, {"chat_template.json": "{not json"}, r"chat_template\.json: not JSON"),
])
def test_a_broken_template_does_not_stop_the_tokenizer(qwen_folder, tmp_path, config_template, files, problem):
    folder = folder_with(qwen_folder, tmp_path, config_template, files)
    tok = tokviz.load(folder)
    assert tok.encode_ids("hello") == [14990]
    assert not tok.chat_templates
    with pytest.raises(chat.ChatTemplateError, match=problem):
        tok.chat_templates.pick()


def test_a_template_file_that_is_not_utf8(qwen_folder, tmp_path):
    folder = folder_with(qwen_folder, tmp_path)
    (folder / "chat_template.jinja").write_bytes(b"{{ '\xff' }}")
    with pytest.raises(chat.ChatTemplateError, match=r"chat_template\.jinja: not UTF-8"):
        tokviz.load(folder).chat_templates.pick()


def test_formats_without_templates(tmp_path, qwen_folder):
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"chat_template": "{{ 'x' }}"}), encoding="utf-8")
    ranks = tmp_path / "cl100k_base.tiktoken"
    ranks.write_bytes(lzma.decompress((DATA / "real" / "cl100k_base.tiktoken.xz").read_bytes()))
    assert not tokviz.load(ranks).chat_templates  # a tiktoken file is not what transformers reads from the folder
    assert tokviz.load(qwen_folder / "tokenizer.json").chat_templates.names() == ["default"]


# ---- conversations -----------------------------------------------------------------------------

@pytest.mark.parametrize("data, message", [
    ({"msgs": []}, 'expected a list of messages or an object with "messages"'),
    ("hello", "messages: expected a list, got str"),
    ([["user", "hi"]], "message 1: expected an object, got list"),
    ([{"content": "hi"}], 'message 1: "role" must be a string'),
    ([{"role": "user", "content": 5}], 'message 1: "content" must be a string or a list of parts'),
    ({"messages": [], "tools": {"name": "x"}}, '"tools": expected a list of objects'),
])
def test_bad_conversations_are_refused(data, message):
    with pytest.raises(TokvizError, match=message):
        chat.conversation_from_json(data, "conv.json")


def test_conversation_round_trip(tmp_path):
    conversation = chat.Conversation(CONVERSATIONS["tools"], TOOLS)
    path = tmp_path / "conv.json"
    path.write_text(json.dumps(conversation.to_json()), encoding="utf-8")
    again = chat.read_conversation(path)
    assert (again.messages, again.tools, again.documents) == (conversation.messages, TOOLS, None)


# ---- the command line --------------------------------------------------------------------------

def test_cli_chat_json(pair, qwen_folder, tmp_path, capsys):
    _, ref = pair
    path = tmp_path / "conv.json"
    path.write_text(json.dumps(CONVERSATIONS["multi-turn"]), encoding="utf-8")
    assert cli_main(["chat", "-t", str(qwen_folder), str(path), "--add-generation-prompt", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    messages = CONVERSATIONS["multi-turn"]
    assert out["text"] == ref.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    assert out["ids"] == list(ref.apply_chat_template(messages, tokenize=True, return_dict=False,
                                                      add_generation_prompt=True))
    assert out["count"] == len(out["ids"]) == sum(out["per_message"]) + out["generation_prompt"]


def test_cli_chat_text_and_vars(qwen_folder, tmp_path, capsys):
    folder = folder_with(qwen_folder, tmp_path, ..., {
        "chat_template.jinja": (DATA / "chat_templates" / "Qwen-Qwen3-0.6B.jinja").read_text(encoding="utf-8")})
    path = tmp_path / "conv.json"
    path.write_text(json.dumps({"messages": CONVERSATIONS["reasoning"]}), encoding="utf-8")
    ref = transformers.AutoTokenizer.from_pretrained(folder)
    for flag in (False, True):
        assert cli_main(["chat", "-t", str(folder), str(path), "--add-generation-prompt",
                         "--var", f"enable_thinking={json.dumps(flag)}"]) == 0
        captured = capsys.readouterr()
        assert captured.out == ref.apply_chat_template(CONVERSATIONS["reasoning"], tokenize=False,
                                                       add_generation_prompt=True, enable_thinking=flag)
        assert "total" in captured.err and "prompt" in captured.err


def test_cli_chat_errors(qwen_folder, tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("[{", encoding="utf-8")
    assert cli_main(["chat", "-t", str(qwen_folder), str(bad)]) == 2
    assert "bad.json: not JSON" in capsys.readouterr().err
    good = tmp_path / "conv.json"
    good.write_text(json.dumps(CONVERSATIONS["parts"]), encoding="utf-8")
    bert = tmp_path / "bert"
    bert.mkdir()
    (bert / "vocab.txt").write_bytes(lzma.decompress((DATA / "real" / "bert-minilm" / "vocab.txt.xz").read_bytes()))
    assert cli_main(["chat", "-t", str(bert), str(good)]) == 2
    assert "has no chat template" in capsys.readouterr().err
    assert cli_main(["chat", "-t", str(qwen_folder), str(good), "--template", "rag"]) == 2
    assert "no chat template named 'rag'" in capsys.readouterr().err


def test_a_render_is_cancelled_while_it_runs():
    from tokviz.errors import Cancelled

    asked = []

    def cancelled():
        asked.append(1)
        return len(asked) > 3

    started = time.monotonic()
    with pytest.raises(Cancelled):
        chat.render("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
                    chat.Conversation([]), cancelled=cancelled)
    assert time.monotonic() - started < 3
