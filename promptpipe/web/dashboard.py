"""The dashboard: server-rendered pages at ``/`` for researchers (and, without phone numbers, names or message text, for
viewers), signed in with a token once and then a session cookie. No page runs a script or loads anything from elsewhere;
charts are SVG drawn on the server (:mod:`promptpipe.web.charts`). The pages are in :mod:`promptpipe.web.pages`."""

from __future__ import annotations

from fastapi import APIRouter

from promptpipe.web.pages import (
    actions,
    adherence,
    audit,
    broadcast,
    day,
    enrolment,
    flag,
    flags,
    inputs,
    lifecycle,
    overview,
    participant,
    participants,
    pilot,
    questionnaires,
    report,
    search,
    signin,
    timeline,
    tokens,
)
from promptpipe.web.pages._render import install

__all__ = ["install", "router"]

router = APIRouter(include_in_schema=False)
# participants and enrolment before participant: /participants/find, /new and /import are not ids
for _module in (signin, overview, participants, enrolment, participant, actions, inputs, lifecycle, broadcast,
                adherence, day, search, questionnaires, report, flags, flag, audit, tokens, timeline, pilot):
    router.include_router(_module.router)
