"""The command line as the `tokviz` console script and `python -m tokviz` run it (after `launch`):
the signal policy first, then the command line.

The policy (interrupts.py, standard library only) is installed while this module is imported,
before the command line and the tokenizer core are, so that Ctrl+C at any moment after the
interpreter has started gives one line and exit status 130 (SIGTERM: 143), never a traceback.
Until `main` is running, a signal is only noted; `main` raises it inside its own handling.
"""
from .interrupts import arm, install, interrupt_in, report, settle, silence_stdout

install()


def main(argv: list[str] | None = None) -> int:
    """Run `tokviz` with `argv` (default: the process's arguments); the exit status."""
    try:
        arm()
        from .cli import main as cli_main

        status = cli_main(argv)
    except KeyboardInterrupt as exc:  # (while importing or parsing the arguments: the command's own are reported there)
        status = report(exc)
    except Exception as exc:  # (a signal in an import, wrapped by Python: the class being made fails with it)
        interrupt = interrupt_in(exc)
        if interrupt is None:
            raise
        status = report(interrupt)
    except BrokenPipeError:  # (--help or --version into a closed pipe)
        silence_stdout()
        status = 0
    try:
        settle()
    except KeyboardInterrupt:  # (a signal that came as settle began: the command had ended already)
        settle()
    return status
