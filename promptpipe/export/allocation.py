"""The unblinded allocation list (``admin export --unblind``): one row per place reached in each stratum's sequence (and
the rest of the last block), to check against docs/allocation.md with the study's seed; never in the ordinary export."""

from __future__ import annotations

import csv
import json
import os
from itertools import groupby
from pathlib import Path

from sqlalchemy.orm import Session

from promptpipe.errors import AdminError
from promptpipe.export.temps import temp_name
from promptpipe.storage.db import Database
from promptpipe.storage.files import make_private_dir, open_private
from promptpipe.study.rules.allocation import places
from promptpipe.study.rules.protocol import Study
from promptpipe.study.store.allocation import allocation_scheme, allocations
from promptpipe.study.store.seed import study_seed

__all__ = ["ALLOCATION_LIST", "COLUMNS", "write_allocation_list"]

ALLOCATION_LIST = "allocation_list"
COLUMNS = ("stratum", "sequence", "block", "block_size", "position_in_block", "arm", "participant_id",
           "allocated_at_utc", "scheme")


def _rows(session: Session, study: Study) -> list[dict[str, str | int | None]]:
    taken = allocations(session)
    if not taken:
        return []
    seed, scheme = study_seed(session, None, study.outside_seed), allocation_scheme(session)
    out: list[dict[str, str | int | None]] = []
    for stratum, group in groupby(taken, key=lambda row: row.stratum):
        by_place = {row.sequence: row for row in group}
        last = max(by_place)
        last_block = None
        for place in places(seed, study.arms, study.allocation.block_sizes, stratum, scheme):
            if place.sequence == last:
                last_block = place.block
            if last_block is not None and place.block > last_block:
                break
            row = by_place.get(place.sequence)
            out.append({"stratum": stratum, "sequence": place.sequence, "block": place.block,
                        "block_size": place.block_size, "position_in_block": place.position, "arm": place.arm,
                        "participant_id": row.participant_id if row else None,
                        "allocated_at_utc": row.created_at.isoformat(timespec="seconds") if row else None,
                        "scheme": scheme})
    return out


async def write_allocation_list(db: Database, study: Study, out_dir: Path, fmt: str, *,
                                force: bool) -> tuple[Path, int]:
    """Write ``allocation_list.<fmt>`` into ``out_dir``; returns the path and the rows."""
    if not study.in_use:
        raise AdminError("there is no allocation list: the service runs without a study file")
    target = out_dir / f"{ALLOCATION_LIST}.{fmt}"
    if target.exists() and not force:
        raise AdminError(f"{target} exists: give --force to overwrite it")
    rows = await db.run(lambda session: _rows(session, study))
    make_private_dir(out_dir)
    temp = temp_name(out_dir, target.name)
    try:
        with open_private(temp, newline="") as stream:
            if fmt == "csv":
                writer = csv.DictWriter(stream, fieldnames=COLUMNS)
                writer.writeheader()
                writer.writerows({key: "" if value is None else value for key, value in row.items()} for row in rows)
            else:
                stream.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
        os.replace(temp, target)
    finally:
        temp.unlink(missing_ok=True)
    return target, len(rows)
