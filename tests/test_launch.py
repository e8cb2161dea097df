"""`tokviz` opens the app in a process with glibc's allocator for Python objects (tokviz.launch)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tokviz.cli import build_parser
from tokviz.launch import APP_ENVIRONMENT, opens_the_app, wants_app_environment

ARGVS = [
    [], ["-t", "tok.json"], ["--tokenizer", "encode"], ["--tokenizer=x.json", "--text", "a.txt"], ["-tx.json"],
    ["--text=a.txt", "-t", "b"], ["encode", "-t", "x", "hello"], ["-t", "x", "encode", "hi"], ["--version"], ["-h"],
    ["--help"], ["info"], ["screenshot", "explorer", "-o", "x.png"], ["--", "x"], ["-t"], ["bogus"], ["--bogus"],
]


@pytest.mark.parametrize("argv", ARGVS, ids=[" ".join(a) or "(none)" for a in ARGVS])
def test_it_knows_which_command_lines_open_the_app(argv, capsys):
    try:
        args = build_parser().parse_args(argv)
        app = args.command is None
    except SystemExit:  # (--help, --version, an error)
        app = False
    assert opens_the_app(argv) is app


needs_glibc = pytest.mark.skipif(not wants_app_environment({}), reason="the C allocator's trimming is glibc's")


@needs_glibc
def test_the_app_runs_again_in_its_environment_with_the_same_command_line():
    code = ("import os, sys; from tokviz.launch import relaunch_app; relaunch_app([]); "
            "print(os.getpid(), os.environ.get('PYTHONMALLOC'), sys.argv[1:])")
    env = {k: v for k, v in os.environ.items() if k not in APP_ENVIRONMENT}
    proc = subprocess.Popen([sys.executable, "-c", code, "arg"], env=env, stdout=subprocess.PIPE, text=True)
    out, _ = proc.communicate(timeout=60)
    assert out.split() == [str(proc.pid), "malloc", "['arg']"]  # (one line: the same process, run once again)


@needs_glibc
def test_a_command_or_a_users_own_choice_is_left_alone():
    code = ("import os, sys; from tokviz.launch import relaunch_app; relaunch_app(sys.argv[1:]); "
            "print(os.environ.get('PYTHONMALLOC'))")
    env = {k: v for k, v in os.environ.items() if k not in APP_ENVIRONMENT}
    for argv, environ, expected in ((["info", "-t", "x"], env, "None"), ([], {**env, "PYTHONMALLOC": "pymalloc"}, "pymalloc")):
        done = subprocess.run([sys.executable, "-c", code, *argv], env=environ, capture_output=True, text=True, timeout=60)
        assert done.stdout.split() == [expected], done.stderr
