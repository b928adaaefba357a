"""dbt_deid core."""

from importlib.metadata import PackageNotFoundError, version

try:
    #: The installed distribution's version (pyproject.toml; dbt_project.yml and the
    #: ``package_version`` macro carry the same number, tests/unit/test_release_manifest.py).
    __version__ = version("dbt_deid")
except PackageNotFoundError:  # pragma: no cover - a source tree on sys.path, not installed
    __version__ = "0+unknown"
