"""Phone numbers: strict E.164 validation for what researchers type, lenient for WhatsApp's own."""

from __future__ import annotations

import re

import phonenumbers


def parse_e164(raw: str) -> str:
    """Validate a researcher-typed number; returns ``+<digits>`` or raises ValueError saying why."""
    text = raw.strip()
    if not text.startswith("+"):
        raise ValueError(f"{raw!r} is not in E.164 form: start with + and the country code, like +14165550123")
    if not re.fullmatch(r"\+[\d\s().-]+", text):
        raise ValueError(f"{raw!r} contains characters that are not digits")
    try:
        number = phonenumbers.parse(text, None)
    except phonenumbers.NumberParseException as exc:
        raise ValueError(f"{raw!r} is not a phone number ({exc})") from None
    if not phonenumbers.is_valid_number(number):
        raise ValueError(f"{raw!r} is not a valid number for its country code; check the digits")
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def from_whatsapp(digits_or_e164: str | None) -> str | None:
    """Numbers WhatsApp reports are already international; keep the digits, add the +."""
    if not digits_or_e164:
        return None
    digits = re.sub(r"\D", "", digits_or_e164)
    return "+" + digits if len(digits) >= 6 else None
