"""Request and response bodies of enrolment from a CSV file (``POST /api/v1/participants/import``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from promptpipe.research.csv_enrolment import MAX_IMPORT_CHARS, MAX_IMPORT_ROWS

__all__ = ["ImportOutcome", "ImportRequest", "ImportRowOut"]


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
