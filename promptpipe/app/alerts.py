"""Safety alerts to ALERT_WEBHOOK_URL: one POST per flag, never their words. A flag is written pending with the
transaction that raised it, so a failure is retried with backoff, across restarts, until it gets through."""

from __future__ import annotations

import asyncio
import contextlib

import httpx

from promptpipe.clock import Clock
from promptpipe.domain.backoff import Backoff
from promptpipe.logging import get_logger
from promptpipe.storage.db import Database
from promptpipe.storage.flags import PendingAlert, pending_alerts, record_alert
from promptpipe.tls import client_context

log = get_logger("promptpipe.app.alerts")

POST_TIMEOUT_S = 10.0
ALERT_RETRY = Backoff(first_s=5.0, max_s=300.0)


def alert_body(alert: PendingAlert) -> dict[str, object]:
    """Enough to act on, nothing that identifies the participant outside the study or quotes them."""
    return {"event": "promptpipe.safety_flag", "flag_id": alert.flag_id, "participant_id": alert.participant_id,
            "severity": alert.severity, "source": alert.source, "raised_at": alert.created_at.isoformat()}


class AlertSender:
    def __init__(self, db: Database, clock: Clock, url: str, *, client: httpx.AsyncClient | None = None) -> None:
        self.db, self.clock, self.url = db, clock, url
        self._client = client or httpx.AsyncClient(timeout=POST_TIMEOUT_S, follow_redirects=False,
                                                   verify=client_context())
        self._kick = asyncio.Event()
        self._failures = 0
        self.sent = self.failed = 0

    def __repr__(self) -> str:
        return f"<AlertSender sent={self.sent} failed={self.failed}>"

    def kick(self) -> None:
        """New flags were committed: send them now."""
        self._kick.set()

    async def send_pending(self) -> int:
        """Post every pending alert once; returns how many got through."""
        delivered = 0
        for alert in await self.db.run(pending_alerts):
            ok = await self._post(alert)
            await self._record(alert.flag_id, ok)
            delivered += ok
        return delivered

    async def _record(self, flag_id: int, sent: bool) -> None:
        now = self.clock.now()
        await self.db.run(lambda session: record_alert(session, flag_id, sent=sent, now=now))

    async def _post(self, alert: PendingAlert) -> bool:
        try:
            response = await self._client.post(self.url, json=alert_body(alert))
            why: dict[str, object] = {} if response.is_success else {"status": response.status_code}
        except httpx.HTTPError as exc:
            why = {"error": type(exc).__name__}
        if why:
            self.failed += 1
            log.warning("alert_not_delivered", flag_id=alert.flag_id, participant_id=alert.participant_id, **why,
                        attempts=alert.attempts + 1)
            return False
        self.sent += 1
        log.info("alert_delivered", flag_id=alert.flag_id, participant_id=alert.participant_id, severity=alert.severity)
        return True

    async def run(self, poll_s: float) -> None:
        """Send what is pending at start, then whenever kicked; after a failure, back off."""
        while True:
            try:
                pending_before = self.failed
                await self.send_pending()
                self._failures = self._failures + 1 if self.failed > pending_before else 0
            except Exception as exc:  # the database is down: try again later
                self._failures += 1
                log.error("alert_pass_failed", error=str(exc)[:200])
            wait_s = ALERT_RETRY.delay_s(self._failures) if self._failures else max(poll_s, 30.0)
            self._kick.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._kick.wait(), wait_s)

    async def close(self) -> None:
        await self._client.aclose()
