"""How a message's words are read for commands and the crisis screen: a plain ASCII message is read
exactly as the general Unicode rules read it ("Stop!!", "don't", "STOP\tnow" and every other
spelling), so the quick path for ASCII never changes what a participant's STOP means."""

from __future__ import annotations

import string

from hypothesis import given
from hypothesis import strategies as st

from promptpipe.domain.text import _normalise_any, normalise_words


@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_an_ascii_message_reads_as_the_unicode_rules_read_it(text: str) -> None:
    assert normalise_words(text) == _normalise_any(text)


@given(st.text(alphabet=string.ascii_letters + " '`!?.,-\t\n"))
def test_words_with_apostrophes_and_punctuation(text: str) -> None:
    assert normalise_words(text) == _normalise_any(text)


def test_what_participants_write() -> None:
    assert normalise_words("  STOP!! ") == "stop"
    assert normalise_words("Don't text me") == "dont text me"
    assert normalise_words("ＳＴＯＰ 🙏!") == "stop"
