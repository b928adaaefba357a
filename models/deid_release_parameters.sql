{{ config(enabled=dbt_deid.release_enabled()) }}
{%- if dbt_deid.release_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
{%- set rows = [
    ('release', cfg.name),
    ('algorithm', cfg.algorithm),
    ('preset', cfg.preset or 'none'),
    ('tau', cfg.tau),
    ('k', cfg.k),
    ('max_suppression', cfg.max_suppression),
    ('record_id', cfg.record_id),
    ('direct_identifiers_dropped', cfg.direct_identifiers | join(', ')),
    ('excluded_dropped', cfg.excluded | join(', ')),
    ('pass_through_published_unchanged', cfg.pass_through | join(', ')),
    ('missing_label', cfg.missing_label),
    ('dbt_deid_version', '0.1.0'),
] -%}
{%- for b in cfg.protected_combinations -%}{%- do rows.append(('protected_combination_' ~ loop.index, b | join('+'))) -%}{%- endfor -%}
{%- for b in cfg.combinations -%}{%- do rows.append(('verified_combination_' ~ loop.index, b | join('+'))) -%}{%- endfor -%}
{%- do rows.append(('released_quasi_identifiers', cfg.released_qis | join(', '))) -%}
{%- for q in cfg.qis -%}
  {%- do rows.append(('qi.' ~ q.name, 'column ' ~ q.column ~ ', level ' ~ q.level ~ ', weight ' ~ q.weight ~ ((', hierarchy ' ~ q.hierarchy) if q.hierarchy else '') ~ ((', rule ' ~ q.rule.type) if q.rule else '') ~ ((', suppression cap ' ~ q.cap) if q.cap is not none else ''))) -%}
{%- endfor -%}
{%- for name, value in rows %}
select {{ loop.index }} as setting_order, {{ dbt_deid.literal(name) }} as setting, {{ dbt_deid.literal(value) }} as value
{%- if not loop.last %} union all{% endif %}
{%- endfor %}
{%- endif %}
