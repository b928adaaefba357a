{{ config(enabled=dbt_deid.text_release_enabled(), tags=["deid_text"]) }}
{%- if dbt_deid.text_release_enabled() -%}
{%- set cfg = dbt_deid.text_release_config() -%}
-- depends_on: {{ ref('dbt_deid', 'deid_text_plan') }}
{%- set rel = [] -%}
{%- for t in ['documents', 'annotations', 'detections'] -%}
  {%- do rel.append((t, (cfg[t].source_name ~ '.' ~ cfg[t].table) if cfg[t] is mapping else cfg[t])) -%}
{%- endfor -%}
{%- set rows = [('release', cfg.name)] + rel + [
    ('h', cfg.h),
    ('tau', cfg.tau),
    ('attempt', (cfg.attempt | join(', ')) if cfg.attempt is not none else 'public (Pr(attempt) = 1)'),
    ('iterations', cfg.iterations),
    ('seed', cfg.seed),
    ('direct_cutoff', cfg.direct_cutoff),
    ('quasi_cutoff', cfg.quasi_cutoff),
    ('allow_unannotated', cfg.allow_unannotated),
] -%}
{%- for t, k in (cfg.types or {}).items() -%}{%- do rows.append(('type.' ~ t, k)) -%}{%- endfor -%}
{%- for name, value in rows %}
select {{ loop.index }} as setting_order, {{ dbt_deid.literal(name) }} as setting, {{ dbt_deid.literal(value) }} as value
{%- if not loop.last %} union all{% endif %}
{%- endfor %}
{%- endif %}
