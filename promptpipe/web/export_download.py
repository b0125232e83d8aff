"""Downloads: export zip (API's and dashboard's; built in the state directory, deleted once sent), dashboard CSVs."""

from __future__ import annotations

import asyncio
import csv
import io
import shutil
import tempfile
import time
import zipfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from fastapi.responses import FileResponse, Response
from starlette.background import BackgroundTask

from promptpipe.export.cells import csv_cell
from promptpipe.export.files import ExportOptions, export_study
from promptpipe.research.tokens import Caller, audit
from promptpipe.storage.files import make_private_dir
from promptpipe.web.context import WebContext

__all__ = ["SCRATCH_PREFIX", "csv_download", "export_zip"]

SCRATCH_PREFIX = "promptpipe-export-"
STALE_AFTER_S = 3600.0


async def export_zip(ctx: WebContext, caller: Caller, *, fmt: str, include_identifiers: bool,
                     via: str) -> FileResponse:
    """The export as one zip (with ``include_identifiers``, the key file too), audited as done through ``via``."""
    root = await asyncio.to_thread(_scratch_root, ctx.settings.state_dir)
    scratch = tempfile.mkdtemp(prefix=SCRATCH_PREFIX, dir=root)
    out = Path(scratch) / "export"
    try:
        await export_study(ctx.reader, out, ExportOptions(fmt=fmt, include_identifiers=include_identifiers,
                           now=ctx.clock.now(), receipt_window=ctx.settings.delivery_receipt_window,
                           model=ctx.settings.genai_model, system_prompts=ctx.system_prompts))
        archive = await asyncio.to_thread(_zip, out, Path(scratch) / "export.zip")
    except BaseException:
        shutil.rmtree(scratch)
        raise
    await audit(ctx.db, ctx.clock, caller, "export", detail={"format": fmt, "identifiers": include_identifiers},
                via=via)
    stamp = ctx.clock.now().strftime("%Y%m%d-%H%M%S")
    return FileResponse(archive, media_type="application/zip", filename=f"promptpipe-export-{stamp}.zip",
                        background=BackgroundTask(shutil.rmtree, scratch))


def _scratch_root(state_dir: Path) -> Path:
    """Where downloads are built: in the state directory (0700), not a shared /tmp; what a killed
    service left there an hour or more ago is removed first (a kill skips the clean-up)."""
    root = state_dir / "exports"
    make_private_dir(root)
    horizon = time.time() - STALE_AFTER_S
    for left in root.glob(SCRATCH_PREFIX + "*"):
        if left.is_dir() and left.stat().st_mtime < horizon:
            shutil.rmtree(left)
    return root


def _zip(directory: Path, target: Path) -> Path:
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(directory.iterdir()):
            archive.write(path, arcname=path.name)
    return target


def csv_download(rows: Iterable[Sequence[object]], filename: str) -> Response:
    """``rows`` (the header first) as a CSV file to download, each cell safe for a spreadsheet."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([csv_cell(cell) for cell in row] for row in rows)
    return Response(out.getvalue(), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})
