"""The crisis screen reads the ways people in trouble actually write (and try to hide) it, and
keeps quiet for the everyday sentences that contain the same words."""

from __future__ import annotations

import pytest

from promptpipe.domain.safety import CrisisScreen

ZWSP, ZWJ, SHY = "\u200b", "\u200d", "\u00ad"

FLAGGED = [
    "I want to hang myself", "thinking about hanging myself tonight", "I'm going to slit my wrists",
    "i want to slit my wrist", "honestly kms", "KMS", "k m s", "I just want to unalive myself",
    "thinking of unaliving myself",
    "I want to be dead", "i wanna be dead", "I cannot go on like this", "i can't go on", "I can not go on anymore",
    "there's no point in living", "no point living any more", "what's the point of living", "I took a bottle of pills",
    "just swallowed a bottle of pills", "I took all my pills at once", "I took too many pills",
    "I overdosed last night",
    "someone is going to kill me", "he's going to kill me", "she is going to kill me", "he hits me when he drinks",
    "she hits me", "my husband hit me again... he hit me", "he beats me", "I'm scared of my husband",
    "I want to jump off a bridge", "thinking about jumping off a bridge", "gonna jump in front of a train",
    "I want to kill myself", "I want to end my life", "I'm suicidal", "feeling suicidal again", "suicide",
    "I wrote a suicide note", "I want to die", "i wish i was dead", "everyone would be better off without me",
    "I have nothing to live for", "I don't want to be alive", "I keep cutting myself", "I hurt myself on purpose",
    "I want to harm myself", "I'm not safe at home", "I'm not safe", "I'm done with life",
    f"ki{ZWSP}ll myself", f"kill{ZWSP}myself", f"su{ZWJ}ici{SHY}dal", f"S{ZWSP}U{ZWSP}I{ZWSP}C{ZWSP}I{ZWSP}D{ZWSP}E",
    "k i l l myself", "k1ll mys3lf", "su1c1de", "unal1ve myself", "KILL MYSELF", "End My Life.",
    "i watched suicide squad and now i want to kill myself", "ready to die", "I want to shoot myself",
    "I want to drown myself", "life isn't worth living", "throw myself off the balcony",
]

NOT_FLAGGED = [
    "I cut myself a slice of cake after the walk", "cut myself some slack today", "cut myself shaving, ouch",
    "We watched Suicide Squad last night", "coach made us do suicide sprints", "suicide runs at practice",
    "this workout is going to kill me", "my boss will kill me if I'm late", "these stairs are killing me",
    "I was killing myself laughing", "kill myself laughing at that video", "this habit is killing me lol",
    "I will spend my lifetime walking", "hang my coat up first", "hanging out with friends", "I hung the laundry",
    "slept in, went for a walk", "I did my stretches", "took my pills with breakfast", "took a vitamin pill",
    "the bottle of water helped", "I crossed the bridge on my run", "jumped on the trampoline", "jumping jacks done",
    "I can go on a walk at 5", "can't go to the gym today", "no point in rushing", "what's the point of this app?",
    "I'm dead tired", "dead lift day", "I'm done with my workout", "done with lunch", "ready to go",
    "I overdid it at the gym", "I walked 2.5 kms", "I overdosed on chocolate", "unalike",
    "he hits the gym daily", "she hit the snooze button", "it hit me that I forgot", "he beat me at tennis",
    "beats me why",
    "she beat me to the park", "my partner and I walked", "afraid of spiders", "scared of the dark",
    "I'm safe and sound", "not sure I'm safe to drive after 3 coffees", "kilometres: 5", "5 km walk",
    "k", "ok", "kms run today: 5", "I ran 3 km", "my wrist hurts a bit", "I want to be dedicated",
    "I want to live healthier", "I want to be alive to see my grandkids", "nothing to lose", "end of my shift",
    "killer workout", "dying to try that recipe", "the sunset was to die for",
]


@pytest.fixture(scope="module")
def screen() -> CrisisScreen:
    return CrisisScreen.load()


@pytest.mark.parametrize("text", FLAGGED)
def test_a_crisis_phrasing_is_flagged(screen: CrisisScreen, text: str) -> None:
    assert screen.match(text) is not None


@pytest.mark.parametrize("text", NOT_FLAGGED)
def test_an_everyday_sentence_is_not_flagged(screen: CrisisScreen, text: str) -> None:
    assert screen.match(text) is None


def test_the_tables_are_big_enough_to_mean_something() -> None:
    assert len(set(FLAGGED)) >= 60 and len(set(NOT_FLAGGED)) >= 60


def test_a_studys_own_exception_lets_a_listed_word_through_only_in_its_phrase() -> None:
    screen = CrisisScreen.of(["suicide", "!suicide prevention week"])
    assert screen.match("we ran a stall for suicide prevention week") is None
    assert screen.match("suicide prevention week made me think of suicide") == "suicide"
