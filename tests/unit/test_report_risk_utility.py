"""The report's risk-utility picture (issue 36 item 4): every node OLA evaluated, records
suppressed against information loss, the released node marked; inline SVG, no value of a
record."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from dbt_deid.dbt_side.glue.ola import ola_search_frame
from dbt_deid.report.html import render_release_report
from dbt_deid.report.risk_utility import WIDTH, risk_utility_section, risk_utility_svg
from dbt_deid.risk import assess_release, threshold_preset

#: every record value and generalized value carries one of these markers
MARKERS = ("Qa", "Qb", "Qc", "Qs")


class _Quiet:
    def info(self, msg: str) -> None:
        pass


def _hierarchy() -> pd.DataFrame:
    rows = []
    for v in range(20, 40):
        lo5 = v - v % 5
        for lvl, g in enumerate([f"Qa{v}x", f"Qb{lo5}x", f"Qc{v - v % 10}x", "*"]):
            rows.append(("age", lvl, f"Qa{v}x", g))
    for s in ("QsF", "QsM"):
        rows += [("sex", 0, s, s), ("sex", 1, s, "*")]
    return pd.DataFrame(rows, columns=["qi_name", "level", "original_value",
                                       "generalized_value"])


def _patterns() -> pd.DataFrame:
    rows = [(f"Qa{v}x", s, 1 + (v + (s == "QsM")) % 3) for v in range(20, 40)
            for s in ("QsF", "QsM")]
    return pd.DataFrame(rows, columns=["age", "sex", "n"])


def _search(k: int = 10, max_suppression: float = 0.0, **generalization) -> pd.DataFrame:
    release = {
        "source": "src", "record_id": "id",
        "quasi_identifiers": {"age": {"hierarchy": "age_h"}, "sex": {"hierarchy": "sex_h"}},
        "k": k, "max_suppression": max_suppression,
        "generalization": {"search": "ola", **generalization},
    }
    return ola_search_frame(_patterns(), _hierarchy(), release, logger=_Quiet())


def _marks(svg: str) -> list[tuple[str, str]]:
    return re.findall(r'class="node (pass|fail|released)" data-node="([^"]*)"', svg)


@pytest.mark.parametrize(("k", "max_suppression", "generalization"), [
    (10, 0.0, {}), (20, 0.02, {}), (5, 0.1, {}),
    (10, 0.0, {"max_nodes": 1}),  # the heuristic search: the nodes it checked
])
def test_one_mark_per_evaluated_node_and_the_released_one_marked(
        k, max_suppression, generalization) -> None:
    search = _search(k, max_suppression, **generalization)
    nodes = search[search["role"] != "top"]
    assert len(nodes) == int(search["nodes_evaluated"].iloc[0])  # every evaluated node
    svg = risk_utility_svg(search, ["age", "sex"])
    marks = _marks(svg)
    assert sorted(n for _, n in marks) == sorted(
        f"{a},{s}" for a, s in zip(nodes["age"], nodes["sex"], strict=True))
    chosen = nodes[nodes["chosen"]]
    released = [n for kind, n in marks if kind == "released"]
    assert released == [f"{chosen['age'].item()},{chosen['sex'].item()}"]
    assert f"released: age={chosen['age'].item()}, sex={chosen['sex'].item()}" in svg
    others = nodes[~nodes["chosen"]]
    assert sum(kind == "pass" for kind, _ in marks) == int(others["passes"].sum())
    assert sum(kind == "fail" for kind, _ in marks) == int((~others["passes"]).sum())
    assert "records suppressed (%)" in svg and "information loss (entropy)" in svg
    assert ('class="maxsup"' in svg) == (0 < max_suppression < 1)
    assert f'width="{WIDTH}"' in svg and WIDTH <= 1280


def test_report_section_shows_no_record_value_and_no_external_asset() -> None:
    search = _search()
    published = pd.DataFrame({"age": ["Qc20x"] * 12 + ["Qc30x"] * 12,
                              "sex": ["*"] * 24})
    a = assess_release(published, ["age", "sex"], 0.2, count_column=None,
                       preset=threshold_preset("agreement"))
    plain = render_release_report([a], title="t")
    page = render_release_report([a], title="t", search_nodes=search)
    assert "risk-utility" not in plain and "risk-utility" in page
    section = "\n".join(risk_utility_section(search))
    assert "<svg" in section and "<script" not in section and "http://" not in section.replace(
        'xmlns="http://www.w3.org/2000/svg"', "")
    for marker in MARKERS:
        assert marker not in section
    assert f"all {len(search) - 1} nodes the search evaluated" in section


def test_section_says_when_not_every_evaluated_node_is_kept() -> None:
    search = _search()
    search["nodes_evaluated"] = 5000
    section = "\n".join(risk_utility_section(search))
    assert f"{len(search) - 1} of the 5,000 nodes the search evaluated" in section


def test_no_passing_node_plots_the_failing_ones_without_a_released_mark() -> None:
    search = _search(k=500, max_suppression=0.0)
    assert not search["chosen"].any()
    svg = risk_utility_svg(search, ["age", "sex"])
    marks = _marks(svg)
    assert marks and all(kind == "fail" for kind, _ in marks)
    assert "released:" not in svg
    assert "no node passes" in "\n".join(risk_utility_section(search))


def test_cli_ola_writes_the_picture(tmp_path, capsys) -> None:
    """``python -m dbt_deid ola --risk-utility FILE``: one mark per node the run evaluated,
    the released node marked, no record value."""
    import json

    from dbt_deid.tools.cli import main

    p = _patterns()
    data = tmp_path / "data.csv"
    p.loc[p.index.repeat(p["n"]), ["age", "sex"]].to_csv(data, index=False)
    args = ["ola", "--input", str(data), "--k", "10", "--max-suppression", "0"]
    h = _hierarchy()
    for q in ("age", "sex"):
        wide = h[h["qi_name"] == q].pivot(index="original_value", columns="level",
                                          values="generalized_value")
        wide.to_csv(tmp_path / f"{q}.csv", header=False, index=False, sep=";")
        args += ["--hierarchy", f"{q}={tmp_path / f'{q}.csv'}"]
    svg_path = tmp_path / "out" / "ru.svg"
    assert main([*args, "--hierarchy-delimiter", ";", "--risk-utility", str(svg_path)]) == 0
    out = json.loads(capsys.readouterr().out)
    svg = svg_path.read_text(encoding="utf-8")
    marks = _marks(svg)
    assert len(marks) == out["nodes_evaluated"]
    chosen = ",".join(str(out["chosen"][q]) for q in ("age", "sex"))
    assert [n for kind, n in marks if kind == "released"] == [chosen]
    for marker in MARKERS:
        assert marker not in svg


def test_axes_information_loss_on_x_and_suppression_on_y() -> None:
    """As ARX's GUI: x grows with the node's information loss, y (SVG grows downwards) with the
    records it suppresses; the MaxSup line is horizontal at MaxSup."""
    search = _search(20, 0.02)
    rows = search[search["role"] != "top"]
    svg = risk_utility_svg(search, ["age", "sex"])
    pos = {}
    for m in re.finditer(r'data-node="([^"]*)"[^>]*?(?:cx="([\d.]+)" cy="([\d.]+)"|'
                         r'd="M([\d.]+),([\d.]+))', svg):
        node = m.group(1)
        if m.group(2):
            pos[node] = (float(m.group(2)), float(m.group(3)))
        else:  # a path starts at the mark's top (released) or top-left corner (fail)
            pos[node] = (float(m.group(4)), float(m.group(5)))
    by_loss = rows.sort_values("entropy")
    lo, hi = by_loss.iloc[0], by_loss.iloc[-1]
    key = lambda r: f"{r['age']},{r['sex']}"  # noqa: E731
    assert pos[key(lo)][0] < pos[key(hi)][0]
    by_sup = rows.sort_values("suppressed")
    few, many = by_sup.iloc[0], by_sup.iloc[-1]
    assert many["suppressed"] > few["suppressed"]
    assert pos[key(many)][1] < pos[key(few)][1]
    line = re.search(r'class="maxsup" x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" y2="([\d.]+)"',
                     svg)
    assert line and line.group(2) == line.group(4) and line.group(1) != line.group(3)


def test_release_without_search_says_so_and_draws_nothing() -> None:
    """Levels set in the settings: deid_report_inputs has no search_nodes row, and the report
    says no search ran instead of drawing a picture."""
    empty = _search().iloc[:0]
    section = "\n".join(risk_utility_section(empty, searched=False))
    assert "set in the settings" in section and "no generalization search ran" in section
    assert "<svg" not in section
    assert risk_utility_section(None, searched=False) == []


def test_status_level_is_the_released_nodes() -> None:
    """With OLA, the report's released-levels table gives each QI the released node's level
    (from the search nodes of deid_report_inputs) and the search that chose it; without a
    released node, where to read it."""
    from dbt_deid.dbt_side.glue.report import ola_level

    search = _search(20, 0.02)
    chosen = search[search["chosen"]].iloc[0]
    assert ola_level(search, "age") == f"{int(chosen['age'])} (chosen by the optimal OLA search)"
    none = _search(k=500, max_suppression=0.0)
    assert ola_level(none, "age").startswith("chosen by OLA (deid_ola_levels")
    assert ola_level(None, "age").startswith("chosen by OLA")
