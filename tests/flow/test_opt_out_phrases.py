"""The many ways people say STOP are opt-outs without the model; messages that merely contain
the word are not (the model still hears those, and has its own opt-out tool)."""

from __future__ import annotations

import pytest

from promptpipe.flow.commands import STOPPED, as_command
from promptpipe.research import admin
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.flow.test_commands import ANA, send, started

ZWSP, ZWJ, ZWNJ, WJ = "\u200b", "\u200d", "\u200c", "\u2060"
BOM, SHY, LRM, VS16 = "\ufeff", "\u00ad", "\u200e", "\ufe0f"

OPT_OUTS = [
    "STOP", "stop", "Stop.", "STOP!!!", "stop?", " stop ", "STOP STOP", "stop stop stop", "STOP\nSTOP",
    "Stop\n\nstop", "STOP. STOP.", "stop, stop", "S T O P", "s.t.o.p", "ＳＴＯＰ", "ｓｔｏｐ",
    f"ST{ZWSP}OP", f"S{ZWJ}T{ZWNJ}O{WJ}P", f"{BOM}STOP", f"STOP{LRM}", f"st{SHY}op", f"STOP{VS16}", f"STOP {ZWSP}",
    "stop please", "please stop", "Please STOP!", "ok stop", "stop now", "stop now please", "stop thanks",
    "unsubscribe", "Unsubscribe me", "unsubscribe me please", "please unsubscribe me", "UNSUBSCRIBE UNSUBSCRIBE",
    "unsub", "opt out", "Opt-out", "opt me out", "optout", "remove me", "Remove me please", "remove me from the list",
    "take me off the list", "take me off", "stop sending", "stop sending me messages", "stop sending messages",
    "stop sending these", "stop all messages", "stop all", "stop all texts", "stop messaging me", "stop messages",
    "stop texting me", "stop texting", "stop contacting me", "no more messages", "no more texts", "dont text me",
    "don't message me", "do not contact me", "i want to unsubscribe", "I want to opt out", "i want to stop",
    "cancel", "end", "quit", "STOP 🛑", "🛑 stop 🛑", "stop 🙏",
]

NOT_OPT_OUTS = [
    "I can't stop eating crisps", "stop by the shop on the way home", "don't stop", "do not stop the messages",
    "how do I stop?", "stop it", "stopping is hard", "I stopped smoking", "nonstop day",
    "unstoppable today!", "I'll stop at the gym", "when does it end?", "the end of my shift", "quit sugar",
    "I want to quit smoking", "cancel my dentist appointment", "remove the reminder at 9", "stop sign",
    "the bus stop", "please don't stop sending these", "no more excuses", "no more sugar", "stop the clock",
    "I stopped at the park", "stop worrying", "", "   ", "🛑",
]


IN_OTHER_LANGUAGES = [
    "Stopp", "STOPP!", "stopp bitte", "stoppen", "abmelden", "bitte abmelden", "keine Nachrichten mehr", "hör auf",
    "стоп", "Стоп!", "хватит", "отписаться", "отпишите меня", "para", "¡Para!", "para por favor", "pare", "parar",
    "basta", "basta ya", "no más mensajes", "no mas mensajes", "darme de baja", "dar de baja", "arrête", "Arrête !",
    "arrete", "arrêtez", "arretez svp", "arrêter", "désabonner", "me désabonner", "desabonner", "plus de messages",
    "停止", "停止！", "退订", "取消订阅", "不要再发了", "别发了", "ストップ", "配信停止", "やめて", "中止", "그만",
    "수신거부", "afmelden", "smettila", "disiscrivimi", "توقف",
]
PLAIN_REFUSALS = [
    "do not text me anymore", "don't text me any more", "dont text me anymore", "do not message me anymore",
    "don't message me again", "do not contact me again", "leave me alone", "Leave me alone!", "please leave me alone",
    "I quit", "i quit!", "I quit the study", "i want to quit the study", "I want to leave the study",
    "take me out of the study", "I don't want these messages", "i dont want any more messages",
]
NOT_OPT_OUTS_ELSEWHERE = [
    "para mí es difícil", "para el gimnasio", "stopp den Bus", "arrête de fumer", "je vais arrêter de fumer",
    "停止线", "basta de azúcar", "leave me a note", "I quit smoking", "I quit sugar", "quit the gym",
    "leave me be for today", "I want to leave work early", "text me later", "do not text me before 9",
]


@pytest.mark.parametrize("text", [*IN_OTHER_LANGUAGES, *PLAIN_REFUSALS])
def test_unambiguous_opt_outs_in_other_languages_and_plain_words_are_commands(text: str) -> None:
    assert as_command(text) == "STOP"
    assert as_command(text, in_intake=True) == "STOP"


@pytest.mark.parametrize("text", NOT_OPT_OUTS_ELSEWHERE)
def test_those_words_inside_other_sentences_are_not(text: str) -> None:
    assert as_command(text) is None


@pytest.mark.parametrize("text", OPT_OUTS)
def test_each_way_of_saying_stop_is_an_opt_out(text: str) -> None:
    assert as_command(text) == "STOP"


@pytest.mark.parametrize("text", OPT_OUTS)
def test_stop_is_an_opt_out_in_intake_too(text: str) -> None:
    if text.lower() in ("cancel",):
        pytest.skip("in intake, 'cancel' puts intake on hold instead (see flow/lifecycle.py)")
    assert as_command(text, in_intake=True) == "STOP"


@pytest.mark.parametrize("text", NOT_OPT_OUTS)
def test_a_message_that_only_mentions_stopping_is_not_a_command(text: str) -> None:
    assert as_command(text) is None


def test_the_tables_are_big_enough_to_mean_something() -> None:
    assert len(set(OPT_OUTS)) >= 60 and len(set(NOT_OPT_OUTS)) >= 25


async def test_during_a_model_outage_the_apology_says_how_to_stop_and_plain_words_stop_at_once(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    from promptpipe.flow import APOLOGY

    app, transport = await started(make_app, fake_openai)
    fake_openai.fail(503, message="overloaded", match="", repeat=True)
    apology = await send(app, transport, "are you still there?")
    assert apology == APOLOGY and "send STOP" in apology
    assert await send(app, transport, "leave me alone") == STOPPED
    show = await admin.show(app.db, ANA)
    assert (show.status, show.paused_by) == ("paused", "participant")
