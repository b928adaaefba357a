"""The docs site builds with `mkdocs build --strict` (any warning fails: a broken link, a
missing anchor, a page not in the nav, a missing snippet), and the README stays a short front
page whose every relative link resolves (issue 35, item 2)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"

#: Markdown links and images: [text](target) or ![alt](target), target without spaces.
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
#: Fenced code blocks (their brackets are code, not links).
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def slug(heading: str) -> str:
    """Python-Markdown's (mkdocs') and, for plain headings, GitHub's heading id."""
    text = re.sub(r"[^\w\s-]", "", heading.strip().lower())
    return re.sub(r"[-\s]+", "-", text).strip("-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text())
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*$", text, re.M)}


def relative_links(path: Path) -> list[str]:
    text = FENCE.sub("", path.read_text())
    return [t for t in LINK.findall(text)
            if not re.match(r"^[a-z][a-z0-9+.-]*:", t) and not t.startswith("#")]


def test_mkdocs_build_strict(tmp_path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
         str(REPO / "mkdocs.yml"), "--site-dir", str(tmp_path / "site")],
        cwd=REPO, capture_output=True, text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})  # Material's end-of-life banner
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-4000:]
    assert "WARNING" not in output, output[-4000:]
    assert (tmp_path / "site" / "settings-reference" / "index.html").exists()
    # the quick start is included from the README, not copied
    page = (tmp_path / "site" / "getting-started" / "index.html").read_text()
    assert "quickstart-file: dbt_project.yml" in page


def test_readme_is_a_short_front_page() -> None:
    lines = README.read_text().splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines (at most 250)"


def test_readme_relative_links_resolve() -> None:
    links = relative_links(README)
    assert links, "the README links to the docs"
    broken = []
    for link in links:
        target, _, anchor = link.partition("#")
        path = (README.parent / target).resolve()
        if not path.exists():
            broken.append(f"{link}: no such file")
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            broken.append(f"{link}: no heading with that anchor")
    assert not broken, broken


def test_link_checker_catches_a_broken_link(tmp_path) -> None:
    page = tmp_path / "README.md"
    page.write_text("# A\n\n## Two words\n\n[ok](#a) [doc](other.md#two-words) [x](http://e)\n"
                    "```\n[not a link](nowhere.md)\n```\n")
    assert relative_links(page) == ["other.md#two-words"]
    assert anchors(page) == {"a", "two-words"}
