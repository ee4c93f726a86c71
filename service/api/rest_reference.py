"""The REST reference served at ``/reference``: Redoc's page for the committed OpenAPI document, built by
Redocly's ``build-docs`` (@redocly/cli, pinned in package-lock.json) and made to load nothing from
elsewhere, so the service needs no Node at run time and the page works offline.

``build-docs`` writes a page that pre-renders the whole reference, fetches Redoc's browser bundle from
Redocly's CDN and hydrates it with an inline script (the spec and Redoc's state). The service's pages
allow scripts from their own origin only (``service/api/docs_pages.py``), so the build keeps the page
and moves the rest under ``service/static/reference/``:
- ``redoc.standalone.js``, byte for byte the bundle of the ``redoc`` package @redocly/cli depends on
  (the version the CDN address names), with its licences in ``LICENSES.txt``;
- ``rest.js``, the inline script as a file (the spec and the options; see ``RENDER``).
The page records the SHA-256 of the OpenAPI document and Redoc's version, so a test tells when it is
stale without Node.

Written by ``make openapi``: ``python -m service.api.rest_reference`` (needs ``npx``: ``make`` installs it).
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OPENAPI = ROOT / "openapi" / "openapi.json"
OUT = ROOT / "service" / "static" / "reference"
REDOC = ROOT / "node_modules" / "@redocly" / "cli" / "node_modules" / "redoc"
ASSETS = "/static/reference"
SOURCE_META = "atout-source"
"""The ``<meta name>`` holding ``openapi.json sha256:<hex> redoc <version>``: what the page was built from."""
TITLE = "Atout REST reference"

CDN_SCRIPT = re.compile(
    r'<script src="https://cdn\.redocly\.com/redoc/v(?P<version>[^/"]+)/bundles/redoc\.standalone\.js">'
    r"</script>"
)
FETCHED_ELSEWHERE = re.compile(
    r"""<(?:script|link|img|iframe)\b[^>]*\s(?:src|href)=["']((?:https?:)?//[^"']+)"""
)
INLINE_SCRIPT = re.compile(r"<script>(?P<code>.*?)</script>", re.S)
IMAGES_POLICY = """<meta http-equiv="Content-Security-Policy" content="img-src 'self' data:">"""
"""Redoc's bundle always loads the "API docs by Redocly" logo from its CDN (no option turns it off, and
it hides the image when that fails): refused by the page itself, so the docs site's copy, served
without the service's headers, fetches nothing either."""
HYDRATE = "Redoc.hydrate(__redoc_state, container);"
RENDER = "Redoc.init(__redoc_state.spec.data, __redoc_state.options, container);"
"""Redoc renders the spec afresh over the pre-rendered page rather than hydrating it: hydration fails
on ``build-docs``'s pages (React errors #418 and #423, then a full render anyway: Redocly/redoc#2734).
The pre-rendered page stays for a reader without scripts."""


def source_line(openapi: bytes, redoc_version: str) -> str:
    return f"openapi.json sha256:{hashlib.sha256(openapi).hexdigest()} redoc {redoc_version}"


def self_contained(page: str, source: str) -> tuple[str, str, str]:
    """``build-docs``'s page made to load only ``/static/reference/``: (the page, ``rest.js``, the
    Redoc version its CDN address named). Anything else it would fetch is an error, not a page."""
    cdn = CDN_SCRIPT.search(page)
    if cdn is None:
        raise ValueError("build-docs no longer loads redoc.standalone.js from the CDN: check its template")
    inline = INLINE_SCRIPT.findall(page)
    if len(inline) != 1:
        raise ValueError(f"build-docs wrote {len(inline)} inline scripts, expected one (Redoc's state)")
    page = page.replace(cdn.group(0), f'<script src="{ASSETS}/redoc.standalone.js"></script>')
    page = INLINE_SCRIPT.sub(f'<script src="{ASSETS}/rest.js"></script>', page)
    page = page.replace("<html>", '<html lang="en">', 1).replace(
        "<head>", f'<head>\n  <meta name="{SOURCE_META}" content="{source}">\n  {IMAGES_POLICY}', 1
    )
    outside = FETCHED_ELSEWHERE.findall(page)
    if outside:
        raise ValueError(f"the page still loads from elsewhere: {outside[:3]}")
    if HYDRATE not in inline[0]:
        raise ValueError("build-docs's script no longer hydrates as expected: check its template")
    return page, inline[0].replace(HYDRATE, RENDER).strip() + "\n", cdn.group("version")


def redoc_version() -> str:
    """The version of the ``redoc`` package installed with @redocly/cli (its bundle is what we serve)."""
    found = re.search(r'"version":\s*"([^"]+)"', (REDOC / "package.json").read_text(encoding="utf-8"))
    if found is None:
        raise ValueError(f"no version in {REDOC / 'package.json'}")
    return found.group(1)


def build_docs(openapi: Path) -> str:
    """``redocly build-docs`` on ``openapi``, its page as text (no Google fonts: they are fetched)."""
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "redoc.html"
        command = ["npx", "--no-install", "redocly", "build-docs", str(openapi), "-o", str(raw)]
        command += ["--disableGoogleFont", "--title", TITLE]
        subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        return raw.read_text(encoding="utf-8")


def licences() -> str:
    """Redoc's licence and those of what its bundle carries (the notices webpack collected)."""
    version = redoc_version()
    notices = (REDOC / "bundles" / "redoc.standalone.js.LICENSE.txt").read_text(encoding="utf-8")
    return f"redoc {version}\n\n{(REDOC / 'LICENSE').read_text(encoding='utf-8')}\n{notices}"


def build(openapi: Path = OPENAPI, out: Path = OUT) -> None:
    """Write ``index.html``, ``rest.js``, ``redoc.standalone.js`` and ``LICENSES.txt`` into ``out``."""
    version = redoc_version()
    page, script, named = self_contained(build_docs(openapi), source_line(openapi.read_bytes(), version))
    if named != version:
        raise ValueError(f"build-docs names Redoc {named}, the installed bundle is {version}")
    out.mkdir(parents=True, exist_ok=True)
    (out / "index.html").write_text(page, encoding="utf-8")
    (out / "rest.js").write_text(script, encoding="utf-8")
    shutil.copyfile(REDOC / "bundles" / "redoc.standalone.js", out / "redoc.standalone.js")
    (out / "LICENSES.txt").write_text(licences(), encoding="utf-8")


if __name__ == "__main__":
    build(*(Path(arg) for arg in sys.argv[1:3]))
