"""``promptpipe-admin``: one small function per command, each calling one research operation and
printing what it returned (the parser is in :mod:`promptpipe.cli._admin_parser`)."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from promptpipe.cli._admin_parser import admin_parser
from promptpipe.cli._common import ask, cell, counted, fail, load, print_json, print_table, receipt_marks, run
from promptpipe.cli._messaging import broadcast_command, send_command
from promptpipe.cli._tokens import token_command
from promptpipe.clock import SystemClock
from promptpipe.config import Settings
from promptpipe.domain.messages import MessageKind
from promptpipe.domain.states import Status
from promptpipe.errors import AdminError
from promptpipe.questionnaires.operations import questionnaire_status, send_questionnaire
from promptpipe.research import admin, oversight
from promptpipe.research.handovers import hand_over
from promptpipe.research.number_moves import move_to_number
from promptpipe.research.status import read_status
from promptpipe.research.views import as_json
from promptpipe.storage.db import Database
from promptpipe.storage.files import PRIVATE_UMASK
from promptpipe.study.operations import check_protocol
from promptpipe.study.rules.summary import block_words

__all__ = ["admin_main"]


@dataclass(frozen=True)
class Env:
    db: Database
    clock: SystemClock
    settings: Settings


Command = Callable[[argparse.Namespace, Env], Awaitable[int | None]]


def admin_main(argv: Sequence[str] | None = None) -> int:
    args = admin_parser().parse_args(argv)
    os.umask(PRIVATE_UMASK)  # exports and a new SQLite file are for this user only
    settings = load()
    if settings is None:
        return 1
    return run(lambda: _admin(args, settings))


async def _admin(args: argparse.Namespace, settings: Settings) -> int:
    db = Database(settings.database_url)
    await db.connect()
    try:
        command = COMMANDS[args.command]
        return await command(args, Env(db, SystemClock(), settings)) or 0
    finally:
        await db.close()


async def _enroll(args: argparse.Namespace, env: Env) -> None:
    row = await admin.enroll(env.db, env.clock, admin.Enrolment(
        phone=args.phone, name=args.name, timezone=args.timezone, background=args.background or "", by=args.by or "",
        study=env.settings.study, strata=_strata(args.stratum), numbers=env.settings.number_plan, number=args.number))
    arm = f" in arm {row.arm}" if row.arm else ""
    if row.opted_out:
        print(f"enrolled {cell(row.name)} ({row.phone}) as {row.id}{arm}, opted out: this number's owner sent STOP "
              "before their data was erased, so nothing is sent to them (not even the greeting) until they write "
              "START themselves")
        return
    print(f"enrolled {cell(row.name)} ({row.phone}) as {row.id}{arm}; "
          "the running service will send the greeting")


def _strata(pairs: list[str]) -> dict[str, str]:
    strata: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise AdminError(f"--stratum {pair!r}: write it as FIELD=VALUE, e.g. --stratum site=toronto")
        if name.strip() in strata:
            raise AdminError(f"--stratum: {name.strip()} is given twice")
        strata[name.strip()] = value.strip()
    return strata


async def _extend(args: argparse.Namespace, env: Env) -> None:
    print(await admin.extend(env.db, env.clock, study=env.settings.study, phone=args.phone, days=args.days,
                             by=args.by or ""))


async def _move_number(args: argparse.Namespace, env: Env) -> None:
    moved = await move_to_number(env.db, env.clock, who=args.phone, to=args.to, text=args.message,
                                 numbers=env.settings.number_plan, by=args.by or "", study=env.settings.study)
    print(cell(moved.line))


async def _hand_over(args: argparse.Namespace, env: Env) -> None:
    print(cell(await hand_over(env.db, env.clock, number=args.number, to=args.to, numbers=env.settings.number_plan,
                               by=args.by or "")))


async def _allocation(args: argparse.Namespace, env: Env) -> None:
    await env.db.run(lambda session: check_protocol(session, env.settings.study, env.clock.now()))
    data = await admin.allocation_counts(env.db, env.settings.study, unblind=args.unblind)
    if args.json:
        values = as_json(data)
        if data.block_sizes is None:
            del values["block_sizes"]  # blinded: not even the key says there is something to see
        print_json(values)
        return
    arms = list(data.arms)
    total = sum(data.arms.values())
    ratio_sum = sum(data.ratios.values()) or 1
    print(f"{cell(data.study) or '(no study file)'}: {total} participant(s) allocated; "
          f"{block_words(env.settings.study, unblind=args.unblind)}")
    rows = [{"arm": arm, "participants": data.arms[arm],
             "designed share": f"{data.ratios.get(arm, 0)}/{ratio_sum}"} for arm in arms]
    print_table(rows, ["arm", "participants", "designed share"])
    if data.strata:
        print("per stratum:")
        print_table([{"stratum": stratum, **counts} for stratum, counts in data.strata.items()], ["stratum", *arms])


async def _list(args: argparse.Namespace, env: Env) -> None:
    _print_rows(args, await admin.list_participants(env.db), ["id", "phone", "name", "timezone", "status", "sub_state",
                                                             "arm"])


async def _show(args: argparse.Namespace, env: Env) -> None:
    row = await admin.show(env.db, args.phone)
    if _printed_json(args, row):
        return
    for key, value in as_json(row).items():
        if isinstance(value, dict):
            print(f"{key}:")
            for field_name, field_value in value.items():
                print(f"  {field_name}: {cell(field_value) if field_value not in ('', None) else '-'}")
        else:
            print(f"{key}: {cell(value) if value not in ('', None) else '-'}")


async def _simulate(args: argparse.Namespace, env: Env) -> None:
    text, db, clock = " ".join(args.text), env.db, env.clock
    if args.vote is not None or args.react is not None:
        if (text or args.kind != MessageKind.TEXT or args.reply_to_prompt
                or (args.vote is not None and args.react is not None)):
            raise AdminError("give one thing to simulate: a message (with --kind or --reply-to-prompt), "
                             "--vote or --react")
        if args.vote is not None:
            inbox_id = await admin.simulate_vote(db, clock, phone=args.phone, option=args.vote)
        else:
            inbox_id = await admin.simulate_reaction(db, clock, phone=args.phone, emoji=args.react, to=args.to)
    else:
        inbox_id = await admin.simulate(db, clock, phone=args.phone, text=text, kind=args.kind,
                                        reply_to_prompt=args.reply_to_prompt)
    print(f"stored as inbox row {inbox_id}; the running service will answer it")


async def _status_change(args: argparse.Namespace, env: Env) -> None:
    """pause, resume, withdraw."""
    print(await admin.set_status(env.db, env.clock, phone=args.phone, action=args.command, reason=args.reason or "",
                                 by=args.by or "", study=env.settings.study))


async def _prompt_now(args: argparse.Namespace, env: Env) -> None:
    inbox_id = await admin.send_prompt_now(env.db, env.clock, phone=args.phone, study=env.settings.study,
                                           anyway=args.anyway, after_quiet_hours=args.after_quiet_hours)
    print(f"daily prompt queued as inbox row {inbox_id}; the running service writes and sends it")


async def _questionnaire(args: argparse.Namespace, env: Env) -> None:
    if args.questionnaire_command == "send":
        sent = await send_questionnaire(env.db, env.clock, env.settings.study, phone=args.phone,
                                        questionnaire_id=args.id, anyway=args.anyway)
        print(f"questionnaire {args.id} queued as instance {sent.instance_id}; the running service sends it")
        return
    counts = await questionnaire_status(env.db)
    if not counts:
        print("no questionnaire has been scheduled or sent yet")
    for row in counts:
        print(f"{row.questionnaire_id}\t{row.status}\t{row.count}")


async def _update(args: argparse.Namespace, env: Env) -> None:
    if args.timezone is None and args.name is None and args.background is None:
        raise AdminError("update: say what to change: --timezone, --name or --background (or several)")
    if args.timezone is not None:
        admin.validate_timezone(args.timezone)  # a typo changes nothing, not half of what was asked
    if args.name is not None or args.background is not None:
        print(cell(await admin.update_participant(env.db, env.clock, who=args.phone, name=args.name,
                                                  background=args.background)))
    if args.timezone is not None:
        print(await admin.set_timezone(env.db, env.clock, phone=args.phone, timezone=args.timezone))


async def _schedules(args: argparse.Namespace, env: Env) -> None:
    data = await admin.schedules(env.db, env.clock, phone=args.phone)
    if _printed_json(args, data):
        return
    print(f"{data.phone} ({data.status}, {data.timezone})")
    if data.status != Status.ACTIVE:
        print("not active: no prompt or timer will fire until they are resumed")
    print("schedules:")
    print_table(data.schedules, ["id", "habit", "prep_minutes", "next_prompt", "armed"])
    print("pending timers:")
    print_table(data.timers, ["kind", "due", "detail", "armed"])


async def _timers(args: argparse.Namespace, env: Env) -> None:
    _print_rows(args, await admin.pending_timers(env.db), ["phone", "kind", "due", "armed"])


async def _transcript(args: argparse.Namespace, env: Env) -> None:
    rows = await admin.transcript(env.db, args.phone)
    if _printed_json(args, rows):
        return
    for row in rows:
        arrow = "<-" if row.direction == "in" else "->"
        print(f"{row.at[:19]} {arrow} [{row.kind}/{row.status}{receipt_marks(row)}] {cell(row.text)}")


async def _status(args: argparse.Namespace, env: Env) -> None:
    report = await read_status(env.db, env.settings.number_plan, env.clock.now())
    if not _printed_json(args, report.to_json()):
        for line in report.lines():
            print(cell(line))


async def _consent(args: argparse.Namespace, env: Env) -> None:
    data = await oversight.consent(env.db, args.phone)
    if _printed_json(args, data):
        return
    print(f"{data.phone} ({data.participant_id}): {data.status}"
          + ("; opted out by themselves" if data.opted_out else "")
          + ("; paused by the research team" if data.researcher_paused else ""))
    events = [as_json(event) for event in data.events]
    if any(event.reconstructed for event in data.events):
        print("events marked * were rebuilt at an upgrade from the transition log of a release that kept no "
              "consent ledger (the participant's words were not recorded then)")
        events = [{**event, "event": event["event"] + ("*" if event["reconstructed"] else "")} for event in events]
    if any(event.said_at for event in data.events):
        print("said at: when the participant sent their own STOP or START (their phone's clock); the latest decides")
    print_table(events, ["at", "said_at", "event", "source", "actor", "words"])


async def _flags(args: argparse.Namespace, env: Env) -> None:
    if args.flags_action == "resolve":
        print(await oversight.resolve(env.db, env.clock, flag_id=args.flag_id, note=args.note, by=args.by or ""))
        return
    _print_rows(args, await oversight.flags(env.db, include_resolved=args.all),
                ["id", "at", "participant_id", "severity", "source", "trigger", "status", "alert"]
                + (["resolved_by", "note"] if args.all else []))


async def _inbox(args: argparse.Namespace, env: Env) -> None:
    if args.inbox_action == "retry":
        print(await oversight.retry_inbox(env.db, env.clock, inbox_id=args.inbox_id))
    elif args.inbox_action == "skip":
        print(await oversight.skip_inbox(env.db, env.clock, inbox_id=args.inbox_id, by=args.by or ""))
    else:
        _print_rows(args, await oversight.inbox_rows(env.db, stuck_only=args.stuck),
                    ["id", "at", "phone", "kind", "status", "attempts", "last_error"])


async def _erase(args: argparse.Namespace, env: Env) -> int:
    from promptpipe.research import erasure

    plan = await erasure.plan(env.db, phone=args.phone)
    if not args.yes:
        print(f"This erases the personal data of {cell(plan.name) or 'a participant'} ({plan.phone}, "
              f"{plan.participant_id}, {plan.status}): phone, name, notes, the texts of {plan.messages} message(s), "
              f"{plan.deliveries} prompt(s) and {plan.flags} flag(s), the profile. It cannot be undone; the "
              "pseudonymous id and the counts stay.")
        answer = await asyncio.to_thread(ask, "Type the phone number again to confirm: ")
        if answer.strip().replace(" ", "") != plan.phone:
            return fail("cancelled: the number did not match; nothing was changed")
    done = await erasure.erase(env.db, env.clock, study=env.settings.study, phone=args.phone, by=args.by or "")
    print(f"erased {done.participant_id}: {done.messages} message text(s), {done.pending_inputs_closed} waiting "
          f"input(s) closed, {done.unsent_messages_dropped} unsent message(s) dropped; database log "
          f"checkpoint: {done.checkpoint}")
    return 0


async def _export(args: argparse.Namespace, env: Env) -> None:
    from promptpipe.app.parts import load_prompts
    from promptpipe.export.allocation import write_allocation_list
    from promptpipe.export.files import ExportOptions, export_study

    unblinded = None
    if args.unblind:  # first: it refuses a file of an earlier export before anything is written
        unblinded = await write_allocation_list(env.db, env.settings.study, Path(args.out), args.format,
                                                force=args.force)
    result = await export_study(env.db, args.out, ExportOptions(fmt=args.format, force=args.force,
                                include_identifiers=args.include_identifiers, now=env.clock.now(),
                                receipt_window=env.settings.delivery_receipt_window,
                                model=env.settings.genai_model,
                                system_prompts=dataclasses.asdict(load_prompts(env.settings))))
    for name, count in result.rows.items():
        print(f"{name}.{args.format}: {counted(count, 'row')}")
    for companion in result.companions:
        print(f"{companion.name}: {_COMPANIONS.get(companion.name, 'about the data')}")
    if result.key_file is not None:
        print(f"{result.key_file.name}: {counted(result.key_rows, 'row')} "
              "(the key to phone numbers and names: keep it apart from the data)")
    if unblinded is not None:
        path, count = unblinded
        print(f"{path.name}: {counted(count, 'row')} "
              "(UNBLINDED: the allocation sequence; keep it from whoever enrolls)")
    print(f"written to {args.out}")
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)


_COMPANIONS = {"study.json": "the protocol as run, its changes, the software and the model",
               "codebook.csv": "every column of every file explained", "README.md": "the codebook, to read",
               "questionnaire_items.csv": "each questionnaire item's type, range and coded options"}


async def _report(args: argparse.Namespace, env: Env) -> None:
    from promptpipe.study.report.reading import study_report
    from promptpipe.study.report.text import format_report

    await env.db.run(lambda session: check_protocol(session, env.settings.study, env.clock.now()))
    report = await study_report(env.db, env.settings.study, now=env.clock.now())
    if not _printed_json(args, as_json(report)):
        for line in format_report(report).splitlines():
            print(cell(line))


def _print_rows(args: argparse.Namespace, rows: Sequence[object], columns: list[str]) -> None:
    """``--json``: the rows as JSON; else a table of ``columns``."""
    if not _printed_json(args, rows):
        print_table(rows, columns)


def _printed_json(args: argparse.Namespace, data: object) -> bool:
    """With ``--json``, ``data`` printed as JSON (True); else nothing printed (False)."""
    if args.json:
        print_json(data)
    return bool(args.json)


COMMANDS: dict[str, Command] = {"enroll": _enroll, "list": _list, "show": _show, "simulate": _simulate,
                                "prompt-now": _prompt_now, "questionnaire": _questionnaire, "update": _update,
                                "schedules": _schedules, "timers": _timers, "transcript": _transcript,
                                "status": _status, "consent": _consent, "flags": _flags, "inbox": _inbox,
                                "erase": _erase, "export": _export, "extend": _extend, "move-number": _move_number,
                                "hand-over": _hand_over, "allocation": _allocation, "report": _report,
                                "send": send_command, "broadcast": broadcast_command, "token": token_command,
                                **{action: _status_change for action in admin.STATUS_COMMANDS}}
