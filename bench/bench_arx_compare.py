"""Side-by-side comparison with ARX (issue 18, item 5): not a test.

Runs dbt_deid's OLA and ARX's anonymizer on the same table, hierarchies, k, MaxSup and metric,
and prints, per cell, each tool's node, suppressed records, score and in-process time (ARX's
``anonymize`` call, best of ``--repeat`` after one warm-up run for the JIT; ours ``run_ola`` on
the pattern table, best of ``--repeat``), the ratio of the times, and the score of ARX's node
under *our* metric definition, so the two nodes can be compared under one definition (ours is
the best passing node of the lattice under it, so its score is never higher).

ARX is not part of this repository and is not fetched: give the path of an ARX library jar
with its dependencies (``--arx-jar`` or the ``ARX_JAR`` environment variable; e.g.
``libarx-3.9.2.jar`` from an ARX release) and have ``java`` and ``javac`` on the PATH. A small
driver calling ARX's public API is written to a temporary directory and compiled there. Without
them the script prints that it skipped and why, and exits 0. ARX's score of *our* node is
ARX's own evaluation of it: the driver runs ARX once more (untimed) with every QI's minimum and
maximum generalization set to our node's level, so the lattice is that one node.

Building the jar without Maven (as done for the docs' figures; Maven Central was not
reachable): from a checkout of ARX's sources (github.com/arx-deidentifier/arx, 3.9.2), compile
``src/main`` with ``javac -encoding UTF-8`` against the jars of ``lib/ant`` listed in ARX's
``build.xml`` (``lib.jars``: colt, commons-*, hppc, jhpl, exp4j, newtonraphson,
objectselector, univocity, poi, mahout, guava, slf4j, smile, pdfbox-layout, log4j), copy the
non-Java resources of ``src/main``, and pack the classes and the unpacked dependency jars into
one jar (what ``build.xml``'s ``jar-libs`` target does). If ``hadoop-core``, ``pdfbox-app`` or
``poi-ooxml-schemas`` is missing, leave ``certificate/ARXCertificate.java`` and
``certificate/resources/Watermark.java`` (PDF certificates) out and give javac one-line
placeholders of ``org.apache.pdfbox.pdmodel.font.PDFont`` and ``org.apache.hadoop.io.Writable``
on the compile classpath only: PDF certificates and logistic-regression statistics then fail at
run time, the anonymization engine (framework, algorithms, metrics, criteria) is ARX's own.

    python bench/bench_arx_compare.py [--arx-jar PATH] [--data DIR] [--k 5 20]
        [--max-suppression 0 0.01 0.05 1] [--metrics entropy loss discernibility] [--repeat 3]

The metric definitions differ in places (see docs/ola.md): for a suppressed
record, ARX's non-monotonic non-uniform entropy charges each cell its cost at the node's level
plus -log2 of the share of its generalized value among the suppressed records, ours -log2 of its
original value's share among all records (as if generalized to the root); ARX's loss charges
1/|domain| for an ungeneralized value (domain shares) and takes the geometric mean over the
attributes, ours (leaves - 1)/(all leaves - 1) averaged over the cells. Each node is therefore
scored under both definitions: ours (our node / ARX's node under dbt_deid's metric) and ARX's
(ARX's score of our node / of its own). The summary counts the cells where our node is not
worse under each.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from dbt_deid.ola import load_hierarchies, run_ola
from dbt_deid.ola.evaluate import NodeEvaluator
from dbt_deid.ola.metrics import Metrics

REPO = Path(__file__).resolve().parents[1]
ADULT = REPO.parent / "shared" / "data" / "adult"
ADULT_QIS = ["sex", "age", "race", "marital-status", "education", "native-country",
             "workclass", "occupation", "salary-class"]

DRIVER = r"""
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

import org.deidentifier.arx.ARXAnonymizer;
import org.deidentifier.arx.ARXConfiguration;
import org.deidentifier.arx.ARXLattice.ARXNode;
import org.deidentifier.arx.ARXResult;
import org.deidentifier.arx.AttributeType;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataHandle;
import org.deidentifier.arx.criteria.KAnonymity;
import org.deidentifier.arx.metric.Metric;

/** dbt_deid's driver for ARX's public API (bench/bench_arx_compare.py); prints one JSON line. */
public class DbtDeidArxDriver {

    private static Metric<?> metric(String name) {
        switch (name) {
        case "entropy": return Metric.createEntropyMetric(false);
        case "loss": return Metric.createLossMetric();
        case "discernibility": return Metric.createDiscernabilityMetric(false);
        case "precision": return Metric.createPrecisionMetric(false);
        default: throw new IllegalArgumentException("unknown metric " + name);
        }
    }

    private static Data load(String data, String pattern, String[] qis) throws Exception {
        Data d = Data.create(data, StandardCharsets.UTF_8, ';');
        Set<String> quasi = new HashSet<>(Arrays.asList(qis));
        DataHandle h = d.getHandle();
        for (int c = 0; c < h.getNumColumns(); c++) {
            String name = h.getAttributeName(c);
            if (!quasi.contains(name)) {
                d.getDefinition().setAttributeType(name, AttributeType.INSENSITIVE_ATTRIBUTE);
            }
        }
        for (String q : qis) {
            d.getDefinition().setAttributeType(
                q, Hierarchy.create(pattern.replace("{qi}", q), StandardCharsets.UTF_8, ';'));
        }
        return d;
    }

    private static ARXConfiguration config(int k, double sup, String metric) {
        ARXConfiguration config = ARXConfiguration.create();
        config.addPrivacyModel(new KAnonymity(k));
        config.setSuppressionLimit(sup);
        config.setQualityModel(metric(metric));
        return config;
    }

    /** Levels, suppressed records and ARX's score of a node of a result (null: none). */
    private static String describe(ARXResult result, ARXNode node, String[] qis) {
        if (node == null) {
            return "{\"levels\": [], \"suppressed\": null, \"score\": null}";
        }
        StringBuilder out = new StringBuilder("{\"levels\": [");
        for (int i = 0; i < qis.length; i++) {
            out.append(i == 0 ? "" : ", ").append(node.getGeneralization(qis[i]));
        }
        DataHandle handle = result.getOutput(node, false);
        int suppressed = 0;
        for (int r = 0; r < handle.getNumRows(); r++) {
            if (handle.isOutlier(r)) suppressed++;
        }
        return out.append("], \"suppressed\": ").append(suppressed)
                  .append(", \"score\": \"").append(node.getHighestScore()).append("\"}")
                  .toString();
    }

    public static void main(String[] a) throws Exception {
        String[] qis = a[2].split(",");
        int k = Integer.parseInt(a[3]);
        double sup = Double.parseDouble(a[4]);
        int repeat = Integer.parseInt(a[6]);
        long best = Long.MAX_VALUE;
        ARXResult result = null;
        for (int i = 0; i <= repeat; i++) {  // run 0 warms the JIT up and is not timed
            Data d = load(a[0], a[1], qis);
            ARXConfiguration config = config(k, sup, a[5]);
            long t = System.nanoTime();
            result = new ARXAnonymizer().anonymize(d, config);
            long elapsed = System.nanoTime() - t;
            if (i > 0) best = Math.min(best, elapsed);
        }
        String given = "null";
        if (a.length > 7 && !a[7].equals("-")) {
            // ARX's score of a given node (dbt_deid's): the lattice restricted to that node by
            // minimum = maximum generalization per QI; not timed
            String[] levels = a[7].split(",");
            Data d = load(a[0], a[1], qis);
            for (int i = 0; i < qis.length; i++) {
                int level = Integer.parseInt(levels[i]);
                d.getDefinition().setMinimumGeneralization(qis[i], level);
                d.getDefinition().setMaximumGeneralization(qis[i], level);
            }
            ARXResult fixed = new ARXAnonymizer().anonymize(d, config(k, sup, a[5]));
            given = describe(fixed, fixed.getGlobalOptimum(), qis);
        }
        System.out.println("{\"arx\": " + describe(result, result.getGlobalOptimum(), qis)
                           + ", \"given\": " + given + ", \"seconds\": " + (best / 1e9) + "}");
    }
}
"""


def skip(reason: str) -> None:
    print(f"bench_arx_compare: skipped: {reason}")
    sys.exit(0)


def prepare_driver(jar: Path, javac: str, workdir: Path) -> None:
    src = workdir / "DbtDeidArxDriver.java"
    src.write_text(DRIVER, encoding="utf-8")
    done = subprocess.run([javac, "-cp", str(jar), "-d", str(workdir), str(src)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        skip(f"the driver does not compile against {jar} (not an ARX 3.9-style library jar?):"
             f" {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else 'no output'}")


def run_arx(java: str, jar: Path, workdir: Path, data: Path, pattern: str, qis: list[str],
            k: int, sup: float, metric: str, repeat: int, ours: tuple[int, ...] | None) -> dict:
    """ARX's optimum (``arx``), its in-process time (best of ``repeat`` after a warm-up run)
    and ARX's own score of our node ``ours`` (``given``; the lattice restricted to it)."""
    cp = os.pathsep.join([str(workdir), str(jar)])
    given = "-" if ours is None else ",".join(map(str, ours))
    done = subprocess.run(
        [java, "-Xmx6g", "-cp", cp, "DbtDeidArxDriver", str(data), pattern, ",".join(qis),
         str(k), repr(sup), metric, str(repeat), given], capture_output=True, text=True)
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["failed"])[0]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arx-jar", type=Path, default=os.environ.get("ARX_JAR"))
    parser.add_argument("--java", default=shutil.which("java"))
    parser.add_argument("--javac", default=shutil.which("javac"))
    parser.add_argument("--data", type=Path, default=ADULT,
                        help="directory with adult.csv and adult_hierarchy_<qi>.csv")
    parser.add_argument("--qis", nargs="+", default=ADULT_QIS)
    parser.add_argument("--k", type=int, nargs="+", default=[5, 20])
    parser.add_argument("--max-suppression", type=float, nargs="+",
                        default=[0.0, 0.01, 0.05, 1.0])
    parser.add_argument("--metrics", nargs="+", default=["entropy", "loss", "discernibility"])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if args.arx_jar is None:
        skip("no ARX library jar given (--arx-jar PATH or ARX_JAR); ARX is not bundled (see this"
             " script's docstring for building one from ARX's sources)")
    if not args.arx_jar.is_file():
        skip(f"ARX jar {args.arx_jar} does not exist")
    if not args.java or not args.javac:
        skip("java and javac must be on the PATH (or --java / --javac)")
    data = args.data / "adult.csv"
    if not data.exists():
        skip(f"input table {data} not found")
    pattern = str(args.data / "adult_hierarchy_{qi}.csv")
    frame = pd.read_csv(data, sep=";", dtype=str, keep_default_na=False)
    patterns = frame.groupby(args.qis).size().reset_index(name="n")
    hierarchies = load_hierarchies({q: pattern.replace("{qi}", q) for q in args.qis})
    rows: list[dict] = []
    print(f"bench_arx_compare {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load"
          f" {os.getloadavg()[0]:.1f}; {len(frame):,} records, {len(args.qis)} QIs; in-process"
          f" times, best of {args.repeat} (ARX after one warm-up run in its JVM)")
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        prepare_driver(args.arx_jar, args.javac, workdir)
        for k in args.k:
            evaluator = NodeEvaluator.from_frame(patterns, hierarchies, k, 0.0)
            metrics = Metrics(evaluator.hierarchies, evaluator.leaf_table, k)
            for sup in args.max_suppression:
                for metric in args.metrics:
                    best, ours = float("inf"), None
                    for _ in range(args.repeat):
                        t = time.perf_counter()
                        ours = run_ola(patterns, hierarchies, k, sup, metric)
                        best = min(best, time.perf_counter() - t)
                    out = run_arx(args.java, args.arx_jar, workdir, data, pattern, args.qis, k,
                                  sup, metric, args.repeat, ours.chosen)
                    cell = f"k={k} MaxSup={sup:.0%} {metric}"
                    if "error" in out:
                        print(f"{cell}: ARX failed: {out['error']}")
                        continue
                    arx = out["arx"]
                    arx_node = tuple(arx["levels"]) or None
                    rows.append({
                        "cell": cell, "sup": sup, "ours": ours.chosen,
                        "ours_sup": ours.suppressed, "ours_ours": ours.metric_value,
                        "ours_arx": _number(out["given"]["score"]) if out["given"] else None,
                        "arx": arx_node, "arx_sup": arx["suppressed"],
                        "arx_ours": (None if arx_node is None else
                                     metrics.value(metric, evaluator.table(arx_node))),
                        "arx_arx": _number(arx["score"]), "t_ours": best,
                        "t_arx": out["seconds"]})
                    print(_row(rows[-1]), flush=True)
    print_summary(rows)


def _number(text: str | None) -> float | None:
    return None if text is None else float(text)


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.7g}"


def _not_worse(a: float | None, b: float | None) -> bool:
    """``a <= b`` up to float rounding (1e-9 relative); None (no node) only ties None."""
    if a is None or b is None:
        return a is None and b is None
    return a <= b + 1e-9 * max(1.0, abs(b))


HEADER = ("| cell | our node | supp. | ARX node | supp. | our metric: ours / ARX's node |"
          " ARX's metric: ours / ARX's node | time ours / ARX (s) | ratio |\n"
          "|---|---|---|---|---|---|---|---|---|")


def _row(r: dict) -> str:
    same = r["ours"] == r["arx"]
    node = "same" if same else str(r["arx"]).replace(" ", "")
    return (f"| {r['cell']} | {str(r['ours']).replace(' ', '')} | {r['ours_sup']} | {node} |"
            f" {r['arx_sup']} | {_fmt(r['ours_ours'])} / {_fmt(r['arx_ours'])}"
            f"{'' if _not_worse(r['ours_ours'], r['arx_ours']) else ' WORSE'} |"
            f" {_fmt(r['ours_arx'])} / {_fmt(r['arx_arx'])}"
            f"{'' if _not_worse(r['ours_arx'], r['arx_arx']) else ' (ARX lower)'} |"
            f" {r['t_ours']:.3f} / {r['t_arx']:.3f} | {r['t_ours'] / r['t_arx']:.2f} |")


def print_summary(rows: list[dict]) -> None:
    """The table header again with every row (a block to paste), then the acceptance lines:
    cells where our node is not worse under our metric definition and under ARX's, and the
    median time ratio at MaxSup 0."""
    print(HEADER)
    for r in rows:
        print(_row(r))
    ours_ok = sum(_not_worse(r["ours_ours"], r["arx_ours"]) for r in rows)
    arx_ok = sum(_not_worse(r["ours_arx"], r["arx_arx"]) for r in rows)
    same = sum(r["ours"] == r["arx"] for r in rows)
    print(f"same node in {same} of {len(rows)} cells; our node's score <= ARX's node's under"
          f" our metric definitions: {ours_ok} of {len(rows)}; under ARX's: {arx_ok} of"
          f" {len(rows)}")
    zero = [r["t_ours"] / r["t_arx"] for r in rows if r["sup"] == 0.0]
    if zero:
        print(f"median time ratio ours/ARX at MaxSup 0: {statistics.median(zero):.2f}"
              f" ({len(zero)} cells); all cells: "
              f"{statistics.median(r['t_ours'] / r['t_arx'] for r in rows):.2f}; load"
              f" {os.getloadavg()[0]:.1f}")

if __name__ == "__main__":
    main()
