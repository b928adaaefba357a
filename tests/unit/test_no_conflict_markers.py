"""No merge-conflict markers in the repository's tracked text files (session 20: a session-19
merge left `<<<<<<< HEAD`, `=======` and `>>>>>>> s19-sparkexact` lines in docs/performance.md
for a session; the docs site built them as text)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MARKER = re.compile(r"^(<{7} |>{7} |={7}$)", re.MULTILINE)


def test_no_tracked_text_file_holds_a_conflict_marker() -> None:
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()
    found = []
    for name in files:
        path = ROOT / name
        if path.suffix not in {".md", ".py", ".sql", ".yml", ".yaml", ".toml", ".txt", ".cfg"}:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        found.extend(f"{name}:{text[:m.start()].count(chr(10)) + 1}" for m in MARKER.finditer(text))
    assert found == [], found
