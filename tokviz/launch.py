"""The desktop app's process runs with the C library's allocator for Python objects (Linux, glibc).

CPython's small-object allocator takes memory from the system in 1 MiB arenas and gives an arena
back only once every object in it is freed.  A long session of the app loads and drops tokenizers
(a million small objects each) and encodings while long-lived objects are made between them, so a
few survivors keep most arenas: after 9 minutes of random use (benchmarks/random_soak.py, seed 7)
and back to the first tokenizer, 353 MiB of arenas held 69 MiB of objects, and the app's RSS was
566 MB.  With PYTHONMALLOC=malloc every object comes from glibc, which the app's idle clean-up
trims page by page: the same session ends at 368 MB.  Python code allocating many small objects
runs slower with it (loading Qwen2.5: 0.59 -> 0.64 s); the command-line tools keep the default.

The allocator is chosen when the interpreter starts, so the `tokviz` console script, for the app
alone, starts the interpreter again with the variable set (`relaunch_app`).  This module imports
only the standard library: it runs before anything else of tokviz.
"""
from __future__ import annotations

import os
import platform
import sys

APP_ENVIRONMENT = {"PYTHONMALLOC": "malloc"}

# The options the command line takes before its sub-command, and whether each takes a value
# (cli.build_parser: tests/test_launch.py checks the two agree).
_TOP_LEVEL_OPTIONS = {"-t": True, "--tokenizer": True, "--text": True, "--version": False, "-h": False, "--help": False}


def opens_the_app(argv: list[str]) -> bool:
    """Whether `tokviz ARGV` opens the desktop app: no sub-command, no --help or --version."""
    values = False
    for arg in argv:
        if values:
            values = False
            continue
        if arg == "--":
            return False
        name = arg.split("=", 1)[0] if arg.startswith("--") else arg
        if name in _TOP_LEVEL_OPTIONS:
            if not _TOP_LEVEL_OPTIONS[name]:
                return False  # (--help, --version)
            values = "=" not in arg
            continue
        if arg.startswith("-t") and len(arg) > 2:  # (-tFILE)
            continue
        return False  # (a sub-command, or an argument the parser will refuse)
    return not values  # (an option still waiting for its value: the parser refuses it)


def wants_app_environment(environ=None) -> bool:
    """Whether this process should run again in APP_ENVIRONMENT: on glibc, when the variables
    are not set (a value the user chose is kept), in a plain interpreter (not a frozen app)."""
    env = os.environ if environ is None else environ
    return (sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"
            and not getattr(sys, "frozen", False) and bool(sys.executable)
            and all(name not in env for name in APP_ENVIRONMENT))


def relaunch_app(argv: list[str] | None = None) -> None:
    """Start this interpreter again in APP_ENVIRONMENT when its command opens the app (`argv`: its
    arguments, default sys.argv[1:]).  Returns only when nothing was done (or exec failed)."""
    if opens_the_app(sys.argv[1:] if argv is None else argv):
        run_again_in_app_environment()


def run_again_in_app_environment() -> None:
    """Start this interpreter again, with the command line it was started with, in APP_ENVIRONMENT
    (a benchmark of the app does, to measure what users run), unless that is in place already or
    not wanted here (`wants_app_environment`).  Returns only when nothing was done."""
    if not wants_app_environment():
        return
    orig = getattr(sys, "orig_argv", None) or [sys.executable, *sys.argv]
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(sys.executable, orig, {**os.environ, **APP_ENVIRONMENT})
    except OSError:
        return  # (the process goes on with the default allocator)


def main() -> int:
    """The `tokviz` console script: the app in its environment (`relaunch_app`), then the command line."""
    relaunch_app()
    from .console import main as console_main

    return console_main()
