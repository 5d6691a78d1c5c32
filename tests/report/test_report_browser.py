"""report.html in a real headless browser (issue 12 point 9): it renders, every
image decodes, the contents links lead to their sections, the CSV tables travel
with the page, and no request leaves it.

Needs Playwright (the ``browser`` extra: ``pip install playwright``) and
Debian's Chromium (``apt-get install -y chromium``, at ``/usr/bin/chromium``;
another binary: ``TTRSIM_CHROMIUM``); skipped with the reason where either is
missing. Playwright's own browser download is not used.
"""
import os
import shutil
from pathlib import Path

import pytest

from ttrsim.report.document import build_report

from helpers import game, make_results

CHROMIUM = os.environ.get("TTRSIM_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (pip install playwright)")
if not Path(CHROMIUM).is_file():
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install -y chromium)", allow_module_level=True)


@pytest.fixture(scope="module")
def page_of(tmp_path_factory):
    """A function: a report.html -> (page facts, requests made), read in Chromium."""
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)

        def read(html: Path, width: int = 390, height: int = 844):               # default: a phone
            page = browser.new_page(viewport={"width": width, "height": height})
            requests = []
            page.on("request", lambda r: requests.append(r.url))
            page.goto(html.as_uri(), wait_until="load")
            facts = page.evaluate("""() => ({
                title: document.title,
                h2: [...document.querySelectorAll('h2')].map(h => h.textContent),
                images: [...document.images].map(i => ({complete: i.complete, w: i.naturalWidth})),
                svgs: document.querySelectorAll('figure svg').length,
                contents: [...document.querySelectorAll('nav.contents a')].map(a => a.getAttribute('href')),
                ids: [...document.querySelectorAll('[id]')].map(e => e.id),
                csv: [...document.querySelectorAll('a[download]')].map(a => [a.download, a.href.slice(0, 21)]),
                scroll: document.documentElement.scrollWidth,
                findings: (() => { const h = document.getElementById('key-findings');
                                   const list = h && h.nextElementSibling;
                                   return h ? {top: h.getBoundingClientRect().top,
                                               first: list ? list.getBoundingClientRect().top : null} : null; })(),
            })""")
            page.close()
            return facts, requests
        yield read
        browser.close()


def test_report_renders_in_a_browser(tmp_path, page_of):
    games = [game([10, 5]), game([7, 7]), game([3, 9]), game([4, 8])] * 3
    path = make_results(tmp_path / "b", games=games, tickets=[dict(g=0, seat=0, ticket=0, completed=True)])
    rep = build_report(path, output=tmp_path / "rb", resamples=20, progress=False, images=("png", "svg"))
    facts, requests = page_of(rep.html)
    assert facts["title"].startswith("ttrsim report")
    assert facts["h2"][0] == "Key findings" and "Strategy comparison" in facts["h2"]
    assert facts["images"] and all(i["complete"] and i["w"] > 0 for i in facts["images"])   # every PNG decodes
    assert len(facts["images"]) == len(list((rep.folder / "charts").glob("*.png")))
    links = [h[1:] for h in facts["contents"]]
    assert "key-findings" in links and "win-rates" in links and set(links) <= set(facts["ids"])
    assert {d for d, _ in facts["csv"]} == {t.name for t in rep.tables}
    assert all(h == "data:text/csv;base64," for _, h in facts["csv"])
    assert requests == [rep.html.as_uri()]                                 # nothing but the page itself
    assert facts["scroll"] <= 390 + 1                                      # no sideways scrolling on a phone


def test_the_key_findings_are_on_the_first_screen(tmp_path, page_of):
    """The answer before the details: the findings' heading and first line within
    the first 700 px of a 1280x800 desktop window and of a 390x844 phone."""
    games = [game([10, 5]), game([7, 7]), game([3, 9]), game([4, 8])] * 3
    path = make_results(tmp_path / "b", games=games, tickets=[dict(g=0, seat=0, ticket=0, completed=True)])
    rep = build_report(path, output=tmp_path / "rb", resamples=20, progress=False, images=("png",))
    for width, height in ((1280, 800), (390, 844)):
        facts, _ = page_of(rep.html, width, height)
        assert facts["findings"] is not None
        assert facts["findings"]["top"] < 700 and facts["findings"]["first"] < 700, (width, facts["findings"])
