"""Enrolment from a CSV file through the API (see :mod:`promptpipe.research.csv_enrolment`). Its router is included
before the participants' (``/participants/{participant_id}`` would take ``import`` for an id)."""

from __future__ import annotations

from typing import NoReturn

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException

from promptpipe.research.csv_enrolment import MAX_IMPORT_CHARS, MAX_IMPORT_ROWS, check_import, run_import
from promptpipe.research.views import as_json
from promptpipe.web.api import ERRORS
from promptpipe.web.auth import Context, Researcher
from promptpipe.web.errors import ApiError

__all__ = ["ImportOutcome", "ImportRequest", "ImportRowOut", "router"]

router = APIRouter(prefix="/api/v1", responses=ERRORS)


class ImportRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    csv: str = Field(max_length=MAX_IMPORT_CHARS,
                     description="the file's text: UTF-8 CSV with a header row naming its columns: phone, name and "
                                 "timezone (required), background and number (optional: one of the deployment's "
                                 "WhatsApp numbers) and each field the study's allocation "
                                 f"is stratified by (required then); at most {MAX_IMPORT_ROWS:,} participants")
    dry_run: bool = Field(strict=True, description="true: check every row and write nothing; false: enrol every row, "
                                                   "only if no row has a problem (409 otherwise, and nothing is "
                                                   "written)")


class ImportRowOut(BaseModel):
    line: int = Field(description="where the row starts in the file (the header is line 1)")
    phone: str = Field(description="in E.164 when it is valid, else as the file has it")
    name: str
    timezone: str
    strata: dict[str, str]
    problem: str | None = Field(description="what is wrong with the row (null: ready, or enrolled)")
    participant_id: str | None = Field(description="the participant enrolled from this row (not in a dry run)")
    arm: str | None = Field(description="their arm, when the study has arms")
    number: str | None = Field(None, description="the WhatsApp number the row names (dry run) or the one they were "
                                                 "given")


class ImportOutcome(BaseModel):
    dry_run: bool
    problem: str | None = Field(description="the file's own problem (its header, size or encoding); its rows "
                                            "are not checked then")
    rows: list[ImportRowOut]
    total: int = Field(description="participants' rows in the file")
    ready: int = Field(description="rows without a problem")
    with_problems: int
    enrolled: int


@router.api_route("/participants/import", methods=["GET", "PUT", "PATCH", "DELETE", "OPTIONS"],
                  include_in_schema=False, response_model=None)
async def other_methods() -> NoReturn:
    """405 (with ``Allow: POST``): ``/participants/{participant_id}`` would take ``import`` for an id."""
    raise HTTPException(405)


@router.post("/participants/import", response_model=ImportOutcome, tags=["participants"])
async def import_participants(ctx: Context, body: ImportRequest, caller: Researcher) -> ImportOutcome:
    """Enrol many participants from a CSV file. With ``dry_run`` true, each row's problem (or none) and nothing written;
    with it false, every row is enrolled (each allocated and greeted as one enrolled alone, and audited), but only when
    neither the file nor any row has a problem: otherwise ``409 refused`` names the first problems and nothing is
    written. A row whose phone someone enrolled between the check and its turn comes back with its problem; the others
    are enrolled."""
    study = ctx.settings.study
    if body.dry_run:
        result = await check_import(ctx.db, ctx.clock, body.csv, study=study, numbers=ctx.settings.number_plan)
    else:
        result = await run_import(ctx.db, ctx.clock, body.csv, study=study, caller=caller, via="api",
                                    numbers=ctx.settings.number_plan)
        if result.enrolled == 0 and not result.clean:
            raise ApiError(409, f"nothing was enrolled: {result.problems()} (a dry run lists every row's problem)",
                           code="refused")
    return ImportOutcome.model_validate(as_json(result))
