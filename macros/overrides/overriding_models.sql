{#- Every model, seed or snapshot outside its release's project that has the name of a release
    node, as "<package>.<name> (<path>) has the name of the <project> model <name>", sorted
    (review 7, finding 1; docs/overrides.md, "Models").

    dbt's one-argument `ref('deid_gate_results')` in a package node searches the ROOT project
    before the node's package unless the project sets
    `flags: require_ref_searches_node_package_before_root: true` (dbt's default is false), and
    two models of one name in different packages parse fine. A root model `deid_gate_results`
    that said "passed" then replaced the package's gate table: on b31f4c4 the release published
    4,000 rows with no suppressed cell. The package's own models ref each other by package
    (`release_ref`), and the names of its release nodes are refused here whatever the flag:

    * a model of dbt_deid (the default, claims and text releases' nodes): any node of another
      package or of the root project with that name;
    * an extra release's node `<release>__deid_*` of the root project (written by
      `add-release`): any node of another package with that name.

    Reads the graph only (no query). Called by assert_no_overrides. -#}
{% macro overriding_models() -%}
  {%- set kinds = ['model', 'seed', 'snapshot'] -%}
  {%- set owner = {} -%}
  {%- for node in graph.nodes.values() if node.resource_type in kinds -%}
    {%- if node.package_name == 'dbt_deid' and node.resource_type == 'model' -%}
      {%- do owner.update({node.name: 'dbt_deid'}) -%}
    {%- elif node.package_name == project_name and node.name not in owner
             and dbt_deid._split_release_node(node.name) is not none -%}
      {%- do owner.update({node.name: project_name}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set found = [] -%}
  {%- for node in graph.nodes.values() if node.resource_type in kinds and node.name in owner
          and node.package_name != owner[node.name] -%}
    {%- do found.append(node.package_name ~ '.' ~ node.name ~ ' (' ~ node.original_file_path ~ ') has the name of the ' ~ owner[node.name] ~ ' model ' ~ node.name ~ ' (a ref() by name may resolve to it)') -%}
  {%- endfor -%}
  {{ return(found | unique | sort | list) }}
{%- endmacro %}
