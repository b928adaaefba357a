"""HTML report (parsed with html.parser) and the risk/report CLI end to end."""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

from dbt_deid.report import render_report, write_report
from dbt_deid.risk import assess_release, threshold_preset
from dbt_deid.tools.cli import main

RARE = ["Zqx-Astronaut", "Vkw-Falconer", "Jpy-Farrier"]
ADULT = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "adult" / "adult.csv"


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.attrs: list[tuple[str, str, str]] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += [(tag, k, v or "") for k, v in attrs]

    def handle_data(self, data):
        self.text.append(data)


def parse(html_text: str) -> _Collector:
    c = _Collector()
    c.feed(html_text)
    c.close()
    return c


def records() -> pd.DataFrame:
    rows = [("M", "30-39", "Clerk")] * 12 + [("F", "30-39", "Clerk")] * 8
    rows += [("F", "40-49", "Nurse")] * 15
    rows += [("M", "40-49", RARE[0]), ("F", "20-29", RARE[1]), ("F", "20-29", RARE[2])]
    rows += [("M", "20-29", "Nurse")] * 2
    return pd.DataFrame(rows, columns=["sex", "age", "occupation"])


def visible(c: _Collector) -> str:
    values = [v for tag, k, v in c.attrs if not (tag == "img" and k == "src")]
    return "\n".join(c.text + values)


def test_report_never_shows_small_class_values():
    a = assess_release(records(), ["sex", "age", "occupation"], 0.2, count_column=None,
                       by="occupation", sampling_fraction=0.05,
                       preset=threshold_preset("agreement"))
    page = render_report(a)
    c = parse(page)
    text = visible(c)
    for value in RARE:
        assert value not in page
    assert "Clerk" in text and "Nurse" in text  # categories with >= k records are shown
    assert "other (n < k)" in text
    # self-contained: embedded PNGs only, no scripts or external resources
    srcs = [v for tag, k, v in c.attrs if tag == "img" and k == "src"]
    assert len(srcs) == 3 and all(s.startswith("data:image/png;base64,") for s in srcs)
    assert "script" not in c.tags and "link" not in c.tags
    assert not any(v.startswith(("http:", "https:")) for _, _, v in c.attrs)
    assert "does NOT meet the threshold" in text
    assert "Why this threshold." in text and "Determine Threshold" in text
    assert c.tags.count("table") >= 8


def test_write_report_with_small_areas(tmp_path):
    from dbt_deid.risk import assess_areas

    areas = pd.DataFrame({"area": ["K1A", "Zzz-Tiny"], "population": [20000, 150],
                          "records": [30, 2]})
    a = assess_release(records(), ["sex", "age"], 0.2, count_column=None,
                       areas=assess_areas(areas, 480, records_column="records"))
    out = write_report(a, tmp_path / "r.html", title="Test release")
    page = out.read_text(encoding="utf-8")
    assert "Zzz-Tiny" not in page and "K1A" in page
    assert "1 area(s) with fewer than k = 5" in page
    assert "outside the fitted population range" in page
    assert "<title>Test release</title>" in page


def write_csv(path: Path, frame: pd.DataFrame, sep: str = ",") -> str:
    frame.to_csv(path, index=False, sep=sep)
    return str(path)


def test_cli_risk_json(tmp_path, capsys):
    src = write_csv(tmp_path / "in.csv", records().assign(age=lambda f: f["age"].where(
        f.index != 0, "")), sep=";")
    rc = main(["risk", "--input", src, "--delimiter", ";", "--qi", "sex,age", "--tau", "0.2",
               "--sampling-fraction", "0.1"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert out["records"] == 40 and out["k"] == 5
    # the empty age is a missing value: its own category ("<missing>"), a sample unique
    assert out["sample_uniques"] == 2
    assert out["prosecutor"]["smallest_class"] == 1
    assert out["journalist_marketer"]["population_size"] == pytest.approx(400)
    assert out["uniqueness"]["selected_method"] in {"pitman", "zayatz"}
    assert not any(v in json.dumps(out) for v in RARE)


def test_cli_risk_with_population_table(tmp_path, capsys):
    src = write_csv(tmp_path / "in.csv", records())
    pop = pd.DataFrame({"sex": ["M", "F", "F", "M", "F"],
                        "age": ["30-39", "30-39", "40-49", "40-49", "20-29"],
                        "count": [120, 80, 150, 10, 40]})
    pop = pd.concat([pop, pd.DataFrame({"sex": ["M"], "age": ["20-29"], "count": [30]})])
    popf = write_csv(tmp_path / "pop.csv", pop)
    rc = main(["risk", "--input", src, "--qi", "sex,age", "--tau", "0.05", "--population", popf,
               "--population-count", "count"])
    out = json.loads(capsys.readouterr().out)["journalist_marketer"]
    assert rc == 0 and out["source"] == "population table"
    assert out["population_size"] == 430 and out["population_classes"] == 6
    assert out["journalist_max_risk"] == pytest.approx(1 / 10)  # (M, 40-49): F = 10


def test_cli_suppress_then_report(tmp_path, capsys):
    src = write_csv(tmp_path / "in.csv", records())
    pub = tmp_path / "pub.csv"
    assert main(["suppress", "--input", src, "--output", str(pub), "--k", "3",
                 "--combination", "sex,age,occupation"]) == 0
    capsys.readouterr()
    html_path = tmp_path / "report.html"
    rc = main(["report", "--input", src, "--published", str(pub), "--qi",
               "sex,age,occupation", "--preset", "audited", "--by", "age", "--output",
               str(html_path)])
    assert rc == 0
    page = html_path.read_text(encoding="utf-8")
    c = parse(page)
    text = visible(c)
    assert "meets the threshold" in text and "does NOT" not in text
    assert "Exact: smallest consistent set" in text
    for value in RARE:
        assert value not in page
    capsys.readouterr()
    main(["risk", "--input", src, "--published", str(pub), "--qi", "sex,age,occupation",
          "--tau", "0.3333333333333333"])
    out = json.loads(capsys.readouterr().out)
    assert out["prosecutor"]["ok"] and out["prosecutor"]["exact"]["smallest_class"] >= 3
    assert out["information_loss"]["cells_suppressed"] > 0


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--qi", "sex,zip", "--tau", "0.2"], "unknown column(s) ['zip']"),
        (["--qi", "sex", "--tau", "0"], "tau must be"),
        (["--qi", "sex"], "give --tau"),
        (["--qi", "sex", "--tau", "0.2", "--sampling-fraction", "2"], "sampling fraction"),
        (["--qi", "sex", "--tau", "0.2", "--population-size", "5"], "population size"),
        (["--qi", "sex,sex", "--tau", "0.2"], "repeats"),
        (["--qi", "sex", "--tau", "0.2", "--preset", "audited", "--sampling-fraction", "0.5",
          "--population-size", "10000"], "disagrees"),
    ],
)
def test_cli_bad_inputs(tmp_path, capsys, extra, message):
    src = write_csv(tmp_path / "in.csv", records())
    rc = main(["risk", "--input", src, *extra])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.startswith("error:") and message in err and err.count("\n") == 1


def test_cli_bad_files(tmp_path, capsys):
    src = write_csv(tmp_path / "in.csv", records())
    short = write_csv(tmp_path / "short.csv", records().iloc[:5])
    assert main(["risk", "--input", str(tmp_path / "nope.csv"), "--qi", "sex",
                 "--tau", "0.2"]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["report", "--input", src, "--published", short, "--qi", "sex", "--tau", "0.2",
                 "--output", str(tmp_path / "r.html")]) == 2
    assert "aligned row by row" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()
    empty = tmp_path / "empty.csv"
    empty.write_text("sex,age\n")
    assert main(["risk", "--input", str(empty), "--qi", "sex", "--tau", "0.2"]) == 2


def test_adult_benchmark(tmp_path, capsys):
    if not ADULT.exists():
        pytest.skip(f"Adult benchmark not found at {ADULT} (shared data is not in the repo)")
    qi = ["sex", "age", "race"]
    rc = main(["risk", "--input", str(ADULT), "--delimiter", ";", "--qi", ",".join(qi),
               "--tau", "0.2", "--sampling-fraction", "0.01"])
    out = json.loads(capsys.readouterr().out)
    frame = pd.read_csv(ADULT, sep=";", dtype=str)
    sizes = frame.groupby(qi).size()
    assert rc == 0 and out["records"] == len(frame) == 30162
    assert out["classes"] == len(sizes)
    assert out["sample_uniques"] == int((sizes == 1).sum())
    assert out["prosecutor"]["records_above_tau"] == int(sizes[sizes < 5].sum())
    assert out["prosecutor"]["mean_risk"] == pytest.approx(len(sizes) / len(frame))
    html_path = tmp_path / "adult.html"
    assert main(["report", "--input", str(ADULT), "--delimiter", ";", "--qi", ",".join(qi),
                 "--tau", "0.2", "--by", "native-country", "--output", str(html_path)]) == 0
    page = html_path.read_text(encoding="utf-8")
    counts = frame["native-country"].value_counts()
    for country, n in counts.items():
        shown = f">{html.escape(country)}<" in page
        assert shown == (n >= 5), country


def test_figure_cache_gives_the_drawn_figures_and_misses_on_other_data(tmp_path, monkeypatch):
    """DBT_DEID_FIGURE_CACHE (report/html.py): a second report of equal data reads every figure
    from the folder without drawing and is the same page; other data (another tau) draws."""
    from dbt_deid.report import html as report_html

    a = assess_release(records(), ["sex", "age", "occupation"], 0.2, count_column=None)
    monkeypatch.delenv(report_html.FIGURE_CACHE_ENV, raising=False)
    def page(assessment) -> str:  # the report without its time stamp
        return re.sub(r"Generated [0-9-]+ [0-9:]+ UTC", "", render_report(assessment, title="t"))

    drawn = page(a)
    monkeypatch.setenv(report_html.FIGURE_CACHE_ENV, str(tmp_path / "figures"))
    assert page(a) == drawn  # drawn and stored
    assert len(list((tmp_path / "figures").glob("*.html"))) == 3

    def no_drawing(*args, **kwargs):
        raise AssertionError("a figure was drawn although the folder holds it")

    monkeypatch.setattr(report_html, "_subplots", no_drawing)
    assert page(a) == drawn  # read back, nothing drawn
    other = assess_release(records(), ["sex", "age", "occupation"], 0.25, count_column=None)
    with pytest.raises(AssertionError, match="was drawn"):
        page(other)
