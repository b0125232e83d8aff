"""The study file's ``[whatsapp_templates]``: what each kind goes as outside the Cloud API's 24-hour window."""

from __future__ import annotations

import re

from promptpipe.domain.messages import MessageKind
from promptpipe.study.rules.checks import Check, TomlTable, kind_of
from promptpipe.study.rules.protocol import WhatsAppTemplate

__all__ = ["TEMPLATE_KINDS", "parse_whatsapp_templates"]

TEMPLATE_KINDS = (MessageKind.GREETING, MessageKind.TEXT, MessageKind.PROMPT, MessageKind.POLL,
                  MessageKind.REMINDER, MessageKind.CHECK_IN, MessageKind.QUESTIONNAIRE,
                  MessageKind.QUESTIONNAIRE_POLL, MessageKind.CLOSING, MessageKind.RESEARCHER,
                  MessageKind.COMMAND, MessageKind.SAFETY, MessageKind.APOLOGY)
"""The kinds of message we send, each of which may name a template."""
_NAME = re.compile(r"[a-z0-9_]{1,512}")
_LANGUAGE = re.compile(r"[a-z]{2,3}(_[A-Z]{2})?")
_EXAMPLE = '{ name = "daily_nudge", language = "en_US" }'


def parse_whatsapp_templates(check: Check, data: TomlTable) -> tuple[tuple[str, WhatsAppTemplate], ...]:
    """The (kind, template) pairs of ``[whatsapp_templates]``, noting a problem for each bad entry."""
    table = check.table(data, "whatsapp_templates", "", f"[whatsapp_templates] with lines like prompt = {_EXAMPLE}")
    found: list[tuple[str, WhatsAppTemplate]] = []
    for kind, entry in (table or {}).items():
        path = f"whatsapp_templates.{kind}"
        if kind not in TEMPLATE_KINDS:
            check.add(f'{path}: "{kind}" is not a kind of message we send: name one of '
                      + ", ".join(TEMPLATE_KINDS) + ".")
            continue
        if not isinstance(entry, dict):
            check.add(f"{path} must be a table, written as {kind} = {_EXAMPLE}; it is {kind_of(entry)}.")
            continue
        before = len(check.problems)
        check.known(entry, ("name", "language"), path)
        name = check.text(entry, "name", path, '"daily_nudge"', required=True, limit=512)
        language = check.text(entry, "language", path, '"en_US"', limit=10) or "en_US"
        if name is not None and not _NAME.fullmatch(name):
            check.add(f'{path}.name = "{name}" cannot be a template name: WhatsApp names templates with lowercase '
                      'letters, digits and "_", like "daily_nudge"; copy it from WhatsApp Manager.')
        if not _LANGUAGE.fullmatch(language):
            check.add(f'{path}.language = "{language}" is not a language code: write it like "en_US" or "en", as '
                      "the template was approved.")
        if len(check.problems) == before and name is not None:
            found.append((kind, WhatsAppTemplate(name, language)))
    return tuple(found)
