"""A chat template is code from a downloaded file: every way it can grow a value ends in one line
that names the template file and what was too big, and no render holds more than about 100 MB
(the worker's peak resident size above where the render started, and, for the checks made before
each operation, the peak traced memory of a render in this process)."""
from __future__ import annotations

import json
import os
import threading
import time
import tracemalloc
from pathlib import Path

import pytest

from tokviz.cli import main as cli_main
from tokviz.core import chat, chat_sandbox

from _shared import bundled_qwen_folder

ORIGIN = "/models/hostile/chat_template.jinja"
HELD_AT_MOST = 110 << 20  # bytes: the 100 MiB ceiling plus the pages of the render's own code
CONVERSATION = chat.Conversation([{"role": "user", "content": "hi"}])

NS = "{% set ns = namespace(s='x', l=[], d={}, n=2 ** 64) %}"
BIG = "{% set big = 'x' * 1000000 %}"

# (id, template, what the one-line error says)
GROWTH = [
    ("plus-doubling", NS + "{% for i in range(40) %}{% set ns.s = ns.s + ns.s %}{% endfor %}{{ ns.s }}",
     "a `+` value of 2,097,152 characters"),
    ("join-doubling", NS + "{% for i in range(40) %}{% set ns.s = [ns.s, ns.s]|join('') %}{% endfor %}{{ ns.s }}",
     "a joined string of more than"),
    ("tilde-doubling", NS + "{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}",
     "a `~` text of more than"),
    ("list-plus-doubling", NS + "{% set ns.l = [1] %}{% for i in range(40) %}{% set ns.l = ns.l + ns.l %}{% endfor %}",
     "a `+` value of 2,097,152 characters"),
    ("format-filter-width", "{{ '%1500000000s'|format('x') }}", "a formatted string of more than"),
    ("percent-width", "{{ '%1500000000s' % 'x' }}", "a `%` formatted string of more than"),
    ("percent-star-width", "{{ '%*s' % (1500000000, 'x') }}", "a `%` formatted string of more than"),
    ("percent-precision", "{{ '%.1500000000f' % 1.5 }}", "a `%` formatted string of more than"),
    ("percent-many-fields", BIG + "{{ ('%s' * 1000) % ((big,) * 1000) }}", "a `%` formatted string of more than"),
    ("percent-mapping-fields", BIG + "{{ ('%(a)s' * 1000) % {'a': big} }}", "a `%` formatted string of more than"),
    ("str-format-width", "{{ '{:>1500000000}'.format('x') }}", "a formatted string of more than"),
    ("str-format-nested-width", "{{ '{:{w}}'.format('x', w=1500000000) }}", "a formatted string of more than"),
    ("str-format-many-fields", BIG + "{{ ('{0}' * 1000).format(big) }}", "a formatted string of more than"),
    ("str-format-map", BIG + "{{ ('{a}' * 1000).format_map({'a': big}) }}", "a formatted string of more than"),
    ("str-format-repr", BIG + "{{ '{0!r}'.format([big] * 1000) }}", "a repr of more than"),
    ("repeat-string", "{{ 'x' * 1500000000 }}", "1 x 1,500,000,000 items"),
    ("repeat-list", "{{ [0] * 1500000000 }}", "1 x 1,500,000,000 items"),
    ("repeat-bytes", "{{ 'x'.encode() * 1500000000 }}", "1 x 1,500,000,000 items"),
    ("replace-filter", BIG + "{{ big|replace('x', 'yy') }}{{ big|replace('x', 'y' * 1000) }}", "a replaced string of"),
    ("replace-method-empty", BIG + "{{ big.replace('', 'y' * 10) }}", "a replaced string of"),
    ("center-filter", "{{ 'x'|center(1500000000) }}", "center with a width of 1,500,000,000 characters"),
    ("center-method", "{{ 'x'.center(1999999) ~ 'x'.center(2000001) }}", "center() with a width of 2,000,001 characters"),
    ("ljust", "{{ 'x'.ljust(1500000000) }}", "ljust() with a width of 1,500,000,000 characters"),
    ("rjust", "{{ 'x'.rjust(2000001) }}", "rjust() with a width of 2,000,001 characters"),
    ("zfill", "{{ '1'.zfill(2000001) }}", "zfill() with a width of 2,000,001 characters"),
    ("expandtabs", "{{ ('\\t' * 1000).expandtabs(100000) }}", "an expandtabs string of 100,001,000 characters"),
    ("indent-filter", "{{ ('\\n' * 1000)|indent(100000) }}", "an indented string of"),
    ("indent-filter-string", BIG + "{{ ('\\n' * 1000)|indent(big, first=true) }}", "an indented string of"),
    ("wordwrap-wrapstring", "{{ ('a ' * 100000)|wordwrap(1, wrapstring='x' * 1000) }}", "a wrapped string of"),
    ("urlize-target", "{{ ('a.com ' * 100000)|urlize(target='t' * 1000) }}", "an urlized string of"),
    ("tojson-indent", "{{ (range(1000)|list)|tojson(indent=100000) }}", "JSON of more than"),
    ("tojson-indent-string", BIG + "{{ (range(1000)|list)|tojson(indent=big) }}", "JSON of more than"),
    ("tojson-separators", BIG + "{{ (range(1000)|list)|tojson(separators=(big, ':')) }}", "JSON of more than"),
    ("tojson-shared-items", BIG + "{{ ([big] * 1000)|tojson }}", "JSON of more than"),
    ("string-filter", BIG + "{{ ([big] * 1000)|string }}", "a text of more than"),
    ("pprint-filter", BIG + "{{ ([big] * 1000)|pprint }}", "a text of more than"),
    ("output-of-a-list", BIG + "{{ [big] * 1000 }}", "an output of more than"),
    ("output-of-a-namespace", BIG + NS + "{% set ns.l = [big] * 1000 %}{{ ns }}", "an output of more than"),
    ("join-method", BIG + "{{ ''.join([big] * 1000) }}", "a joined string of 1,000,000,000 characters"),
    ("join-filter-attribute", BIG + "{{ ([{'a': big}] * 1000)|join(attribute='a') }}", "a joined string of more than"),
    ("join-filter-separator", BIG + "{{ ('x' * 1000)|join(big) }}", "a joined string of more than"),
    ("translate", BIG + "{{ big.translate({120: 'yyy'}) }}", "a translated string of 3,000,000 characters"),
    ("batch-fill", "{{ [1]|batch(1500000000, 'x')|list }}", "batch() with 1,500,000,000 items a batch"),
    ("slice-count", "{{ [1]|slice(1500000000)|list }}", "slice() into 1,500,000,000 slices"),
    ("sum-of-lists", "{{ ([[0] * 1000000] * 1000)|sum(start=[]) }}", "a sum of 1,000,000,000 items"),
    ("lipsum", "{{ lipsum(1000000) }}", "lorem ipsum of"),
    ("range", "{% for i in range(1500000000) %}{% endfor %}", "Range too big"),
    ("number-product", NS + "{% for i in range(40) %}{% set ns.n = ns.n * ns.n %}{% endfor %}", "limit of 4,300 digits"),
    ("number-power", "{{ 7 ** 100000000 }}", "a number of about 84,509,805 digits"),
    ("upper-growth", "{{ ('\ufb03' * 1000000)|upper }}", "a string of 3,000,000 characters"),
    ("escape-growth", "{{ ('&' * 1000000)|escape }}", "a string of 5,000,000 characters"),
    ("encode-growth", "{{ ('x' * 1000000).encode('utf-32') }}", "a string of 4,000,004 characters"),
    ("set-block", BIG + "{% set out %}{% for i in range(1000) %}{{ big }}{% endfor %}{% endset %}",
     "a block's output of more than"),
    ("macro-output", BIG + "{% macro m() %}{% for i in range(1000) %}{{ big }}{% endfor %}{% endmacro %}{% set x = m() %}",
     "a block's output of more than"),
    ("filter-block", BIG + "{% filter upper %}{% for i in range(1000) %}{{ big }}{% endfor %}{% endfilter %}",
     "a block's output of more than"),
    ("call-block", BIG + "{% macro m() %}{{ caller() }}{% endmacro %}{% call m() %}{% for i in range(1000) %}{{ big }}"
     "{% endfor %}{% endcall %}", "a block's output of more than"),
    ("to-bytes", "{{ (1).to_bytes(1500000000, 'big') }}", "to_bytes() with 1,500,000,000 bytes"),
    ("rendered-text", BIG + "{% for i in range(1000) %}{{ big }}{% endfor %}", "a rendered text of more than the limit"),
    ("dict-from-keys", "{{ dict.fromkeys('x' * 1000000)|length }}{{ (dict(a=1)|list) * 2000001 }}",
     "1 x 2,000,001 items"),
    ("list-append", NS + "{% for i in range(40) %}{% set _ = ns.l.append(ns.l) %}{% endfor %}",
     "access to attribute 'append' of 'list' object is unsafe"),
    ("list-extend", NS + "{% set _ = ns.l.extend([1]) %}", "access to attribute 'extend' of 'list' object is unsafe"),
]

# What the checks of each operation let through, stopped by the worker's memory ceiling: many
# large values kept at once.
KEPT = [
    ("namespace-list-of-new-strings", NS + BIG + "{% for i in range(100000) %}{% set ns.l = ns.l + [big ~ i] %}"
     "{% endfor %}{{ ns.l|length }}"),
    ("namespace-dict-of-new-strings", NS + BIG + "{% for i in range(100000) %}"
     "{% set ns.d = dict(ns.d, **{('k' ~ i): big ~ i}) %}{% endfor %}{{ ns.d|length }}"),
    ("macro-recursion-keeping-strings", BIG + "{% macro m(n, s) %}{% if n %}{{ m(n - 1, big ~ n)|length }}{% endif %}"
     "{% endmacro %}{{ m(400, '') }}"),
]


def render(source: str, **kwargs) -> str:
    return chat.render(chat.ChatTemplate("default", source, ORIGIN), CONVERSATION, **kwargs)


def assert_one_line_refusal(source: str, says: str) -> str:
    with pytest.raises(chat.ChatTemplateError) as info:
        render(source)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(ORIGIN + ": the chat template "), message
    assert says in message, message
    peak = chat_sandbox.last_peak()
    if peak is not None:  # (Linux: the worker's peak resident size above where the render started)
        assert peak < HELD_AT_MOST, f"{peak / 2**20:.0f} MiB"
    return message


@pytest.mark.parametrize("source, says", [case[1:] for case in GROWTH], ids=[case[0] for case in GROWTH])
def test_each_way_of_growing_a_value_ends_in_one_line(source, says):
    assert_one_line_refusal(source, says)


@pytest.mark.parametrize("source, says", [case[1:] for case in GROWTH], ids=[case[0] for case in GROWTH])
def test_each_way_is_refused_before_the_value_is_made(source, says):
    """In this process, without the worker's ceiling (a frozen app renders so): the checks alone keep
    the traced peak small."""
    context = {"messages": chat._template_messages(CONVERSATION.messages), "tools": None, "documents": None,
               "add_generation_prompt": False}
    tracemalloc.start()
    try:  # (a ceiling on this process too, so that a check that fails cannot take the machine's memory)
        with chat_sandbox._memory_ceiling(1 << 30), pytest.raises(chat_sandbox.RenderFailed) as info:
            chat_sandbox.render_here(source, context, chat.TIME_LIMIT, chat.MAX_CHARS)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert info.value.kind in ("limit", "raised", "failed"), info.value.kind
    assert says in info.value.message
    assert peak < 40 << 20, f"{peak / 2**20:.0f} MiB traced"


@pytest.mark.parametrize("source", [case[1] for case in KEPT], ids=[case[0] for case in KEPT])
def test_memory_ceiling_stops_what_the_checks_let_through(source):
    if not os.path.exists("/proc/self/status"):
        pytest.skip("the memory ceiling needs Linux (RLIMIT_DATA)")
    assert_one_line_refusal(source, f"used more than {chat_sandbox.MEMORY_CEILING >> 20} MB of memory")
    # the worker that hit the ceiling is replaced: the next render works
    assert render("{{ messages[0].content }}") == "hi"


def test_limits_leave_legitimate_large_values_alone():
    """Large values under the limits render as Python makes them."""
    assert render("{{ 'x' * 1999999 }}") == "x" * 1999999
    assert render("{{ '%5s|%-4d|%.3f' % ('ab', 7, 1.5) }}") == "   ab|7   |1.500"
    assert render("{{ '{:>6}|{:.2f}|{!r}'.format('ab', 2.5, 'q') }}") == "    ab|2.50|'q'"
    assert render("{{ 'a\\tb'.expandtabs(4) ~ 'x'.center(5, '-') }}") == "a   b--x--"
    assert render("{{ 'a\\nb'|indent(2, first=true) }}|{{ [1, 2]|tojson(indent=2) }}") == "  a\n  b|[\n  1,\n  2\n]"
    assert render("{{ ('x' * 1000)|replace('x', 'yy') |length }}") == "2000"
    assert render("{{ 2 ** 1000 % 7 }}|{{ [[1], [2]]|sum(start=[]) }}") == f"{2 ** 1000 % 7}|[1, 2]"
    assert render("{{ ('ab' * 3)|truncate(4, end='..', leeway=0) }}") == "ab.."


def test_cancelled_render_kills_its_worker_and_the_next_one_starts():
    started = chat_sandbox._worker.starts
    flag = threading.Event()
    threading.Timer(0.3, flag.set).start()
    with pytest.raises(chat.Cancelled):
        render("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
               cancelled=flag.is_set)
    assert render("{{ messages[0].role }}") == "user"
    assert chat_sandbox._worker.starts == started + 1


def test_a_worker_killed_from_outside_is_one_line_and_replaced():
    render("{{ 1 }}")  # (a worker running)
    process = chat_sandbox._worker._process
    threading.Timer(0.3, process.kill).start()
    with pytest.raises(chat.ChatTemplateError, match=r"^/models/hostile/chat_template\.jinja: the chat template could "
                                                     r"not be rendered: the render process ended by SIGKILL$"):
        render("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}")
    assert render("{{ messages|length }}") == "1"


def test_a_render_past_the_time_limit_is_stopped_within_it():
    started = time.monotonic()
    with pytest.raises(chat.ChatTemplateError, match="ran for more than 0.5 s and was stopped$"):
        render("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}", time_limit=0.5)
    assert time.monotonic() - started < 0.5 + chat_sandbox.HARD_TIME_GRACE + 2  # (not a timing claim: a hang guard)


@pytest.fixture(scope="module")
def hostile_folder(tmp_path_factory) -> Path:
    """The bundled Qwen2.5 tokenizer with a hostile chat_template.jinja beside it."""
    return bundled_qwen_folder(tmp_path_factory.mktemp("hostile"))


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("source, says", [
    (GROWTH[0][1], GROWTH[0][2]),
    ("{{ '%1500000000s'|format('x') }}", "a formatted string of more than"),
    (KEPT[0][1], "used more than 100 MB of memory"),
])
def test_cli_chat_with_a_hostile_template_exits_with_one_line(hostile_folder, tmp_path, capsys, source, says):
    (hostile_folder / "chat_template.jinja").write_text(source, encoding="utf-8")
    conversation = tmp_path / "conversation.json"
    conversation.write_text(json.dumps(CONVERSATION.messages), encoding="utf-8")
    assert cli_main(["chat", "-t", str(hostile_folder), str(conversation)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith(f"tokviz: error: {hostile_folder / 'chat_template.jinja'}: the chat template ")
    assert says in lines[0]
