"""Enrolment from the dashboard, for researchers and admins: one participant (``/participants/new``) or many from a
CSV file, checked first with nothing written (``/participants/import``). Each goes through the same operation as
``promptpipe-admin enroll`` and is audited (``via="dashboard"``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

from fastapi import APIRouter, Depends, File, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from promptpipe.domain.limits import BACKGROUND_CHARS, NAME_CHARS
from promptpipe.domain.localtime import IANA_ZONES
from promptpipe.errors import AdminError, ConfigError, StorageError
from promptpipe.research import admin, csv_enrolment
from promptpipe.research.enrolment_checks import Details, check_details, field_words
from promptpipe.research.tokens import audit
from promptpipe.study.rules.protocol import Study
from promptpipe.study.store.protocol import ProtocolChanged
from promptpipe.web.errors import protocol_words, status_for
from promptpipe.web.pages._render import Acting, PageError, Visitor, attempt, identified_only, render
from promptpipe.web.pages.participant import checked_id
from promptpipe.web.pages.participants import participant_url, plain

__all__ = ["router"]

router = APIRouter()
ZONES = sorted(IANA_ZONES)
STRATUM_PREFIX = "stratum_"


enrolling = identified_only("Only researchers and admins enrol participants")


@dataclass(frozen=True)
class Stratum:
    name: str
    allowed: tuple[str, ...]


@dataclass(frozen=True)
class Typed:
    """What the enrolment form holds (as typed, kept when it is refused)."""

    phone: str = ""
    name: str = ""
    timezone: str = ""
    background: str = ""
    strata: dict[str, str] = field(default_factory=dict)
    number: str = ""
    """The WhatsApp number chosen (empty: by the rule; only with several numbers)."""


@dataclass(frozen=True)
class Enrolled:
    id: str
    url: str
    name: str
    phone: str
    arm: str | None
    number: str
    """Their WhatsApp number (empty when the deployment has one)."""
    opted_out: bool = False
    """Their number's owner had sent STOP before an erasure: nothing goes until they write START."""


def _strata(study: Study) -> list[Stratum]:
    return [Stratum(name, tuple(allowed)) for name, allowed in study.allocation.strata]


def _enrol_page(request: Request, found: Visitor, *, typed: Typed | None = None, problems: dict[str, str] | None = None,
                error: str = "", enrolled: Enrolled | None = None, status_code: int = 200) -> HTMLResponse:
    plan = found.ctx.settings.number_plan  # with one number, the form does not ask for one
    return render(request, "enrol.html", found, section="participants", typed=typed or Typed(), problems=problems or {},
                  error=error, enrolled=enrolled, strata=_strata(found.ctx.settings.study), zones=ZONES,
                  name_chars=NAME_CHARS, background_chars=BACKGROUND_CHARS, rule=plan.rule.describe(),
                  numbers=plan.numbers if plan.several else (), status_code=status_code)


@router.get("/participants/new", response_class=HTMLResponse)
async def enrol_form(request: Request, found: Annotated[Visitor, Depends(enrolling)],
                     enrolled: str = "") -> HTMLResponse:
    done = None
    if enrolled:
        row = await attempt(admin.show(found.ctx.reader, checked_id(enrolled)))
        plan = found.ctx.settings.number_plan
        done = Enrolled(row.id, participant_url(row.id), row.name, row.phone, row.arm,
                        plan.of(row.number) if plan.several else "", row.opted_out)
    return _enrol_page(request, found, enrolled=done)


@router.post("/participants/new", response_class=HTMLResponse)
async def enrol_one(request: Request, found: Acting,
                    phone: Annotated[str, Form()] = "", name: Annotated[str, Form()] = "",
                    timezone: Annotated[str, Form()] = "", background: Annotated[str, Form()] = "",
                    number: Annotated[str, Form()] = "") -> Response:
    ctx, study, plan = found.ctx, found.ctx.settings.study, found.ctx.settings.number_plan
    form = await request.form()
    strata = {stratum.name: str(form.get(STRATUM_PREFIX + stratum.name, "")) for stratum in _strata(study)}
    typed = Typed(phone.strip(), name.strip(), timezone.strip(), plain(background), strata,
                  number.strip() if plan.several else "")
    _, problems = check_details(study, Details(typed.phone, typed.name, typed.timezone, typed.background, strata))
    refused = {p.field: p.message for p in problems}
    if typed.number and typed.number not in plan.numbers:  # empty: the rule chooses
        refused["number"] = (f"there is no WhatsApp number {typed.number[:40]!r}; this deployment has "
                             f"{', '.join(plan.numbers)}")
    if refused:
        return _enrol_page(request, found, typed=typed, problems=refused,
                           error="Not enrolled: correct what is marked below.", status_code=400)
    try:
        row = await admin.enroll(ctx.db, ctx.clock, admin.Enrolment(
            phone=typed.phone, name=typed.name, timezone=typed.timezone, background=typed.background,
            by=found.caller.name, study=study, strata=strata, numbers=plan, number=typed.number or None))
    except AdminError as exc:  # the phone is enrolled already, or the rule names no number for them
        problem = field_words(exc, default="phone")
        return _enrol_page(request, found, typed=typed, problems={problem.field: problem.message},
                           error="Not enrolled: correct what is marked below.", status_code=status_for(exc)[0])
    except (ProtocolChanged, ConfigError) as exc:  # the study file is not the protocol the database runs, or its seed
        words = protocol_words(exc) if isinstance(exc, ProtocolChanged) else str(exc)  # is not the one it ran with
        return _enrol_page(request, found, typed=typed, error=f"Not enrolled: {words}", status_code=409)
    except StorageError:
        raise PageError(503, "The database cannot be reached right now; try again in a moment.") from None
    await audit(ctx.db, ctx.clock, found.caller, "enroll", participant_id=row.id, via="dashboard",
                detail={"arm": row.arm, **({"number": plan.of(row.number)} if plan.several else {})})
    return RedirectResponse(f"/participants/new?enrolled={row.id}", status_code=303)


def _import_page(request: Request, found: Visitor, *, text: str = "",
                 result: csv_enrolment.ImportResult | None = None, error: str = "",
                 status_code: int = 200) -> HTMLResponse:
    study = found.ctx.settings.study
    return render(request, "import.html", found, section="participants", text=text, result=result, error=error,
                  columns=csv_enrolment.columns_for(study),
                  required=(*csv_enrolment.REQUIRED_COLUMNS, *study.allocation.stratum_fields),
                  strata=_strata(study), max_rows=csv_enrolment.MAX_IMPORT_ROWS, status_code=status_code)


@router.get("/participants/import", response_class=HTMLResponse)
async def import_form(request: Request, found: Annotated[Visitor, Depends(enrolling)]) -> HTMLResponse:
    return _import_page(request, found)


async def _uploaded(file: UploadFile | None, pasted: str) -> str:
    data = await file.read() if file is not None else b""
    if data:
        return csv_enrolment.decode_upload(data)
    if not pasted.strip():
        raise AdminError("choose a CSV file, or paste its text, then check it")
    return pasted


@router.post("/participants/import", response_class=HTMLResponse)
async def import_file(request: Request, found: Acting,
                      file: Annotated[UploadFile | None, File()] = None, csv: Annotated[str, Form()] = "",
                      step: Annotated[str, Form()] = "check") -> HTMLResponse:
    """``step=check``: the preview (nothing written); ``step=enrol``: the same text, enrolled."""
    ctx, study = found.ctx, found.ctx.settings.study
    if step == "enrol":
        result = await attempt(csv_enrolment.run_import(ctx.db, ctx.clock, csv, study=study, caller=found.caller,
                                                        via="dashboard", numbers=ctx.settings.number_plan))
        refused = result.enrolled == 0 and not result.clean
        return _import_page(request, found, text=csv, result=result, status_code=409 if refused else 200,
                            error="Nothing was enrolled: the file has a problem now (shown below)." if refused else "")
    try:
        text = await _uploaded(file, csv)
    except AdminError as exc:
        return _import_page(request, found, text=csv, error=f"Not checked: {exc}.", status_code=400)
    result = await attempt(csv_enrolment.check_import(ctx.db, ctx.clock, text, study=study,
                                                      numbers=ctx.settings.number_plan))
    return _import_page(request, found, text=text, result=result)
