"""The WhatsApp Cloud API's JSON, both ways, without I/O. A poll's button or row ids are :data:`CHOICE_PREFIX` plus
the option's hash, and a tap names the poll message in ``context.id``: it maps to a PollVote without state."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any, NotRequired, TypedDict

from promptpipe.domain.messages import MessageKind
from promptpipe.study.rules.protocol import WhatsAppTemplate
from promptpipe.transport.base import DeliveryReceipt, InboundMessage, PollVote, Reaction, poll_option_hash

__all__ = ["CHOICE_PREFIX", "LIST_OPTION_LIMIT", "MessageBody", "Notification", "ReadBody", "StatusFailure",
           "interactive_poll", "phone_digits", "read_body", "read_notifications", "template_body", "text_body"]

CHOICE_PREFIX = "pp:"
BUTTON_LIMIT, BUTTON_TITLE_CHARS = 3, 20
LIST_OPTION_LIMIT, ROW_TITLE_CHARS, ROW_DESCRIPTION_CHARS = 10, 24, 72
BODY_CHARS, TEXT_CHARS = 1024, 4096
LIST_BUTTON = "Choose"
MULTIPLE_HINT = "You may choose more than one: open the list again for each. Choosing one again takes it back."

_CONTENT = {"image": MessageKind.IMAGE, "video": MessageKind.VIDEO, "sticker": MessageKind.STICKER,
            "document": MessageKind.DOCUMENT, "location": MessageKind.LOCATION, "contacts": MessageKind.CONTACT,
            "audio": MessageKind.AUDIO, "unsupported": MessageKind.UNREADABLE}
_CAPTIONED = ("image", "video", "document")


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def phone_digits(phone: str) -> str:
    return "".join(ch for ch in phone if ch.isdigit())


class _Outgoing(TypedDict):
    messaging_product: str
    recipient_type: str
    to: str
    type: str
    biz_opaque_callback_data: NotRequired[str]
    """Our outbox key: Meta returns it with each status of the message, which settles a send left uncertain."""


class _Component(TypedDict):
    type: str
    parameters: list[dict[str, str]]


class _Template(TypedDict):
    name: str
    language: dict[str, str]
    components: list[_Component]


class _Button(TypedDict):
    type: str
    reply: dict[str, str]


class _Action(TypedDict, total=False):
    buttons: list[_Button]
    button: str
    sections: list[dict[str, list[dict[str, str]]]]


class _Interactive(TypedDict):
    type: str
    body: dict[str, str]
    action: _Action


class TextBody(_Outgoing):
    text: dict[str, str | bool]


class TemplateBody(_Outgoing):
    template: _Template


class InteractiveBody(_Outgoing):
    interactive: _Interactive


MessageBody = TextBody | TemplateBody | InteractiveBody


class ReadBody(TypedDict):
    """What we POST there to mark a message read (and show "typing…")."""

    messaging_product: str
    status: str
    message_id: str
    typing_indicator: NotRequired[dict[str, str]]


def text_body(to: str, text: str) -> TextBody:
    return {"messaging_product": "whatsapp", "recipient_type": "individual", "to": phone_digits(to), "type": "text",
            "text": {"preview_url": False, "body": _cut(text, TEXT_CHARS)}}


def template_body(to: str, template: WhatsAppTemplate, text: str) -> TemplateBody:
    """``text`` as the one body parameter, whitespace folded (a parameter may hold no line breaks or runs of spaces)."""
    flat = re.sub(r"\s+", " ", text).strip()
    return {"messaging_product": "whatsapp", "recipient_type": "individual", "to": phone_digits(to), "type": "template",
            "template": {"name": template.name, "language": {"code": template.language},
                         "components": [{"type": "body", "parameters": [{"type": "text",
                                                                          "text": _cut(flat, BODY_CHARS)}]}]}}


def poll_in_words(question: str, options: Sequence[str]) -> str:
    """A poll written out, for a template (which cannot carry our buttons): answers are typed."""
    return question + " " + " / ".join(f"{number}. {option}" for number, option in enumerate(options, 1))


def interactive_poll(to: str, question: str, options: Sequence[str], *, multiple: bool) -> InteractiveBody:
    """Reply buttons when every option fits one (and the poll is single-choice), else a list."""
    body = question + (f"\n\n{MULTIPLE_HINT}" if multiple else "")
    ids = [CHOICE_PREFIX + poll_option_hash(option) for option in options]
    if not multiple and len(options) <= BUTTON_LIMIT and all(len(o) <= BUTTON_TITLE_CHARS for o in options):
        action: _Action = {"buttons": [{"type": "reply", "reply": {"id": choice, "title": option}}
                                              for choice, option in zip(ids, options, strict=True)]}
        kind = "button"
    else:
        rows = [{"id": choice, "title": _cut(option, ROW_TITLE_CHARS),
                 **({"description": _cut(option, ROW_DESCRIPTION_CHARS)} if len(option) > ROW_TITLE_CHARS else {})}
                for choice, option in zip(ids, options, strict=True)]
        action, kind = {"button": LIST_BUTTON, "sections": [{"rows": rows}]}, "list"
    return {"messaging_product": "whatsapp", "recipient_type": "individual", "to": phone_digits(to),
            "type": "interactive",
            "interactive": {"type": kind, "body": {"text": _cut(body, BODY_CHARS)}, "action": action}}


def read_body(message_id: str, *, typing: bool = False) -> ReadBody:
    body: ReadBody = {"messaging_product": "whatsapp", "status": "read", "message_id": message_id}
    if typing:
        body["typing_indicator"] = {"type": "text"}
    return body


# ---------------------------------------------------------------------------- the webhook


@dataclass(frozen=True)
class StatusFailure:
    """A message we sent could not be delivered (codes only, no text); ``ref``: the outbox key it carried."""

    message_id: str
    codes: tuple[int, ...]
    number: str | None = None
    ref: str = ""


@dataclass(frozen=True)
class Notification:
    """What one webhook body holds, in our types."""

    messages: tuple[InboundMessage, ...] = ()
    receipts: tuple[DeliveryReceipt, ...] = ()
    failures: tuple[StatusFailure, ...] = ()
    skipped: int = 0
    foreign: tuple[str, ...] = ()
    """Phone number ids (not ours) of the changes left out whole, one per change."""


def _when(raw: Any) -> datetime:
    try:
        return datetime.fromtimestamp(int(raw), timezone.utc)
    except (TypeError, ValueError, OverflowError):
        return datetime.now(timezone.utc)


def _message(raw: dict[str, Any], names: dict[str, str], number: str | None) -> InboundMessage | None:
    sender, message_id, kind = str(raw.get("from") or ""), str(raw.get("id") or ""), raw.get("type")
    if not sender or not message_id:
        return None
    given = raw.get("context")
    context: dict[str, Any] = given if isinstance(given, dict) else {}
    quoted = str(context.get("id")) if context.get("id") else None
    base = InboundMessage(message_id=message_id, sender_phone="+" + phone_digits(sender), sender_lid=None,
                          sender_name=names.get(sender, ""), text="", timestamp=_when(raw.get("timestamp")),
                          quoted_message_id=quoted, number=number)
    found = raw.get(kind) if isinstance(kind, str) else None
    part: dict[str, Any] = found if isinstance(found, dict) else {}
    if kind == "text":
        return replace(base, text=str(part.get("body") or ""))
    if kind == "interactive":
        reply = part.get("button_reply") or part.get("list_reply") or {}
        choice, title = str(reply.get("id") or ""), str(reply.get("title") or "")
        if choice.startswith(CHOICE_PREFIX) and quoted:
            vote = PollVote(quoted, (choice[len(CHOICE_PREFIX):],))
            return replace(base, poll_vote=vote, quoted_message_id=None)
        return replace(base, text=title) if title else None
    if kind == "button":  # a template's quick-reply button: its words, as if typed
        return replace(base, text=str(part.get("text") or ""))
    if kind == "reaction":
        target = str(part.get("message_id") or "")
        if not target:
            return None
        return replace(base, content="reaction", quoted_message_id=None,
                       reaction=Reaction(target, str(part.get("emoji") or "")))
    if kind in _CONTENT:
        caption = str(part.get("caption") or "") if kind in _CAPTIONED else ""
        if caption:
            return replace(base, text=caption)
        content = MessageKind.VOICE if kind == "audio" and part.get("voice") else _CONTENT[kind]
        return replace(base, content=str(content))
    return None


def _receipt(raw: dict[str, Any], number: str | None) -> DeliveryReceipt | StatusFailure | None:
    status, message_id = raw.get("status"), str(raw.get("id") or "")
    ref = str(raw.get("biz_opaque_callback_data") or "")
    if not message_id:
        return None
    if status in (("delivered", "read", "sent") if ref else ("delivered", "read")):  # "sent" settles an uncertain send
        return DeliveryReceipt((message_id,), str(status), _when(raw.get("timestamp")), ref=ref)
    if status == "failed":
        errors = raw.get("errors")
        codes = tuple(int(e["code"]) for e in (errors if isinstance(errors, list) else [])
                      if isinstance(e, dict) and isinstance(e.get("code"), int))
        return StatusFailure(message_id, codes, number, ref)
    return None  # "sent" without our key: the send's own answer said so already


def read_notifications(payload: Any, numbers: Mapping[str, str] | None = None) -> Notification:
    """Every message and status of a webhook body; anything of another shape is counted as skipped, never raised.
    ``numbers``: our phone number ids → names; a change for another id is left out (listed in ``foreign``)."""
    messages: list[InboundMessage] = []
    receipts: list[DeliveryReceipt] = []
    failures: list[StatusFailure] = []
    foreign: list[str] = []
    skipped = 0
    entries = payload.get("entry") if isinstance(payload, dict) else None
    for entry in entries if isinstance(entries, list) else ():
        for change in (entry.get("changes") or []) if isinstance(entry, dict) else ():
            value = change.get("value") if isinstance(change, dict) else None
            if not isinstance(value, dict):
                skipped += 1
                continue
            metadata = value.get("metadata")
            number_id = str(metadata.get("phone_number_id") or "") if isinstance(metadata, dict) else ""
            number = None
            if numbers is not None:
                if number_id not in numbers:
                    foreign.append(number_id)
                    continue
                number = numbers[number_id]
            names = {str(c.get("wa_id")): str((c.get("profile") or {}).get("name") or "")
                     for c in value.get("contacts") or [] if isinstance(c, dict)}
            for raw in value.get("messages") or []:
                msg = _message(raw, names, number) if isinstance(raw, dict) else None
                if msg is None:
                    skipped += 1
                else:
                    messages.append(msg)
            for raw in value.get("statuses") or []:
                status = _receipt(raw, number) if isinstance(raw, dict) else None
                if isinstance(status, DeliveryReceipt):
                    receipts.append(status)
                elif isinstance(status, StatusFailure):
                    failures.append(status)
    return Notification(tuple(messages), tuple(receipts), tuple(failures), skipped, tuple(foreign))
