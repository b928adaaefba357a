{#- The smallest sample class size s whose truncated-Poisson estimate of its population class,
    s + (1 - alpha) mu(s) / alpha with mu(s) the root of mu / (1 - e^-mu) = s (0 for s = 1),
    reaches the population threshold F_j (El Emam and Dankar 2008, as cited by El Emam et al.
    2012). The same Newton iterations as dbt_deid.truncated_poisson.truncated_poisson_mean;
    at most F_j. -#}
{% macro truncated_poisson_k(threshold, alpha) -%}
  {%- set ns = namespace(k=none) -%}
  {%- for s in range(1, threshold + 1) -%}
    {%- if ns.k is none -%}
      {%- set it = namespace(mu=(s * 1.0)) -%}
      {%- if s > 1 -%}
        {%- for _ in range(60) -%}
          {%- set e = 2.718281828459045 ** (0 - it.mu) -%}
          {%- set it.mu = it.mu - (it.mu - s * (1.0 - e)) / (1.0 - s * e) -%}
        {%- endfor -%}
      {%- else -%}
        {%- set it.mu = 0.0 -%}
      {%- endif -%}
      {%- if s + (1.0 - alpha) * it.mu / alpha >= threshold - 0.000000001 -%}{%- set ns.k = s -%}{%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(ns.k if ns.k is not none else threshold) }}
{%- endmacro %}
