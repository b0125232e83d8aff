"""The official WhatsApp Cloud API (Meta's Graph API) behind the Transport protocol, for institutions that forbid linked
devices. Sends are POSTs (httpx); what people send comes to a webhook served here (:mod:`._cloud_webhook`).

Each number has its own 24-hour windows, rate-limit pause and state (:mod:`._cloud_states`); one in trouble is never
replaced by another. Outside the window only the study's template for the message kind goes (none: refused for good)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from typing import Any

import httpx

from promptpipe.domain.numbers import DEFAULT_NUMBER
from promptpipe.errors import ConfigError, NotConnected, SendFailed
from promptpipe.logging import get_logger, mask_phone
from promptpipe.study.rules.protocol import WhatsAppTemplate
from promptpipe.transport import _cloud_errors as cloud_errors
from promptpipe.transport import _cloud_payloads as payloads
from promptpipe.transport._cloud_states import NumberStates, check_numbers, json_of
from promptpipe.transport._cloud_webhook import WebhookApp, WebhookServer
from promptpipe.transport.base import (
    DeliveryReceipt,
    InboundHandler,
    InboundMessage,
    PollVote,
    ReceiptHandler,
    Recipient,
    SentMessage,
)
from promptpipe.transport.connection_state import ConnectionState, StateListener

__all__ = ["DEFAULT_BASE_URL", "DEFAULT_NUMBER", "SERVICE_WINDOW", "CloudApiOptions", "CloudApiTransport"]

DEFAULT_BASE_URL = "https://graph.facebook.com/v26.0"
SERVICE_WINDOW = timedelta(hours=24)
WINDOW_MARGIN = timedelta(minutes=5)
"""A message is sent free-form only while the window stays open this much longer (it may wait in the pace)."""
SEND_TIMEOUT_S = 30.0
CHATTER_TIMEOUT_S = 10.0

log = get_logger("promptpipe.transport.cloud_api")


@dataclass(frozen=True)
class CloudApiOptions:
    """``numbers``: name → phone number id, the default first. ``listen``: the webhook's host:port (empty: sends
    only). ``typing`` follows MARK_READ: the Cloud API shows "typing…" only while marking a message read."""

    token: str
    app_secret: str
    verify_token: str
    numbers: Mapping[str, str]
    listen: str = "127.0.0.1:8090"
    base_url: str = DEFAULT_BASE_URL
    templates: Iterable[tuple[str, WhatsAppTemplate]] = ()
    typing: bool = True
    debug: bool = False
    check_at_start: bool = False
    send_timeout_s: float = SEND_TIMEOUT_S


class CloudApiTransport:
    """An inbound message's ``number`` is the number it came to (None when the transport has one number)."""

    name = "cloud-api"
    resend_is_safe = False
    reaches_people = True
    sends_receipts = True

    def __init__(self, options: CloudApiOptions, *, now: Callable[[], datetime] = lambda: datetime.now(timezone.utc),
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self._ids: dict[str, str] = dict(options.numbers)
        if not self._ids or not all(self._ids.values()):
            raise ConfigError("the Cloud API transport needs a phone number id for each of its numbers "
                              "(CLOUD_API_PHONE_NUMBER_ID)")
        self._names = {number_id: name for name, number_id in self._ids.items()}
        if len(self._names) < len(self._ids):
            raise ConfigError("CLOUD_API_PHONE_NUMBER_ID names the same phone number id twice")
        self._default = next(iter(self._ids))
        self._options = options
        self.templates: Mapping[str, WhatsAppTemplate] = dict(options.templates)
        self._now, self._monotonic = now, monotonic
        self._http: httpx.AsyncClient | None = None
        self._on_message: InboundHandler | None = None
        self._on_receipt: ReceiptHandler | None = None
        self._webhook = WebhookServer(options.listen)
        self._last_wrote: dict[tuple[str, str], datetime] = {}
        """(Number name, phone digits) → when they last wrote to it. In memory only: after a restart every window
        counts as closed (a template at worst, where guessing open risks refusals or being treated as spam)."""
        self._last_message: dict[str, tuple[str, str]] = {}
        """Phone digits → the number name and id of their last message (for typing and read marks)."""
        self._multiple: dict[str, tuple[str, ...]] = {}
        """Poll message id → the options chosen so far, for multiple-choice polls sent since start."""
        self._paused_until: dict[str, float] = {}
        """Number name → until when (monotonic) its sends pause for the rate limit."""
        self._states = NumberStates(self._ids, now)

    def __repr__(self) -> str:
        return f"<CloudApiTransport numbers={','.join(self._ids)} webhook={self.webhook_url or 'off'}>"

    @property
    def numbers(self) -> Mapping[str, str]:
        """Number name → phone number id, the default first."""
        return dict(self._ids)

    def on_state_change(self, callback: StateListener) -> None:
        self._states.listener = callback

    @property
    def connection_states(self) -> dict[str, ConnectionState]:
        return self._states.states

    # ------------------------------------------------------------------ lifecycle

    @property
    def webhook_url(self) -> str:
        return self._webhook.url

    def _client(self) -> httpx.AsyncClient:
        if self._http is None:
            self._http = httpx.AsyncClient(
                base_url=self._options.base_url.rstrip("/"), headers={"Authorization": f"Bearer {self._options.token}"},
                timeout=httpx.Timeout(self._options.send_timeout_s, connect=10.0))
        return self._http

    async def start(self, on_message: InboundHandler, on_receipt: ReceiptHandler | None = None) -> None:
        self._on_message, self._on_receipt = on_message, on_receipt
        if self._options.check_at_start:
            await check_numbers(self._client(), self._ids, self._states)
        if self._options.listen and not self._webhook.running:
            await self._webhook.start(WebhookApp(app_secret=self._options.app_secret,
                                                 verify_token=self._options.verify_token, handle=self._take_in))

    async def stop(self) -> None:
        await self._webhook.stop()
        if self._http is not None:
            await self._http.aclose()
            self._http = None
        self._on_message = None

    # ------------------------------------------------------------------- inbound

    async def _take_in(self, payload: Any) -> None:
        """Hand every message over before the webhook answers 200; on a failure (500) Meta sends it again."""
        notification = payloads.read_notifications(payload, self._names)
        for msg in notification.messages:
            await self._hand_over(self._fold_vote(msg))
        for receipt in notification.receipts:
            log.debug("cloud_api_receipt", kind=receipt.kind, ids=len(receipt.message_ids))
            if self._on_receipt is not None:
                try:
                    await self._on_receipt(receipt)
                except Exception:
                    log.exception("cloud_api_receipt_handler_failed", kind=receipt.kind)
        for failure in notification.failures:
            log.warning("cloud_api_message_undelivered", message_id=failure.message_id, codes=list(failure.codes),
                        number=failure.number)
            for code in failure.codes:
                self._states.report_error(failure.number or self._default, 0, code)
            if failure.ref and self._on_receipt is not None:  # settles a send left uncertain
                await self._on_receipt(DeliveryReceipt((failure.message_id,), "failed", self._now(), ref=failure.ref))
        self._log_skipped(notification)

    async def _hand_over(self, msg: InboundMessage) -> None:
        number = msg.number or self._default
        digits = payloads.phone_digits(msg.sender_phone or "")
        self._last_wrote[number, digits] = self._now()
        self._last_message[digits] = (number, msg.message_id)
        kind = "poll_vote" if msg.poll_vote else msg.content
        fields = {"text": msg.text} if self._options.debug else {}
        log.info("cloud_api_message_received", message_id=msg.message_id, kind=kind, number=number,
                 sender=mask_phone(msg.sender_phone), **fields)
        if self._on_message is None:
            raise NotConnected("the Cloud API transport is not started")
        await self._on_message(msg if len(self._ids) > 1 else replace(msg, number=None))

    def _fold_vote(self, msg: InboundMessage) -> InboundMessage:
        """A tap on a multiple-choice list toggles its option, so the vote carries the whole selection as WhatsApp's
        own polls do (for polls sent since this process started; after a restart a tap counts alone)."""
        vote = msg.poll_vote
        if vote is None or vote.poll_message_id not in self._multiple:
            return msg
        chosen = list(self._multiple[vote.poll_message_id])
        for option in vote.selected_hashes:
            if option in chosen:
                chosen.remove(option)
            else:
                chosen.append(option)
        self._multiple[vote.poll_message_id] = tuple(chosen)
        return replace(msg, poll_vote=PollVote(vote.poll_message_id, tuple(chosen)))

    @staticmethod
    def _log_skipped(notification: payloads.Notification) -> None:
        if notification.skipped:
            log.info("cloud_api_notification_skipped", count=notification.skipped)
        for number_id in sorted(set(notification.foreign)):
            log.warning("cloud_api_foreign_number_skipped", phone_number_id=number_id,
                        changes=notification.foreign.count(number_id))

    # ------------------------------------------------------------------ numbers

    def _number(self, to: Recipient) -> str:
        number = to.number or self._default
        if number not in self._ids:
            raise SendFailed(f"the participant's WhatsApp number {number!r} is not one of this deployment's Cloud API "
                             f"numbers ({', '.join(self._ids)}); add it to CLOUD_API_PHONE_NUMBER_ID or move them",
                             retryable=False)
        return number

    def _pause_left(self, number: str) -> float:
        return self._paused_until.get(number, 0.0) - self._monotonic()

    # ------------------------------------------------------------------ the window

    def window_open(self, to: Recipient) -> bool:
        """Whether they wrote to their number within the last 24 hours (so a free-form message can go)."""
        last = self._last_wrote.get((to.number or self._default, payloads.phone_digits(to.phone)))
        return last is not None and self._now() < last + SERVICE_WINDOW - WINDOW_MARGIN

    def _template(self, kind: str) -> WhatsAppTemplate:
        template = self.templates.get(kind)
        if template is None:
            raise SendFailed(f"the participant's 24-hour WhatsApp service window is closed and the study file names "
                             f"no template for {kind or 'this kind of'} messages ([whatsapp_templates]), so it "
                             "cannot be sent until they write again", retryable=False)
        return template

    # ------------------------------------------------------------------ outbound

    async def send_text(self, to: Recipient, text: str, *, ref: str = "", kind: str = "") -> SentMessage:
        return await self._send(to, kind, ref, payloads.text_body(to.phone, text), text)

    async def send_poll(self, to: Recipient, question: str, options: Sequence[str], *, ref: str = "",
                        multiple: bool = False, kind: str = "") -> SentMessage:
        if not 2 <= len(options) <= payloads.LIST_OPTION_LIMIT:
            raise SendFailed(f"a Cloud API poll holds 2 to {payloads.LIST_OPTION_LIMIT} options; "
                             f"this one has {len(options)}", retryable=False)
        body = payloads.interactive_poll(to.phone, question, options, multiple=multiple)
        sent = await self._send(to, kind, ref, body, payloads.poll_in_words(question, options))
        if multiple:
            self._multiple[sent.message_id] = ()
        return sent

    async def _send(self, to: Recipient, kind: str, ref: str, body: payloads.MessageBody, words: str) -> SentMessage:
        """Free-form inside the window, else (or when the Cloud API says it closed) as the kind's template."""
        number = self._number(to)
        if self.window_open(to):
            try:
                return await self._post(to, number, kind, ref, body, as_template=False)
            except cloud_errors.WindowClosed:
                self._last_wrote.pop((number, payloads.phone_digits(to.phone)), None)
        template = self._template(kind)
        try:
            return await self._post(to, number, kind, ref, payloads.template_body(to.phone, template, words),
                                    as_template=True)
        except cloud_errors.WindowClosed:  # a template is never refused for the window; say so if it is
            raise SendFailed(f"the Cloud API refused template {template.name!r} as outside the service window",
                             retryable=False) from None

    async def _post(self, to: Recipient, number: str, kind: str, ref: str, body: payloads.MessageBody, *,
                    as_template: bool) -> SentMessage:
        if ref:
            body["biz_opaque_callback_data"] = ref
        wait = self._pause_left(number)
        if wait > 0:
            raise SendFailed(f"the Cloud API asked number {number!r} to slow down; its sending resumes in {wait:.0f} s",
                             retryable=True)
        try:
            response = await self._client().post(f"/{self._ids[number]}/messages", json=body)
        except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout) as exc:
            raise NotConnected(f"the Cloud API cannot be reached: {type(exc).__name__}") from None
        except httpx.HTTPError as exc:  # the request may have reached Meta: never send it twice
            log.warning("cloud_api_send_uncertain", to=mask_phone(to.phone), number=number, kind=kind,
                        error=type(exc).__name__)
            raise SendFailed(f"the Cloud API did not answer the send ({type(exc).__name__}); it may have arrived",
                             retryable=False, ambiguous=True) from None
        data = json_of(response)
        if response.status_code >= 300 or "error" in data:
            raise self._failure(response, to, number, kind)
        messages = data.get("messages") if isinstance(data.get("messages"), list) else []
        message_id = str(messages[0].get("id") or "") if messages and isinstance(messages[0], dict) else ""
        if not message_id:
            raise SendFailed("the Cloud API accepted the send without a message id; it may have arrived",
                             retryable=False, ambiguous=True)
        log.info("cloud_api_sent", to=mask_phone(to.phone), number=number, kind=kind or "text",
                 message_id=message_id, as_template=as_template)
        self._states.report(number, "connected")
        return SentMessage(message_id=message_id, timestamp=self._now())

    def _failure(self, response: httpx.Response, to: Recipient, number: str, kind: str) -> Exception:
        code, detail = cloud_errors.error_of(response)
        log.warning("cloud_api_send_failed", to=mask_phone(to.phone), number=number, kind=kind or "text",
                    status=response.status_code, code=code, error=detail)
        if code == cloud_errors.WINDOW_CLOSED_CODE:
            return cloud_errors.WindowClosed()
        if response.status_code == 429 or code in cloud_errors.RATE_LIMIT_CODES:
            pause = cloud_errors.retry_after(response.headers.get("retry-after"))
            if pause:
                self._paused_until[number] = max(self._paused_until.get(number, 0.0), self._monotonic() + pause)
            return SendFailed(f"the Cloud API's rate limit for number {number!r} "
                              f"(code {code or response.status_code}): tried again later", retryable=True)
        state = self._states.report_error(number, response.status_code, code)
        return cloud_errors.refusal(response.status_code, code, detail, number, state)

    # ------------------------------------------------------------------ chatter

    async def set_typing(self, to: Recipient, typing: bool) -> None:
        """The Cloud API has no call to clear "typing…" (it clears when we answer), so ``typing=False`` does nothing."""
        last = self._last_message.get(payloads.phone_digits(to.phone))
        if typing and self._options.typing and last:
            await self._chatter(to, last[0], payloads.read_body(last[1], typing=True))

    async def mark_read(self, to: Recipient, message_ids: Sequence[str]) -> None:
        """Marking the newest read marks those before it too; through the number their last message came to."""
        ids = [mid for mid in message_ids if mid]
        last = self._last_message.get(payloads.phone_digits(to.phone))
        number = last[0] if last else to.number or self._default
        if ids and number in self._ids:
            await self._chatter(to, number, payloads.read_body(ids[-1]))

    async def _chatter(self, to: Recipient, number: str, body: payloads.ReadBody) -> None:
        """Best effort, never raises, and skipped while the rate limit pauses the number's sends."""
        if self._pause_left(number) > 0:
            return
        try:
            response = await asyncio.wait_for(self._client().post(f"/{self._ids[number]}/messages", json=body),
                                              timeout=CHATTER_TIMEOUT_S)
            if response.status_code >= 300:
                log.debug("cloud_api_read_mark_refused", to=mask_phone(to.phone), status=response.status_code)
        except Exception as exc:
            log.debug("cloud_api_read_mark_failed", to=mask_phone(to.phone), error=type(exc).__name__)

