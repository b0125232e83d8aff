"""The arguments of ``promptpipe-admin``."""

from __future__ import annotations

import argparse
from typing import Any

from promptpipe.cli._messaging import add_messaging_parser
from promptpipe.cli._tokens import add_token_parser
from promptpipe.research import admin

__all__ = ["admin_parser"]


def admin_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="promptpipe-admin", description="Manage study participants.")
    sub = parser.add_subparsers(dest="command", required=True)
    enroll = sub.add_parser("enroll", help="enroll a participant; the service greets them")
    enroll.add_argument("--phone", required=True, help="E.164, e.g. +14165550123")
    enroll.add_argument("--name", required=True)
    enroll.add_argument("--timezone", required=True, help="IANA zone, e.g. America/Toronto")
    enroll.add_argument("--background", help="notes for the agent about this participant")
    enroll.add_argument("--by", help="who enrolled them, for the consent record (default: your user name)")
    enroll.add_argument("--stratum", action="append", default=[], metavar="FIELD=VALUE",
                        help="an enrollment field the study's allocation is stratified by, e.g. site=toronto "
                        "(repeat for each field)")
    enroll.add_argument("--number", help="the WhatsApp number (by name, of WHATSAPP_NUMBERS) they are written "
                        "from (default: by NUMBER_ASSIGNMENT)")
    _command(sub, "list", "all participants", json=True)
    _command(sub, "show", "one participant: status, stage, profile", phone=True, json=True)
    _add_simulate(sub)
    for action, text in (("pause", "stop all scheduled messages to a participant"),
                         ("resume", "switch a paused participant back on"),
                         ("withdraw", "withdraw a participant from the study (final)")):
        status = _command(sub, action, text, phone=True)
        status.add_argument("--reason", help="kept in the audit log and the consent record")
        status.add_argument("--by", help="who did it, for the consent record (default: your user name)")
    prompt_now = _command(sub, "prompt-now", "send the participant's daily prompt now (for piloting)", phone=True)
    when = prompt_now.add_mutually_exclusive_group()
    when.add_argument("--anyway", action="store_true", help="send it even inside the study's quiet hours")
    when.add_argument("--after-quiet-hours", action="store_true",
                      help="inside the study's quiet hours, send it when they end on the participant's clock")
    questionnaire = sub.add_parser("questionnaire", help="send a questionnaire now (piloting), or see how far each got")
    steps = questionnaire.add_subparsers(dest="questionnaire_command", required=True)
    send_one = _command(steps, "send", "send one of the study file's questionnaires to a participant now", phone=True)
    send_one.add_argument("id", help="the questionnaire's id in the study file")
    send_one.add_argument("--anyway", action="store_true", help="send it even inside the study's quiet hours")
    steps.add_parser("status", help="instances of each questionnaire by state (sent, started, completed, ...)")
    update = _command(sub, "update", "change a participant's time zone, name or background notes", phone=True)
    update.add_argument("--timezone", help="IANA zone, e.g. Europe/Berlin")
    update.add_argument("--name", help="the name the agent greets them by")
    update.add_argument("--background", help="notes for the agent about this participant (\"\" clears them)")
    add_messaging_parser(sub)
    _add_reports(sub)
    _add_follow_ups(sub)
    _add_study(sub)
    add_token_parser(sub)
    return parser


def _command(sub: Any, name: str, text: str, *, phone: bool = False, json: bool = False) -> argparse.ArgumentParser:
    """A command, with ``--phone`` (required) and ``--json`` when asked."""
    command: argparse.ArgumentParser = sub.add_parser(name, help=text)
    if phone:
        command.add_argument("--phone", required=True)
    if json:
        command.add_argument("--json", action="store_true")
    return command


def _add_simulate(sub: Any) -> None:
    """Acting as a participant, for piloting."""
    simulate = _command(sub, "simulate", "act as the participant: a message, a vote, a reaction (the running service "
                        "answers as it would on WhatsApp)", phone=True)
    simulate.add_argument("text", nargs="*", help="the message text")
    simulate.add_argument("--kind", default="text", help="send a message without words instead: "
                          "voice, audio, image, video, sticker, document, location or contact")
    simulate.add_argument("--reply-to-prompt", metavar="DATE", help="a swipe reply to the daily prompt of that "
                          "local day (YYYY-MM-DD)")
    simulate.add_argument("--vote", metavar="OPTION", help="tap an option of the open questionnaire item's poll or "
                          "the newest prompt's: its words (\"Done\", \"Just right\") or its number on the first")
    simulate.add_argument("--react", metavar="EMOJI", help="react to the newest daily prompt (\"\" takes it back)")
    simulate.add_argument("--to", choices=admin.REACTION_TARGETS, default="prompt",
                          help="with --react: the prompt (default) or its poll")


def _add_study(sub: Any) -> None:
    """The study as a whole: extensions, the allocation, the report."""
    move = sub.add_parser("move-number", help="move one participant to another WhatsApp number of the deployment; "
                          "the message you give tells them, from the new number")
    move.add_argument("--phone", required=True, help="their phone (or participant id)")
    move.add_argument("--to", required=True, help="the number's name (of WHATSAPP_NUMBERS)")
    move.add_argument("--message", required=True, help="what they are told, sent from the new number (it waits for "
                      "the end of their quiet hours)")
    move.add_argument("--by", help="who moved them, for the log (default: your user name)")
    hand_over = sub.add_parser("hand-over", help="several services: move one WhatsApp number to another running "
                               "service (its holder gives it back at its next heartbeat; one number at a time)")
    hand_over.add_argument("number", help="the number's name (of WHATSAPP_NUMBERS)")
    hand_over.add_argument("--to", required=True, help="the service's name (its SERVICE_NAME, as status shows it)")
    hand_over.add_argument("--by", help="who asked, for the log (default: your user name)")
    extend = _command(sub, "extend", "add days to one participant's study (a completed one comes back)", phone=True)
    extend.add_argument("--days", required=True, type=int, help="how many days to add")
    extend.add_argument("--by", help="who extended it, for the log (default: your user name)")
    allocation = _command(sub, "allocation", "participants per arm and per stratum (never the sequence)", json=True)
    allocation.add_argument("--unblind", action="store_true",
                            help="also show the block sizes (keep them from whoever enrolls participants)")
    _command(sub, "report", "the study at a glance: status and arms, study days, prompts, decision points and how "
             "the randomisation runs", json=True)


def _add_reports(sub: Any) -> None:
    """What researchers read: transcripts, schedules and timers, the export."""
    _command(sub, "transcript", "every message in and out, with times and status", phone=True, json=True)
    _command(sub, "schedules", "a participant's daily prompt schedules and pending timers", phone=True, json=True)
    _command(sub, "timers", "every pending timer (reminders, hand-overs, check-ins)", json=True)
    export = sub.add_parser("export", help="write the study's data, pseudonymised (participants, messages, "
                            "deliveries, transitions, tone changes, consent, flags), to files for analysis")
    export.add_argument("--out", required=True, help="directory for the files (created if missing)")
    export.add_argument("--format", choices=("csv", "jsonl"), default="csv", help="csv (default) or jsonl")
    export.add_argument("--force", action="store_true", help="overwrite files from an earlier export")
    export.add_argument("--include-identifiers", action="store_true",
                        help="also write identifiers.<format>: participant id, phone and name (keep it apart)")
    export.add_argument("--unblind", action="store_true",
                        help="also write allocation_list.<format>: the allocation sequence so far, block by block "
                        "(for an auditor or at unblinding; keep it from whoever enrolls)")


def _add_follow_ups(sub: Any) -> None:
    """consent, flags and inbox: what researchers follow during a study."""
    erase = _command(sub, "erase", "remove a participant's personal data (asks to confirm; cannot be undone)",
                     phone=True)
    erase.add_argument("--yes", action="store_true", help="do not ask to confirm")
    erase.add_argument("--by", help="who erased them, for the consent record (default: your user name)")
    _command(sub, "status", "the service's WhatsApp state, outbox backlog, uncertain sends, last model error",
             json=True)
    _command(sub, "consent", "a participant's consent history (enrolled, opted out/in, paused ...)", phone=True,
             json=True)
    flags = sub.add_parser("flags", help="safety flags (open ones; --all for every flag); "
                           "`flags resolve ID --note ...`")
    flags.add_argument("--all", action="store_true", help="resolved flags too")
    flags.add_argument("--json", action="store_true")
    flag_actions = flags.add_subparsers(dest="flags_action")
    resolve = flag_actions.add_parser("resolve", help="mark a flag as dealt with")
    resolve.add_argument("flag_id", type=int)
    resolve.add_argument("--note", required=True, help="what was done (kept with the flag)")
    resolve.add_argument("--by", help="who resolved it (default: your user name)")
    inbox = sub.add_parser("inbox", help="inputs waiting to be answered; --stuck for those that failed "
                           "(`inbox retry ID`, `inbox skip ID`)")
    inbox.add_argument("--stuck", action="store_true", help="only inputs that failed or keep failing")
    inbox.add_argument("--json", action="store_true")
    inbox_actions = inbox.add_subparsers(dest="inbox_action")
    retry = inbox_actions.add_parser("retry", help="try a failed input again from scratch")
    retry.add_argument("inbox_id", type=int)
    skip = inbox_actions.add_parser("skip", help="give up on an input (it stays in the transcript)")
    skip.add_argument("inbox_id", type=int)
    skip.add_argument("--by", help="who skipped it (default: your user name)")
