"""Messaging transports: the protocol the service talks to and the normalised messages. Only this package imports
a WhatsApp library; the service sees only :class:`InboundMessage`, :class:`Recipient` and :class:`SentMessage`."""

from promptpipe.transport.base import (
    DeliveryReceipt,
    InboundHandler,
    InboundMessage,
    PollVote,
    Reaction,
    ReceiptHandler,
    Recipient,
    SentMessage,
    Transport,
    poll_option_hash,
)

__all__ = ["DeliveryReceipt", "InboundHandler", "InboundMessage", "PollVote", "Reaction", "ReceiptHandler", "Recipient",
           "SentMessage", "Transport", "poll_option_hash"]
