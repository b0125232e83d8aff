"""What the WhatsApp session does when WhatsApp refuses it: give up, wait out a ban, stop, or let the back-off retry."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol

from promptpipe.transport import _whatsapp_support as support
from promptpipe.transport._neonize_mapping import redact_numbers
from promptpipe.transport.connection_state import ExitRequest

__all__ = ["RefusalHandlers"]


class _Session(Protocol):
    """What the handlers use of :class:`WhatsAppSession`, the class they are mixed into."""

    _log: Any
    _now: Callable[[], datetime]
    _ban_until: datetime | None
    _failure: str
    gave_up_reason: str | None

    def _set_state(self, name: str, *, detail: str = "", until: datetime | None = None,
                   keep_since: bool = False) -> None: ...

    def _request_exit(self, request: ExitRequest) -> None: ...

    async def _end_session(self) -> None: ...

    async def _give_up(self, state: str, **details: Any) -> None: ...


class RefusalHandlers:
    """Mixed into :class:`WhatsAppSession`; each handler's ``self`` is typed as the part of it it uses."""

    _ban_until: datetime | None
    _failure: str
    gave_up_reason: str | None

    async def _on_logged_out(self: _Session, ev: Any) -> None:
        self._set_state("logged_out")
        await self._give_up(
            "logged_out", reason=int(getattr(ev, "Reason", 0)),
            action="This device was unlinked from WhatsApp. Stop PromptPipe, delete the WhatsApp "
            "session database, start again and link the phone anew.",
        )

    async def _on_stream_replaced(self: _Session, _ev: Any) -> None:
        self._set_state("replaced")
        await self._give_up(
            "stream_replaced",
            action="Another program is using this WhatsApp session. Stop the other instance, "
            "then restart this one; never run two processes on one session database.",
        )

    async def _on_temporary_ban(self: _Session, ev: Any) -> None:
        """Wait the ban out, then connect again (in a fresh process); sends wait in the outbox."""
        until = support.ban_lifted_at(int(getattr(ev, "Expire", 0)), self._now())
        reason = support.BAN_REASONS.get(int(getattr(ev, "Code", 0)), f"code {int(getattr(ev, 'Code', 0))}")
        self._ban_until = until
        self._set_state("banned", until=until, detail=reason)
        self._log.error("whatsapp_temporarily_banned", reason=reason, until=until.isoformat(timespec="seconds"),
                        action="PromptPipe waits until the ban ends and then reconnects; messages wait in the outbox.")
        await self._end_session()

    async def _on_client_outdated(self: _Session, _ev: Any) -> None:
        self._set_state("outdated")
        self._request_exit(ExitRequest(support.OUTDATED_MESSAGE))
        await self._give_up("client_outdated", action=support.OUTDATED_MESSAGE)

    async def _on_connect_failure(self: _Session, ev: Any) -> None:
        """A refusal whatsmeow does not retry itself (503 it does; others have their own events): the back-off does."""
        reason = support.FAILURE_REASONS.get(int(getattr(ev, "Reason", 0)), f"reason {int(getattr(ev, 'Reason', 0))}")
        message = redact_numbers(str(getattr(ev, "Message", "")))
        if reason in support.HANDLED_ELSEWHERE:
            return
        if reason == "service_unavailable":
            self._log.warning("whatsapp_connect_refused", reason=reason, message=message,
                              hint="WhatsApp is busy; the library retries by itself")
            return
        self._failure = f"connect refused: {reason}" + (f" ({message})" if message else "")
        self._log.warning("whatsapp_connect_refused", reason=reason, message=message)
        await self._end_session()

    async def _give_up(self: _Session, state: str, **details: Any) -> None:
        """Logged out / replaced: reconnecting cannot help, so stop and tell the operator what to do."""
        self.gave_up_reason = state
        self._log.error(f"whatsapp_{state}", **details)
        await self._end_session()
