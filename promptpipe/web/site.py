"""The web application: the API under ``/api/v1``, ``/health``, the dashboard at ``/`` (server-rendered pages that
run no script and load nothing from elsewhere) and its vendored static files."""

from __future__ import annotations

import functools
from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.routing import BaseRoute

from promptpipe import __version__
from promptpipe.web import api, api_attention, api_enrolment, api_inputs, api_search, api_timeline
from promptpipe.web.api_gate import ApiGate
from promptpipe.web.context import WebContext
from promptpipe.web.errors import install_error_handlers
from promptpipe.web.pages import (
    actions,
    adherence,
    audit,
    broadcast,
    day,
    enrolment,
    flag,
    flags,
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
from promptpipe.web.security_headers import SecurityHeaders

__all__ = ["STATIC_DIR", "build_site"]

STATIC_DIR = Path(__file__).resolve().parent / "static"


def build_site(ctx: WebContext) -> FastAPI:
    # No /docs page: Swagger UI loads its script from a CDN. The schema is at /openapi.json.
    site = FastAPI(title="PromptPipe", version=__version__, docs_url=None, redoc_url=None,
                   description="Study participants, their messages and the study's data. Every endpoint but "
                               "/health needs a bearer token (`promptpipe-admin token create`).")
    site.state.ctx = ctx
    install_error_handlers(site)
    site.router.routes.extend(_routes())
    install(site)
    site.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    site.add_middleware(ApiGate, max_body_bytes=ctx.settings.web_max_body_bytes)
    site.add_middleware(SecurityHeaders)
    return site


@functools.cache
def _routes() -> tuple[BaseRoute, ...]:
    """Every route, made once per process (~0.15 s of CPU) though it may serve several sites (pilots, tests): a route
    holds no state of its site, whose context the request finds in ``request.app.state``."""
    routes = APIRouter()
    # search and enrolment before /participants/{participant_id}: "search" and "import" are not ids
    for router in (api.health, api_search.router, api_enrolment.router, api.router, api_attention.router,
                   api_timeline.router, api_inputs.router):
        routes.include_router(router)
    # the pages: participants and enrolment before participant (/participants/find, /new and /import are not ids)
    for page in (signin, overview, participants, enrolment, participant, actions, lifecycle, broadcast,
                 adherence, day, search, questionnaires, report, flags, flag, audit, tokens, timeline, pilot):
        routes.include_router(page.router, include_in_schema=False)
    return tuple(routes.routes)
