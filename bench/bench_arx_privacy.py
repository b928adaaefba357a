"""l-diversity and t-closeness figures of a release on Adult against ARX 3.9.2 (issue 36,
item 1 acceptance): not a test.

For each case (a release of Adult: quasi-identifiers generalized to a fixed node with ARX's
hierarchies, no suppression, and one sensitive column), prints the release's figures under
each model as dbt_deid computes them twice, by the gate's SQL (macros/gates/attribute_disclosure
.sql rendered outside dbt and run on DuckDB) and by the core's reference
(dbt_deid.attribute_disclosure), and ARX's verdicts around them:

* distinct l-diversity: the smallest number of distinct sensitive values in a class (L);
* entropy l-diversity: the smallest exp(entropy) of a class (E);
* recursive (c, 2)-diversity: the largest r_1 / (r_2 + ... + r_m) of a class (R);
* t-closeness: the largest EMD of a class (T) under the case's ground distance.

ARX has no call that returns these figures, so the script asks ARX (its own privacy model
classes, org.deidentifier.arx.criteria) whether the same node, with the lattice restricted to
it (minimum = maximum generalization per QI) and a suppression limit of 0, is anonymous at a
threshold just on either side of our figure: DistinctLDiversity(L) must pass and (L + 1) fail;
EntropyLDiversity(E (1 - eps)) pass and (E (1 + eps)) fail; RecursiveCLDiversity(c = R (1 +
eps), 2) pass and (c = R (1 - eps)) fail; the t-closeness model at t = T (1 + eps) pass and
T (1 - eps) fail (eps = 1e-6). Both verdicts as expected means ARX's figure equals ours to
within eps (relative). "equal" in the last column says so.

ARX is not bundled: give its library jar (``--arx-jar`` or ``ARX_JAR``, built as
bench/bench_arx_compare.py's docstring says) and have java and javac on the PATH; without it
the script prints the SQL against the reference only, and says so.

    python bench/bench_arx_privacy.py [--arx-jar PATH] [--data DIR]
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from dbt_deid import attribute_disclosure as ad  # noqa: E402
from tests.attribute_disclosure_sql import figures_sql  # noqa: E402

#: ../shared/data/adult beside the clone (or beside the folder of a worktree)
_PLACES = [p / "shared" / "data" / "adult" for p in (REPO.parent, REPO.parent.parent)]
ADULT = next((p for p in _PLACES if p.exists()), _PLACES[0])
EPS = 1e-6

#: (name, QI -> level, sensitive column, its ARX data type, ground distance)
NODE = {"sex": 0, "age": 3, "race": 1, "marital-status": 2, "education": 3,
        "native-country": 2, "workclass": 2}
CASES = [
    ("occupation/equal", NODE, "occupation", "string", "equal"),
    ("occupation/hierarchical", NODE, "occupation", "string", "hierarchical"),
    ("age/ordered", {"sex": 0, "race": 1, "marital-status": 2, "education": 3,
                     "native-country": 2, "workclass": 2, "occupation": 2}, "age", "integer",
     "ordered"),
    ("salary-class/equal", {**NODE, "sex": 1, "age": 4, "education": 2}, "salary-class",
     "string", "equal"),
]

DRIVER = r"""
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;

import org.deidentifier.arx.ARXAnonymizer;
import org.deidentifier.arx.ARXConfiguration;
import org.deidentifier.arx.ARXResult;
import org.deidentifier.arx.AttributeType;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataHandle;
import org.deidentifier.arx.DataType;
import org.deidentifier.arx.criteria.DistinctLDiversity;
import org.deidentifier.arx.criteria.EntropyLDiversity;
import org.deidentifier.arx.criteria.EqualDistanceTCloseness;
import org.deidentifier.arx.criteria.HierarchicalDistanceTCloseness;
import org.deidentifier.arx.criteria.OrderedDistanceTCloseness;
import org.deidentifier.arx.criteria.PrivacyCriterion;
import org.deidentifier.arx.criteria.RecursiveCLDiversity;

/** dbt_deid's driver (bench/bench_arx_privacy.py): args data.csv hierarchy-dir
    "qi=level,..." sensitive type jobs-file; a job line is "model;threshold[;l]"; prints
    "job;pass" or "job;fail" per line: is the one node anonymous under the model alone? */
public class DbtDeidArxPrivacy {

    private static Hierarchy hierarchy(String dir, String attribute) throws Exception {
        return Hierarchy.create(dir + "/adult_hierarchy_" + attribute + ".csv",
                                StandardCharsets.UTF_8, ';');
    }

    public static void main(String[] a) throws Exception {
        Map<String, Integer> levels = new HashMap<>();
        for (String p : a[2].split(",")) {
            String[] kv = p.split("=");
            levels.put(kv[0], Integer.parseInt(kv[1]));
        }
        String s = a[3];
        for (String job : Files.readAllLines(Paths.get(a[5]))) {
            if (job.trim().isEmpty()) continue;
            String[] j = job.split(";");
            double t = Double.parseDouble(j[1]);
            Data d = Data.create(a[0], StandardCharsets.UTF_8, ';');
            DataHandle h = d.getHandle();
            for (int c = 0; c < h.getNumColumns(); c++) {
                String name = h.getAttributeName(c);
                if (levels.containsKey(name)) {
                    d.getDefinition().setAttributeType(name, hierarchy(a[1], name));
                    d.getDefinition().setMinimumGeneralization(name, levels.get(name));
                    d.getDefinition().setMaximumGeneralization(name, levels.get(name));
                } else if (name.equals(s)) {
                    d.getDefinition().setAttributeType(name, AttributeType.SENSITIVE_ATTRIBUTE);
                    if (a[4].equals("integer")) {
                        d.getDefinition().setDataType(name, DataType.INTEGER);
                    }
                } else {
                    d.getDefinition().setAttributeType(name, AttributeType.INSENSITIVE_ATTRIBUTE);
                }
            }
            PrivacyCriterion m;
            switch (j[0]) {
            case "distinct": m = new DistinctLDiversity(s, (int) Math.round(t)); break;
            case "entropy": m = new EntropyLDiversity(s, t); break;
            case "recursive": m = new RecursiveCLDiversity(s, t, Integer.parseInt(j[2])); break;
            case "equal": m = new EqualDistanceTCloseness(s, t); break;
            case "ordered": m = new OrderedDistanceTCloseness(s, t); break;
            case "hierarchical":
                m = new HierarchicalDistanceTCloseness(s, t, hierarchy(a[1], s));
                break;
            default: throw new IllegalArgumentException(j[0]);
            }
            ARXConfiguration config = ARXConfiguration.create();
            config.addPrivacyModel(m);
            config.setSuppressionLimit(0d);
            ARXResult result = new ARXAnonymizer().anonymize(d, config);
            System.out.println(job + ";" + (result.getGlobalOptimum() != null ? "pass" : "fail"));
        }
    }
}
"""


def load(data: Path) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    frame = pd.read_csv(data / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    hier = {c: pd.read_csv(data / f"adult_hierarchy_{c}.csv", sep=";", header=None, dtype=str,
                           keep_default_na=False) for c in frame.columns}
    return frame, hier


def release(frame: pd.DataFrame, hier: dict[str, pd.DataFrame],
            levels: dict[str, int]) -> pd.DataFrame:
    """The QIs generalized to ``levels`` (ARX's hierarchies: column i is level i)."""
    out = pd.DataFrame({"rid": range(len(frame))})
    for qi, lvl in levels.items():
        h = hier[qi]
        out[qi] = frame[qi].map(dict(zip(h[0], h[lvl], strict=True))).to_numpy()
        if out[qi].isna().any():
            raise ValueError(f"{qi}: values missing from its hierarchy")
    return out


def ours(frame: pd.DataFrame, hier: dict[str, pd.DataFrame], levels: dict[str, int],
         sensitive: str, kind: str, distance: str) -> tuple[dict, dict, float]:
    """(figures by the gate's SQL, figures by the reference, SQL seconds)."""
    truth = release(frame, hier, levels)
    values = frame[sensitive].astype(int) if kind == "integer" else frame[sensitive]
    src = pd.DataFrame({"rid": range(len(frame)), sensitive: values})
    con = duckdb.connect()
    con.register("t0", truth)
    con.register("s0", src)
    con.execute("create table truth as select * from t0")
    con.execute("create table src as select * from s0")
    h = None
    if distance == "hierarchical":
        levels_frame = hier[sensitive].set_axis(
            [f"level_{i}" for i in range(hier[sensitive].shape[1])], axis=1)
        con.register("h0", levels_frame)
        con.execute("create table h as select * from h0")
        h = "h"
    start = time.process_time()
    sql = figures_sql(con, list(levels), sensitive,
                      {"t": 1.0, "recursive_c": 1.0, "recursive_l": 2},
                      hierarchy=h, ordered=distance == "ordered")
    seconds = time.process_time() - start
    by_sql = {"distinct_l": int(sql["min_distinct"]), "entropy_l": float(sql["min_entropy_l"]),
              "recursive_ratio": float(sql["max_recursive_ratio"]), "t": float(sql["max_emd"])}
    merged = truth.assign(**{sensitive: values.to_numpy()})
    fig = ad.class_figures(merged, list(levels), sensitive, distance=distance,
                           hierarchy=ad.hierarchy_rows(hier[sensitive]) if h else None,
                           recursive_l=2)
    ref = ad.release_figures(fig)
    return by_sql, ref, seconds


def jobs(fig: dict, distance: str) -> list[tuple[str, str, str]]:
    """(job line, expected verdict, figure) pairs around our figures."""
    out = [(f"distinct;{fig['distinct_l'] + 1}", "fail", "distinct_l"),
           (f"entropy;{fig['entropy_l'] * (1 + EPS)!r}", "fail", "entropy_l")]
    if fig["distinct_l"] >= 2:  # ARX takes l >= 1 only
        out.append((f"distinct;{fig['distinct_l']}", "pass", "distinct_l"))
    if fig["entropy_l"] * (1 - EPS) >= 1:
        out.append((f"entropy;{fig['entropy_l'] * (1 - EPS)!r}", "pass", "entropy_l"))
    if math.isfinite(fig["recursive_ratio"]) and fig["recursive_ratio"] > 0:
        out += [(f"recursive;{fig['recursive_ratio'] * (1 + EPS)!r};2", "pass",
                 "recursive_ratio"),
                (f"recursive;{fig['recursive_ratio'] * (1 - EPS)!r};2", "fail",
                 "recursive_ratio")]
    if fig["t"] > 0:
        out += [(f"{distance};{fig['t'] * (1 + EPS)!r}", "pass", "t"),
                (f"{distance};{fig['t'] * (1 - EPS)!r}", "fail", "t")]
    return out


def run_arx(java: str, jar: Path, workdir: Path, data: Path, levels: dict[str, int],
            sensitive: str, kind: str, lines: list[str]) -> tuple[dict[str, str], float]:
    job_file = workdir / "jobs.txt"
    job_file.write_text("\n".join(lines) + "\n")
    cp = os.pathsep.join([str(workdir), str(jar)])
    spec = ",".join(f"{q}={lvl}" for q, lvl in levels.items())
    start = time.monotonic()
    done = subprocess.run([java, "-Xmx2g", "-cp", cp, "DbtDeidArxPrivacy",
                           str(data / "adult.csv"), str(data), spec, sensitive, kind,
                           str(job_file)], capture_output=True, text=True)
    seconds = time.monotonic() - start
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    verdicts = {}
    for line in done.stdout.splitlines():
        job, _, verdict = line.rpartition(";")
        verdicts[job] = verdict
    return verdicts, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arx-jar", type=Path, default=os.environ.get("ARX_JAR"))
    parser.add_argument("--data", type=Path, default=ADULT)
    args = parser.parse_args()
    frame, hier = load(args.data)
    java, javac = shutil.which("java"), shutil.which("javac")
    arx = args.arx_jar is not None and args.arx_jar.exists() and java and javac
    if not arx:
        print("ARX not run (no --arx-jar / ARX_JAR, or no java/javac): the gate's SQL is"
              " compared against the core's reference only")
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        if arx:
            (workdir / "DbtDeidArxPrivacy.java").write_text(DRIVER)
            subprocess.run([javac, "-cp", str(args.arx_jar), "-d", str(workdir),
                            str(workdir / "DbtDeidArxPrivacy.java")], check=True)
        print(f"Adult: {len(frame)} records; figures of each release (worst class)")
        print(f"{'case':26} {'figure':16} {'SQL':>12} {'reference':>12} {'ARX':>10}")
        agree = total = 0
        for name, levels, sensitive, kind, distance in CASES:
            by_sql, ref, sql_s = ours(frame, hier, levels, sensitive, kind, distance)
            verdicts: dict[str, str] = {}
            arx_s = 0.0
            pairs = jobs(by_sql, distance)
            if arx:
                verdicts, arx_s = run_arx(java, args.arx_jar, workdir, args.data, levels,
                                          sensitive, kind, [j for j, _, _ in pairs])
            for key in ("distinct_l", "entropy_l", "recursive_ratio", "t"):
                same = math.isclose(by_sql[key], ref[key], rel_tol=1e-9, abs_tol=1e-12)
                mine = [(j, e) for j, e, f in pairs if f == key]
                if arx and mine:
                    ok = all(verdicts.get(j) == e for j, e in mine)
                    col = "equal" if ok else "DIFFERS"
                    agree += ok
                    total += 1
                else:
                    col = "-" if not arx else "n/a"
                print(f"{name:26} {key:16} {by_sql[key]:12.6f} {ref[key]:12.6f} {col:>10}"
                      + ("" if same else "  SQL != reference"))
            print(f"{'':26} (SQL {sql_s:.2f} s CPU; ARX JVM {arx_s:.1f} s wall for"
                  f" {len(pairs)} single-node runs)")
        if arx:
            print(f"ARX agrees on {agree} of {total} figures")


if __name__ == "__main__":
    main()
