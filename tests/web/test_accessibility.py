"""Every page of the dashboard in Chromium, for layout and access: axe-core (vendored in
tests/web/vendor/, injected into the page, never served by the dashboard) finds no moderate,
serious or critical violation at 1280 px nor on a phone (390 px), where the header takes at most
two rows before the content; the page never scrolls sideways at 1280 px nor on a narrow phone
(375 px), where no legend, figure or form is cut off (tables may scroll inside their own frame);
every link, button and field is reachable with Tab (no positive tabindex, nothing focusable that
cannot be seen).

One browser session visits all the pages: as a researcher, then the main ones as a viewer, and the
tokens page as an admin. Each page's problems are collected and the test fails once, listing them
all, page by page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from promptpipe.app import App
from promptpipe.pilot import PilotDesk
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.web.browser import running_study
from tests.web.chromium import LAPTOP
from tests.web.test_questionnaire_api import questionnaire_met

pytestmark = [
    pytest.mark.parametrize("database_url", ["sqlite"], indirect=True),  # what a browser sees is the same
    pytest.mark.xdist_group("browser"),  # one Chromium at a time, on one worker of a parallel run
]

AXE_SOURCE = (Path(__file__).parent / "vendor" / "axe.min.js").read_text(encoding="utf-8")
PHONE = {"width": 390, "height": 844}
"""The phone the scan and the header are checked on."""
NARROW_PHONE = {"width": 375, "height": 740}
"""The narrowest phone the layout is checked on."""
HEADER_ROWS = 2
TAB_THROUGH = ("overview", "a participant", "enrol one")
"""Pages where Tab is really pressed until the focus comes round (the rest get the static checks)."""
FORMS = [  # (what, the form's page, its field, what to type, its button, what shows on the page it leads to)
    ("confirm a message", "{participant}", "Message to send them", "Hello from the study team.", "Review and send…",
     "button.primary >> text=Yes, send it"),
    ("confirm a broadcast", "/broadcast", "Message to send them", "Hello from the study team.", "Review and send…",
     "button.primary >> text=Yes, send it"),
    ("CSV preview with a problem", "/participants/import", "or paste its text",
     "phone,name,timezone\n+14165550150,Cleo Park,America/Toronto\n+1 555 0100,Dev Ray,America/Toronto\n",
     "Check the file", 'tr[data-line="3"]'),
    ("a running pilot's chat", "/pilot", "The sandbox participant's name (the study greets them by it)", "Sam",
     "Start the pilot", "section.pilot-chat >> text=Welcome Sam!"),
]
PILOT_GREETING = "Welcome Sam! Which small habit would you like to build?"
STATUS = {"error page": 404, "extend": 409}
"""Pages that answer with an error on purpose (the study file sets no length: no days to add)."""

AXE_RUN = """async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations.filter(v => ['moderate', 'serious', 'critical'].includes(v.impact)).map(v =>
    `axe at ${window.innerWidth} px: ${v.impact} ${v.id}: ${v.help}\\n` + v.nodes.slice(0, 5).map(n =>
      `      at ${n.target.join(' ')}: ${(n.failureSummary || '').replace(/\\s+/g, ' ')}`).join('\\n'));
}"""

KEYBOARD = """() => {
  const problems = [], root = document.documentElement;
  const name = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
    (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '') +
    ` "${(el.getAttribute('aria-label') || el.textContent || el.name || '').trim().slice(0, 40)}"`;
  for (const el of document.querySelectorAll('[tabindex]')) {
    if (el.tabIndex > 0) problems.push(`positive tabindex ${el.tabIndex} on ${name(el)}`);
  }
  const focusable = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]';
  // Whatever can take the focus must be seen when it has it (display: none cannot take it).
  for (const el of document.querySelectorAll(focusable)) {
    if (el.disabled || !el.getClientRects().length) continue;
    if (el.getAttribute('tabindex') === '-1' && el.matches('a[href], button, input, select, textarea')) {
      problems.push(`taken out of the Tab order: ${name(el)}`);
      continue;
    }
    el.focus();
    if (document.activeElement !== el) continue;
    const box = el.getBoundingClientRect(), style = getComputedStyle(el);
    if (box.width < 2 || box.height < 2 || box.right < 0 || box.left > root.scrollWidth ||
        style.visibility === 'hidden' || style.opacity === '0')
      problems.push(`focusable but not visible when focused: ${name(el)}`);
    el.blur();
  }
  return problems;
}"""

HEADER = """() => {
  // The header's rows: its pieces that show (links, fields, buttons, texts; not those clipped to a
  // pixel for screen readers) grouped by the line they sit on.
  const header = document.querySelector('body > header');
  if (!header) return {rows: 0, height: 0};
  const shows = el => { for (let up = el; up !== header; up = up.parentElement) {
    const box = up.getBoundingClientRect(); if (box.width <= 1 || box.height <= 1) return false; } return true; };
  const pieces = Array.from(header.querySelectorAll('a, input, button, summary, strong, .role, .brand'))
    .filter(shows).map(el => el.getBoundingClientRect()).sort((a, b) => a.top - b.top);
  let rows = 0, bottom = -Infinity;
  for (const box of pieces) {
    if (box.top >= bottom - 1) { rows += 1; bottom = box.bottom; } else bottom = Math.max(bottom, box.bottom);
  }
  return {rows, height: Math.round(header.getBoundingClientRect().height)};
}"""

LAYOUT = """(phone) => {
  const problems = [], width = window.innerWidth, root = document.documentElement;
  const scrolls = el => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
  const describe = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
    (typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\\s+/).join('.') :
     el.className && el.className.baseVal ? '.' + el.className.baseVal.split(/\\s+/).join('.') : '');
  const framed = el => { for (let up = el.parentElement; up && up !== document.body; up = up.parentElement)
    if (scrolls(up)) return true; return false; };
  if (root.scrollWidth > width) {
    // Name the innermost elements that push past the edge, so that the fix is easy to find.
    const past = el => el.getBoundingClientRect().right > width + 1 && !framed(el);
    const culprits = Array.from(document.body.querySelectorAll('*')).filter(el => past(el) &&
      !Array.from(el.children).some(past)).slice(0, 3).map(describe);
    problems.push(`the page scrolls sideways: ${root.scrollWidth} px in a ${width} px window (${culprits.join(', ')})`);
  }
  if (!phone) return problems;
  // Legends and figures must fit whole: a legend read by scrolling sideways is a clipped legend.
  for (const el of document.querySelectorAll('.legend-wrap, figure, legend, fieldset, form, .card, pre, blockquote')) {
    if (el.getClientRects().length && el.scrollWidth > el.clientWidth + 1)
      problems.push(`${describe(el)} is cut off at ${width} px (${el.scrollWidth} px of content in ${el.clientWidth})`);
  }
  // A chart or legend drawn past the edge of its own SVG frame is cut off whatever the window.
  for (const svg of document.querySelectorAll('svg.legend, figure svg')) {
    const view = svg.viewBox.baseVal, drawn = svg.getBBox();
    if (view && view.width && (drawn.x < view.x - 1 || drawn.x + drawn.width > view.x + view.width + 1))
      problems.push(`${describe(svg)} draws past its own edge (${Math.round(drawn.x + drawn.width)} of ${view.width})`);
  }
  // Anything that matters sticks out of the window only inside a frame of its own that scrolls.
  const matter = 'main table, main svg, main input, main select, main textarea, main button, h1, h2, main p, nav a';
  for (const el of document.querySelectorAll(matter)) {
    const box = el.getBoundingClientRect();
    if (!box.width || (box.left >= -1 && box.right <= width + 1)) continue;
    let frame = el.parentElement;
    while (frame && frame !== document.body && !scrolls(frame)) frame = frame.parentElement;
    const inFrame = frame && frame !== document.body && frame.getBoundingClientRect().right <= width + 1;
    const span = `${Math.round(box.left)} to ${Math.round(box.right)}`;
    if (!inFrame) problems.push(`${describe(el)} runs off the screen at ${width} px (${span})`);
  }
  return problems;
}"""


async def check(page: Any, label: str) -> list[str]:
    """This page's problems, each line naming the page."""
    await page.evaluate(AXE_SOURCE)  # not a script tag: the dashboard's CSP rightly refuses those
    found: list[str] = list(await page.evaluate(AXE_RUN))
    found += await page.evaluate(KEYBOARD)
    found += await page.evaluate(LAYOUT, False)
    await page.set_viewport_size(PHONE)
    found += await page.evaluate(AXE_RUN)
    header = await page.evaluate(HEADER)
    if header["rows"] > HEADER_ROWS:
        found.append(f"the header takes {header['rows']} rows ({header['height']} px) at {PHONE['width']} px,"
                     f" not at most {HEADER_ROWS}")
    await page.set_viewport_size(NARROW_PHONE)
    found += await page.evaluate(LAYOUT, True)
    await page.set_viewport_size(LAPTOP)
    return [f"{label}: {problem}" for problem in found]


async def visit(page: Any, url: str, label: str, problems: list[str], status: int = 200) -> None:
    answer = await page.goto(url)
    assert answer is not None
    if answer.status != status:
        problems.append(f"{label}: HTTP {answer.status}, not {status}")
    problems += await check(page, f"{label} ({url.split('/', 3)[-1] or '/'}, HTTP {answer.status})")


async def sign_in(page: Any, base: str, token: str) -> None:
    await page.goto(base + "/login")
    await page.get_by_label("Token").fill(token)
    await page.get_by_role("button", name="Sign in").click()
    await page.wait_for_url(base + "/")


async def signed_in_page(page: Any, base: str, token: str) -> Any:
    """A page of its own (its own cookies) in the same browser, signed in with ``token``."""
    other = await (await page.context.browser.new_context(viewport=LAPTOP)).new_page()
    await sign_in(other, base, token)
    return other


def researcher_pages(participant: str, day: str) -> list[tuple[str, str]]:
    """(what, path) of every page a researcher can open with a GET."""
    return [
        ("overview", "/"), ("participants", "/participants"), ("a participant", participant),
        ("timeline", f"{participant}/timeline"), ("a study day", day), ("adherence", "/adherence"),
        ("questionnaires", "/questionnaires"), ("flags", "/flags"), ("a flag", "/flags/1"),
        ("report", "/report"), ("audit log", "/audit"), ("search results", "/search?q=o"),
        ("enrol one", "/participants/new"), ("CSV import", "/participants/import"),
        ("confirm pause", f"{participant}/confirm/pause"), ("edit", f"{participant}/edit"),
        ("withdraw", f"{participant}/withdraw"), ("erase", f"{participant}/erase"),
        ("extend", f"{participant}/extend"), ("broadcast", "/broadcast"), ("pilot", "/pilot"),
        ("error page", "/participants/P-0000000000/timeline"),
    ]


async def tab_through(page: Any, label: str) -> list[str]:
    """Press Tab until focus comes back round: every link, button and field, and every frame a wide
    table scrolls in, must have had it."""
    await page.evaluate("() => { document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0); }")
    expected = await page.evaluate("""() => Array.from(document.querySelectorAll(
        'a[href], button:not([disabled]), input:not([type=hidden]):not([disabled]), select, textarea, summary, ' +
        '[tabindex="0"]'))
        .filter(el => el.getClientRects().length && !el.closest('details:not([open])') || el.tagName === 'SUMMARY')
        .map((el, i) => { el.dataset.tabCheck = i; return i; })""")
    reached: set[int] = set()
    for _ in range(len(expected) + 5):
        await page.keyboard.press("Tab")
        at = await page.evaluate("() => document.activeElement && document.activeElement.dataset.tabCheck")
        if at is None:
            if reached:
                break
            continue
        reached.add(int(at))
    missed = await page.evaluate("(reached) => Array.from(document.querySelectorAll('[data-tab-check]'))"
                                 ".filter(el => !reached.includes(+el.dataset.tabCheck))"
                                 ".map(el => el.outerHTML.slice(0, 80))", sorted(reached))
    return [f"{label}: Tab never reaches {html}" for html in missed]


async def test_every_page_passes_the_scan_fits_a_phone_and_works_from_the_keyboard(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, page: Any,
) -> None:
    problems: list[str] = []
    async with running_study(make_app, fake_openai) as study:
        app, base, zofia = study.web.app, study.web.url, f"/participants/{study.zofia}"
        desk = PilotDesk(app.settings, app.clock, App.build)
        study.web.server.ctx.pilots = desk  # pilot mode offered, as `serve` does
        fake_openai.say(PILOT_GREETING, match="Participant: Sam")  # the pilot's greeting, in the chat scanned
        try:
            await visit(page, base + "/login", "sign-in page", problems)
            await sign_in(page, base, study.web.tokens["researcher"])
            await page.goto(base + "/adherence")
            day = await page.locator("a.cell-link").first.get_attribute("href")
            for label, path in researcher_pages(zofia, day):
                await visit(page, base + path, label, problems, STATUS.get(label, 200))
                if label in TAB_THROUGH:
                    problems += await tab_through(page, label)
            for label, path, field, text, button, then in FORMS:
                await page.goto(base + path.replace("{participant}", zofia))
                await page.get_by_label(field).fill(text)
                await page.get_by_role("button", name=button).click()
                await page.locator(then).first.wait_for()
                await page.wait_for_load_state("load")  # the answer's stylesheet too: under load it came after its HTML
                problems += await check(page, label)

            as_viewer = await signed_in_page(page, base, study.web.tokens["viewer"])
            for label, path in (("overview", "/"), ("a participant", zofia), ("timeline", f"{zofia}/timeline"),
                                ("adherence", "/adherence"), ("report", "/report")):
                await visit(as_viewer, base + path, f"viewer's {label}", problems)
            as_admin = await signed_in_page(page, base, study.web.tokens["admin"])
            await visit(as_admin, base + "/tokens", "tokens (admin)", problems)
            await visit(as_admin, base + "/tokens/viewer-token/revoke", "revoke a token (admin)", problems)
        finally:
            await desk.close()
    assert not problems, "\n".join(["Layout and access problems:", *problems])


async def test_a_questionnaires_responses_pass_the_scan_for_a_researcher_and_a_viewer(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, page: Any,
) -> None:
    """The responses page filled (four participants met the questionnaire: see
    :func:`tests.web.test_questionnaire_api.questionnaire_met`); the main study above has none."""
    problems: list[str] = []
    async with questionnaire_met(make_app, fake_openai) as met:
        base = met.web.url
        await sign_in(page, base, met.web.tokens["researcher"])
        await visit(page, base + "/questionnaires/baseline", "responses", problems)
        as_viewer = await signed_in_page(page, base, met.web.tokens["viewer"])
        await visit(as_viewer, base + "/questionnaires/baseline", "viewer's responses", problems)
    assert not problems, "\n".join(["Layout and access problems:", *problems])
