"""``promptpipe-admin send`` and ``broadcast``: a message from the research team, only queued (the running service
sends it, never to someone who sent STOP, was withdrawn or erased)."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from promptpipe.cli._common import ask, cell, counted, fail
from promptpipe.domain.limits import RESEARCHER_MESSAGE_CHARS
from promptpipe.domain.participant_filter import ParticipantFilter
from promptpipe.domain.states import Status
from promptpipe.research import admin

__all__ = ["ALL_STATUSES", "add_messaging_parser", "broadcast_command", "send_command"]

ALL_STATUSES = "all"
"""``--status all``: a broadcast to every status (those who may not be written to are skipped)."""


def add_messaging_parser(sub: Any) -> None:
    send = sub.add_parser("send", help="send one participant a message from the research team "
                          "(not to someone who sent STOP, was withdrawn or erased)")
    send.add_argument("--phone", required=True, help="their phone number or participant id")
    send.add_argument("text", nargs="+", help="the message, as they will read it")
    send.add_argument("--by", help="who wrote it, kept with the message (default: your user name)")
    when = send.add_mutually_exclusive_group()
    when.add_argument("--anyway", action="store_true", help="send it even inside the study's quiet hours")
    when.add_argument("--after-quiet-hours", action="store_true",
                      help="inside the study's quiet hours, hold it until they end on the participant's clock")
    broadcast = sub.add_parser("broadcast", help="send one message to every participant a filter matches "
                               "(counts first and asks to confirm)")
    broadcast.add_argument("--status", choices=(*Status, ALL_STATUSES), default=Status.ACTIVE,
                           help="whose status is this (default: active; all: any status)")
    broadcast.add_argument("--stage", help="conversation stage: INTAKE, FEEDBACK or INTAKE_SUSPENDED")
    broadcast.add_argument("--arm", help="study arm")
    broadcast.add_argument("--silent-days", type=int, metavar="N",
                           help="only those who have not written for at least N days")
    broadcast.add_argument("--yes", action="store_true", help="do not ask to confirm")
    broadcast.add_argument("--by", help="who wrote it, kept with each message (default: your user name)")
    broadcast.add_argument("--anyway", action="store_true",
                           help="send at once even to those inside the study's quiet hours (by default they get "
                           "it when their quiet hours end)")
    broadcast.add_argument("text", nargs="+", help="the message, as they will read it")


async def send_command(args: argparse.Namespace, env: Any) -> None:
    queued = await admin.send_message(env.db, env.clock, who=args.phone, text=" ".join(args.text), by=args.by or "",
                                      quiet=env.settings.study.quiet_hours, anyway=args.anyway,
                                      after_quiet_hours=args.after_quiet_hours)
    held = f" when their quiet hours end ({queued.held_until} UTC)" if queued.held_until else ""
    print(f"queued as inbox row {queued.inbox_id}; the running service sends it{held}")


def _unwritable(skipped: int, *, more: bool) -> str:
    """`` 1 more matches but cannot be written to (…) and will be skipped.`` (empty for none)."""
    if not skipped:
        return ""
    who = f"{skipped} more" if more else counted(skipped, "participant")
    return (f" {who} {'matches' if skipped == 1 else 'match'} but cannot be written to (sent STOP, withdrawn or "
            "erased)" + (" and will be skipped." if more else "."))


async def broadcast_command(args: argparse.Namespace, env: Any) -> int:
    text = admin.validate_text("text", " ".join(args.text), RESEARCHER_MESSAGE_CHARS, required=True)
    flt = ParticipantFilter(status=None if args.status == ALL_STATUSES else args.status, stage=args.stage,
                            arm=args.arm, silent_days=args.silent_days)
    preview = await admin.broadcast_preview(env.db, env.clock, flt)
    matches, recipients, skipped = preview.matches, preview.recipients, preview.skipped
    if not recipients:
        print(f"No participant who can be written to matches ({cell(flt.describe())}); nothing was sent."
              + _unwritable(skipped, more=False))
        return 0
    print(f"This sends your message to {counted(recipients, 'participant')} ({cell(flt.describe())})."
          + _unwritable(skipped, more=True))
    if not args.yes:
        answer = await asyncio.to_thread(ask, "Send it? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            return fail("cancelled; nothing was sent")
    result = await admin.broadcast(env.db, env.clock, text=text, flt=flt, by=args.by or "", expected=matches,
                                   anyway=args.anyway)
    if env.settings.study.quiet_hours is not None and not args.anyway:
        print("Whoever is inside the study's quiet hours gets it when they end on their clock.")
    print(f"queued for {counted(result.queued, 'participant')} as broadcast {result.broadcast_id}"
          + (f"; skipped {result.skipped} who may not be written to" if result.skipped else "")
          + "; the running service sends them, at most SEND_RATE_PER_SECOND a second")
    return 0
