"""The report every preprocessing step returns: counts of what it removed or changed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class StepReport:
    """What one preprocessing step did: rows in/out and named counts.

    ``details`` may hold thresholds (e.g. the top-code value); it is returned to the caller and
    never logged."""

    step: str
    rows_in: int
    rows_out: int
    changed: dict[str, int] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"step": self.step, "rows_in": self.rows_in, "rows_out": self.rows_out,
                **self.changed, **self.details}
