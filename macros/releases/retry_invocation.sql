{#- Whether this invocation is a `dbt retry`, for the package's on-run-start hooks that act on
    what the invocation selects (prepare_release_tables, check_sample_mode,
    check_working_schema_layout; review 13 final, L1).

    dbt 1.10/1.11 never tell a hook that it runs in a retry: RetryTask (dbt/task/retry.py) runs
    the retried command's task (flags.WHICH and invocation_args_dict['which'] are that
    command's, 'run' or 'build', never 'retry') through a TaskWrapper whose get_graph_queue does
    not call selected_resources.set_selected_resources (only NodeSelector.get_graph_queue does,
    dbt/graph/selector.py), so `selected_resources` is [] in a fresh `dbt retry` process, and the
    previous invocation's selection in an in-process dbtRunner session. Two signs, either one:

    - the command line: `invocation_args_dict['invocation_command']` is "dbt " and the process's
      arguments (dbt/cli/flags.py, also in a retry); its first word equal to 'retry' or to
      flags.WHICH is the subcommand (`dbt --debug retry` yes, `dbt run -s retry` no);
    - nothing selected while executing: dbt runs the on-run-start hooks only when the selection
      holds a node (dbt/task/runnable.py, NothingToDo otherwise), so an empty
      `selected_resources` there is a retry whose process never selected (dbtRunner().invoke(
      ['retry']) first in its process, where the command line is the host program's).

    Not detected: a retry through dbtRunner after another invocation in the same process (the
    command line is the host's, the selection the previous invocation's; after the failed run
    it retries, that selection holds every retried node). A false "yes" only makes the hooks
    act on every release (prepare the tables; refuse under --sample): never less safe. -#}
{% macro retry_invocation() -%}
  {{ return(dbt_deid.own(adapter.dispatch('retry_invocation', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__retry_invocation() -%}
  {%- if not execute -%}{{ return(false) }}{%- endif -%}
  {%- set args = (invocation_args_dict if invocation_args_dict is defined else {}) or {} -%}
  {%- set words = (args.get('invocation_command') or '') | string -%}
  {%- set commands = words.split()[1:] | select('in', ['retry', flags.WHICH]) | list -%}
  {%- if commands and commands[0] == 'retry' -%}{{ return(true) }}{%- endif -%}
  {{ return(not (selected_resources if selected_resources is defined else [])) }}
{%- endmacro %}
