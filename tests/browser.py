"""A headless browser for the report tests (issue 35, item 4): Debian's ``chromium`` package,
driven through its command line (``--headless --dump-dom`` and ``--screenshot``), so no
browser build is downloaded at test time (``.ci/run`` installs the package with apt-get).

:func:`layout` renders an HTML file at a given window width and returns the document's scroll
width and client width, measured by a probe script appended to a copy of the file;
:func:`screenshot` writes a PNG. Tests skip with the reason when no browser is installed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

_PROBE = ("<script>document.title='deid-layout:'+JSON.stringify({"
          "scroll:document.documentElement.scrollWidth,"
          "client:document.documentElement.clientWidth,"
          "images:Array.from(document.images).filter(i=>i.complete&&i.naturalWidth>0).length,"
          "tables:document.querySelectorAll('table').length,"
          "cut:Array.from(document.querySelectorAll('.wrap'))"
          ".filter(b=>b.scrollWidth>b.clientWidth).length});</script>")


def chromium() -> str | None:
    """The browser's executable (``DBT_DEID_CHROMIUM``, else chromium on the PATH)."""
    chosen = os.environ.get("DBT_DEID_CHROMIUM")
    if chosen:
        return chosen
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _run(args: list[str], timeout: int = 120) -> subprocess.CompletedProcess:
    exe = chromium()
    assert exe is not None
    return subprocess.run(
        [exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--no-first-run", "--disable-dev-shm-usage", *args],
        capture_output=True, text=True, timeout=timeout)


def layout(page: Path, width: int = 1280, height: int = 900) -> dict[str, int]:
    """{scroll, client, images, tables, cut} of ``page`` rendered ``width`` pixels wide:
    the document's scroll and client widths, the images loaded, the tables, and the tables
    wider than their box (``cut``: they would scroll inside the page)."""
    probe = page.with_name(page.stem + ".probe.html")
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", _PROBE + "</body>"),
                     encoding="utf-8")
    try:
        out = _run([f"--window-size={width},{height}", "--virtual-time-budget=5000",
                    "--dump-dom", probe.resolve().as_uri()])
    finally:
        probe.unlink()
    m = re.search(r"<title>deid-layout:(\{.*?\})</title>", out.stdout)
    assert m, f"the probe did not run: {out.stderr[-2000:]}"
    return json.loads(m.group(1))


def screenshot(page: Path, png: Path, width: int = 1280, height: int = 4000) -> Path:
    """A PNG of ``page`` at ``width`` pixels (the top ``height`` pixels)."""
    _run([f"--window-size={width},{height}", "--virtual-time-budget=5000",
          f"--screenshot={png}", page.resolve().as_uri()])
    assert png.exists() and png.stat().st_size > 0, "no screenshot written"
    return png
