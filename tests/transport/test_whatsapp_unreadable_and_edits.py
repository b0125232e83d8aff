"""A message WhatsApp delivered but we could not decrypt is recorded (and so answered: the
participant hears we could not read it) under an id of its own, so the same message delivered
again once it can be read is no duplicate; an edit keeps the id of the message it replaces."""

from __future__ import annotations

from neonize.events import UndecryptableMessageEv
from neonize.proto.Neonize_pb2 import JID, MessageInfo, MessageSource
from neonize.proto.waCommon.WACommon_pb2 import MessageKey
from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import FutureProofMessage, Message, ProtocolMessage

from promptpipe.domain.messages import MessageKind
from promptpipe.pipeline.inbox import NON_TEXT_NOTES
from promptpipe.transport._neonize_mapping import to_inbound, unreadable_from
from tests.transport.test_whatsapp_mapping import event, pn
from tests.transport.test_whatsapp_transport import harness, settle

__all__ = ["harness"]


def undecryptable(*, is_group: bool = False, unavailable: bool = False) -> UndecryptableMessageEv:
    sender = pn()
    chat = JID(User="120363025246125888", Server="g.us") if is_group else sender
    source = MessageSource(Chat=chat, Sender=sender, IsGroup=is_group, IsFromMe=False)
    info = MessageInfo(MessageSource=source, ID="3EB0SECRET", Timestamp=1_767_610_800_000, Pushname="Ada")
    return UndecryptableMessageEv(Info=info, IsUnavailable=unavailable)


def test_an_undecryptable_message_becomes_an_unreadable_one_with_its_own_id() -> None:
    msg = unreadable_from(undecryptable())
    assert msg is not None
    assert (msg.content, msg.text, msg.sender_phone) == (MessageKind.UNREADABLE, "", "+14165550123")
    assert msg.message_id == "3EB0SECRET~unreadable"  # the real one, resent as 3EB0SECRET, is new
    assert unreadable_from(undecryptable(is_group=True)) is None
    assert "could not be decrypted" in NON_TEXT_NOTES[MessageKind.UNREADABLE]


async def test_the_transport_hands_an_undecryptable_message_to_the_service(harness) -> None:
    h = harness()
    await h.start_connected()
    await h.client.emit(UndecryptableMessageEv, undecryptable(unavailable=True))
    await settle(lambda: len(h.received) == 1)
    assert h.received[0].content == MessageKind.UNREADABLE
    assert h.log.find("whatsapp_message_undecryptable")


def test_an_edit_keeps_the_id_of_the_message_it_replaces() -> None:
    key = MessageKey(ID="3EB0ORIGINAL", fromMe=False)
    wrapped = event(Message(protocolMessage=ProtocolMessage(key=key, editedMessage=Message(conversation="30, not 20"))))
    unwrapped = event(Message(conversation="30, not 20"))  # as whatsmeow hands it over, the wrapper in Raw
    unwrapped.IsEdit = True
    unwrapped.Raw.CopyFrom(Message(protocolMessage=ProtocolMessage(key=key, editedMessage=Message(conversation="x"))))
    in_a_disappearing_chat = event(Message(conversation="30, not 20"))
    in_a_disappearing_chat.IsEdit = True
    in_a_disappearing_chat.Raw.CopyFrom(Message(ephemeralMessage=FutureProofMessage(message=Message(
        protocolMessage=ProtocolMessage(key=key, editedMessage=Message(conversation="x"))))))
    for ev in (wrapped, unwrapped, in_a_disappearing_chat):
        msg = to_inbound(ev)
        assert msg is not None and msg.edited and msg.edit_of == "3EB0ORIGINAL"
    plain = to_inbound(event(Message(conversation="hello")))
    assert plain is not None and plain.edit_of is None
