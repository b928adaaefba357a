# Two entry points on a fresh clone (needs only Python 3.11 and make):
#   make demo  - create .venv, install, build the demo release on embedded DuckDB, print its summary
#   make test  - create .venv, install, run the whole test suite (what CI runs), one test
#                process per core plus one (pytest-xdist; a test file stays in one process):
#                the tests wait on dbt, Java and PostgreSQL subprocesses, so with one process
#                per core the 2-core CI machine was 161% busy (bash .ci/run, 2026-11-26)
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
DEMO_DB ?= demo.duckdb
WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))
#: The extras `make` installs (.ci/run adds spark in the same pip run)
EXTRAS ?= dev,duckdb,postgres

.PHONY: demo test

#: The install: uv (from PyPI, into its own folder $(UV_DIR), not into the venv) when it can be
#: installed, else pip. The same versions either way (`pip freeze` of both venvs compared,
#: 98 packages; uv reads no pip.conf: the project's dependencies need none of it); uv with
#: --compile-bytecode writes the .pyc files pip writes (the suite's processes would else
#: compile every module they import, each time, under PYTHONDONTWRITEBYTECODE). Measured on a
#: fresh venv without caches: docs/performance.md, "The suite's time, session 20".
UV_DIR := $(VENV)/uv-tool
UV := $(UV_DIR)/bin/uv

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	if $(BIN)/pip install --quiet --target $(UV_DIR) uv \
		&& $(UV) pip install --quiet --compile-bytecode --python $(BIN)/python \
			-e '.[$(EXTRAS)]'; then :; \
	else \
		echo "make: uv could not install; pip instead"; \
		$(BIN)/pip install --quiet --upgrade pip \
		&& $(BIN)/pip install --quiet -e '.[$(EXTRAS)]'; \
	fi
	touch $@

demo: $(BIN)/.installed
	cd demo && ../$(BIN)/dbt deps --profiles-dir profiles --quiet
	cd demo && DBT_DEID_DUCKDB_PATH=$(DEMO_DB) \
		DBT_DEID_PSEUDONYM_KEY=$${DBT_DEID_PSEUDONYM_KEY:-$$(../$(BIN)/python -c 'import secrets; print(secrets.token_hex(32))')} \
		../$(BIN)/python build_demo.py
	$(BIN)/python -m dbt_deid summary --database demo/$(DEMO_DB)
	$(BIN)/python -m dbt_deid summary --database demo/$(DEMO_DB) --release discharge_clinical

test: $(BIN)/.installed
	$(BIN)/ruff check src tests bench fuzz python_models demo/models demo/build_demo.py integration_tests/models
	$(BIN)/pytest -q -n $(WORKERS) --dist loadfile --no-loadscope-reorder
