"""Column lineage of what is published, as a gate (issue 17, item 4).

The release's column roles (El Emam et al. 2011, "Types of Variables", Table 1: direct identifiers
are removed, quasi-identifiers are released generalized and suppressed, other variables pass
through) hold for the publish model by construction; a model downstream of a published mart can
undo them, for instance by joining the raw source back in and selecting a direct identifier.
This module parses the compiled SQL of the publish model and of every model declared as a
consumer of a published mart (tag ``deid_consumer``, or a model an exposure depends on), with
:func:`sqlglot.lineage.lineage`, and traces every output column to the source columns it derives
from. A column passes when it derives only from

* a quasi-identifier at its released level (a QI column of the package's suppressed records,
  which is what the publish model reads), or
* a pass-through column of the release source, or
* a relation that is not the release source (a lookup table, a constant).

It fails when it derives from the record id, a direct identifier, an excluded column, a source
column with no role, a quasi-identifier at its source level (the raw source column, or the
``<qi>__original`` column of the working tables), or from anything the parser cannot trace
(a Python model, SQL sqlglot cannot parse): fail closed.

The roles are the release settings the publish materialization recorded in
``deid_release_history`` (the last row for the publish model's relation), so the check judges
the release that is actually published. Input: dbt's ``target/manifest.json`` after
``dbt build``/``dbt compile`` (compiled SQL) and the warehouse's column lists (DuckDB file).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.lineage import lineage as sqlglot_lineage
from sqlglot.optimizer.qualify import qualify

from dbt_deid.errors import DataError

#: The tag a model carries to be checked as a consumer of a published mart.
CONSUMER_TAG = "deid_consumer"
#: Roles whose source columns may reach a published or consumer column.
ALLOWED_ROLES = frozenset({"pass_through", "sensitive", "quasi_identifier"})

RelKey = tuple[str, str, str]


@dataclass(frozen=True)
class Origin:
    """One source of a column: the relation and column, its role and whether it is allowed."""

    relation: str
    column: str
    role: str
    allowed: bool
    why: str = ""


@dataclass
class ColumnLineage:
    model: str
    column: str
    origins: list[Origin] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(o.allowed for o in self.origins)

    def as_dict(self) -> dict[str, Any]:
        return {"model": self.model, "column": self.column, "passed": self.passed,
                "sources": [{"relation": o.relation, "column": o.column, "role": o.role,
                             "allowed": o.allowed, **({"why": o.why} if o.why else {})}
                            for o in self.origins]}


def _rel_key(text: str | exp.Table) -> RelKey:
    """(catalog, schema, name), lower case, from a relation name or a parsed table."""
    table = text if isinstance(text, exp.Table) else exp.to_table(str(text), dialect="duckdb")
    return (table.catalog.lower(), table.db.lower(), table.name.lower())


def _same(a: RelKey, b: RelKey) -> bool:
    """Equal relations; a missing catalog or schema matches any."""
    return all(x == y or not x or not y for x, y in zip(a, b, strict=True))


def roles_from_settings(settings: Mapping[str, Any]) -> dict[str, str]:
    """lower-case source column -> role (record_id, direct_identifiers, excluded, pass_through,
    sensitive, quasi_identifier), as dbt_deid._role_of_columns."""
    roles: dict[str, str] = {}
    if settings.get("record_id"):
        roles[str(settings["record_id"]).lower()] = "record_id"
    for name, spec in (settings.get("quasi_identifiers") or {}).items():
        column = (spec or {}).get("column", name)
        roles[str(column).lower()] = "quasi_identifier"
    for role in ("direct_identifiers", "pass_through", "sensitive", "excluded"):
        for c in settings.get(role) or []:
            roles[str(c).lower()] = role
    return roles


class LineageChecker:
    """Traces columns of manifest models to the release source, given the release settings."""

    def __init__(self, manifest: Mapping[str, Any], settings: Mapping[str, Any],
                 schema: Mapping[str, Any], package: str = "dbt_deid") -> None:
        self.manifest = manifest
        self.settings = settings
        self.schema = schema
        self.package = package
        self.roles = roles_from_settings(settings)
        self.qis = {str(n).lower(): str((s or {}).get("column", n)).lower()
                    for n, s in (settings.get("quasi_identifiers") or {}).items()}
        self.nodes = {**manifest.get("nodes", {}), **manifest.get("sources", {})}
        self.by_relation = [(_rel_key(n["relation_name"]), uid) for uid, n in self.nodes.items()
                            if n.get("relation_name")]
        self.source_key = self._release_source_key()
        self._memo: dict[tuple[str, str], list[Origin]] = {}

    def _release_source_key(self) -> RelKey:
        src = self.settings.get("source")
        for node in self.nodes.values():
            if isinstance(src, Mapping):
                hit = (node.get("resource_type") == "source"
                       and node.get("source_name") == src.get("source_name")
                       and node.get("name") == src.get("table"))
            else:
                hit = node.get("resource_type") in ("model", "seed", "snapshot") \
                    and node.get("name") == src
            if hit and node.get("relation_name"):
                return _rel_key(node["relation_name"])
        raise DataError(f"the release source {src!r} is not in the dbt manifest")

    def node_of(self, key: RelKey) -> str | None:
        for k, uid in self.by_relation:
            if _same(k, key):
                return uid
        return None

    def output_columns(self, uid: str) -> list[str]:
        """The columns a model selects (stars expanded with the warehouse's column lists)."""
        tree = qualify(self._parse(uid), schema=dict(self.schema), dialect="duckdb",
                       validate_qualify_columns=False)
        return list(tree.named_selects)

    def _parse(self, uid: str) -> exp.Expression:
        node = self.nodes[uid]
        code = node.get("compiled_code")
        if node.get("language", "sql") != "sql" or not code:
            raise DataError(f"model {node.get('name')}: no compiled SQL in the manifest (run"
                            " `dbt compile` or `dbt build` first; Python models cannot be traced)")
        return sqlglot.parse_one(code, dialect="duckdb")

    def trace(self, uid: str, column: str) -> list[Origin]:
        """The origins of ``column`` of model ``uid``."""
        key = (uid, column.lower())
        if key not in self._memo:
            self._memo[key] = []  # a cycle traces to nothing more
            self._memo[key] = self._trace(uid, column)
        return self._memo[key]

    def _trace(self, uid: str, column: str) -> list[Origin]:
        name = self.nodes[uid].get("name", uid)
        try:
            root = sqlglot_lineage(column, self._parse(uid), schema=dict(self.schema),
                                   dialect="duckdb")
        except (sqlglot.errors.SqlglotError, DataError, ValueError, KeyError) as exc:
            return [Origin(name, column, "untraceable", False,
                           f"cannot trace: {str(exc).splitlines()[0][:200]}")]
        origins: list[Origin] = []
        for leaf in root.walk():
            if leaf.downstream or not isinstance(leaf.expression, exp.Table):
                continue
            origins.extend(self._classify(_rel_key(leaf.expression),
                                          leaf.name.split(".")[-1].strip('"')))
        return origins

    def _classify(self, rel: RelKey, column: str) -> list[Origin]:
        col = column.lower()
        label = ".".join(p for p in rel if p)
        if _same(rel, self.source_key):
            role = self.roles.get(col, "no role")
            if role in ("pass_through", "sensitive"):
                return [Origin(label, column, role, True)]
            if role == "quasi_identifier":
                return [Origin(label, column, role, False,
                               "quasi-identifier at its source level, not the released one")]
            return [Origin(label, column, role, False,
                           f"source column with role {role}: never published")]
        uid = self.node_of(rel)
        if uid is None:
            return [Origin(label, column, "other", True, "not the release source")]
        node = self.nodes[uid]
        if node.get("resource_type") in ("seed", "source"):
            return [Origin(label, column, "other", True, "not the release source")]
        if node.get("package_name") == self.package and \
                node.get("config", {}).get("materialized") != "deid_publish":
            return [self._package_column(label, column)]
        return self.trace(uid, column)

    def _package_column(self, label: str, column: str) -> Origin:
        """A column of the package's working tables: a released QI (allowed), else by role."""
        col = column.lower()
        if col in self.qis:
            return Origin(label, column, "quasi_identifier", True,
                          f"released level of source column {self.qis[col]}")
        base = col.removesuffix("__original")
        if base != col and base in self.qis:
            return Origin(label, column, "quasi_identifier", False,
                          "quasi-identifier at its source level, not the released one")
        role = self.roles.get(col)
        if role in ("pass_through", "sensitive"):
            return Origin(label, column, role, True)
        return Origin(label, column, role or "untraceable", False,
                      f"working-table column with role {role}: never published" if role
                      else "a working-table column that is not a released quasi-identifier")


def declared_consumers(manifest: Mapping[str, Any], published: set[str]) -> list[str]:
    """Models tagged ``deid_consumer``, and models an exposure depends on that read a published
    model (directly or through other models)."""
    nodes = manifest.get("nodes", {})
    parents = manifest.get("parent_map") or {u: n.get("depends_on", {}).get("nodes", [])
                                             for u, n in nodes.items()}

    def reads_published(uid: str, seen: set[str]) -> bool:
        for p in parents.get(uid, []):
            if p in published or (p not in seen and reads_published(p, seen | {p})):
                return True
        return False

    out = [u for u, n in nodes.items() if n.get("resource_type") == "model"
           and CONSUMER_TAG in (n.get("tags") or [])]
    for exposure in (manifest.get("exposures") or {}).values():
        for u in exposure.get("depends_on", {}).get("nodes", []):
            if u in nodes and u not in published and u not in out and reads_published(u, set()):
                out.append(u)
    return sorted(out)


def check_manifest(manifest: Mapping[str, Any], settings: Mapping[str, Any],
                   schema: Mapping[str, Any], publish_uid: str) -> list[ColumnLineage]:
    """The lineage of every column of the publish model and of its declared consumers."""
    checker = LineageChecker(manifest, settings, schema)
    out: list[ColumnLineage] = []
    for uid in [publish_uid, *declared_consumers(manifest, {publish_uid})]:
        name = checker.nodes[uid]["name"]
        try:
            columns = checker.output_columns(uid)
        except (DataError, sqlglot.errors.SqlglotError) as exc:  # fail closed, naming the model
            why = f"cannot trace: {str(exc).splitlines()[0][:200]}"
            out.append(ColumnLineage(name, "*", [Origin(name, "*", "untraceable", False, why)]))
            continue
        for column in columns:
            out.append(ColumnLineage(name, column, checker.trace(uid, column)))
    return out


def warehouse_schema(database: str | Path) -> dict[str, Any]:
    """{catalog: {schema: {table: {column: type}}}} of a DuckDB file, for sqlglot."""
    import duckdb

    out: dict[str, Any] = {}
    with duckdb.connect(str(database), read_only=True) as con:
        for cat, sch, tab, col, typ in con.execute(
                "select table_catalog, table_schema, table_name, column_name, data_type"
                " from information_schema.columns order by ordinal_position").fetchall():
            out.setdefault(cat, {}).setdefault(sch, {}).setdefault(tab, {})[col] = typ
    return out


def load_manifest(path: str | Path) -> dict[str, Any]:
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"dbt manifest {str(p)!r} does not exist; run `dbt compile`")
    return json.loads(p.read_text())


def publish_nodes(manifest: Mapping[str, Any]) -> list[str]:
    """The publish models (materialized deid_publish) of the manifest."""
    return sorted(u for u, n in manifest.get("nodes", {}).items()
                  if n.get("config", {}).get("materialized") == "deid_publish")
