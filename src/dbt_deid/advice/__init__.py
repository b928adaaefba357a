"""Advice on a refused fixed-level release (issue 35): where the suppression falls (per QI and
per combination) and the nearest levels that pass, computed on the pattern table; and what each
level of a hierarchy means."""

from dbt_deid.advice.meaning import describe_level
from dbt_deid.advice.search import Advice, LevelOption, advise
from dbt_deid.advice.shares import Shares, shares_from_map, small_class_shares
from dbt_deid.advice.text import advice_frame, advice_lines, typed_advice_frame

__all__ = ["Advice", "LevelOption", "Shares", "advice_frame", "advice_lines", "advise",
           "describe_level", "shares_from_map", "small_class_shares", "typed_advice_frame"]
