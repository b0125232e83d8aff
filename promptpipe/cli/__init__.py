"""Command lines: ``promptpipe`` (serve, chat, check) and ``promptpipe-admin``. Thin: parse, build
settings, call one function; a PromptPipeError becomes one line on stderr and exit code 1."""

from promptpipe.cli.admin import admin_main
from promptpipe.cli.serve import main

__all__ = ["admin_main", "main"]
