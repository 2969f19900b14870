# The commands: `make run`, `make test` (the whole suite) and `make check` (the quick loop: no
# process started; docs/testing.md). Everything else is their plumbing.
#
# - `make run` installs the runtime dependencies only (pip shows its progress), `make test`
#   adds the test ones; `make install` is the full (test) install.
# - A Python older than 3.11 is refused with one line.
# - A .venv is used only once it was completely created (its `.created` marker); a
#   half-built one (interrupted venv or pip upgrade) is removed and built again. An
#   interrupted dependency install has no stamp, so it simply runs again. (A .venv of the
#   previous Makefile, complete when it has `.installed`, is kept.)
# The suite's Python processes (pytest and its workers, each server, CLI and canvas child) read the
# bytecode caches (__pycache__, ignored by git) the first of them writes; a PYTHONDONTWRITEBYTECODE
# in the caller's environment (container images often set it) would make every one compile the
# project and rewrite the test modules' asserts again (collection: 10.8 s of CPU against 4.7 s).
unexport PYTHONDONTWRITEBYTECODE

VENV   ?= .venv
PYTHON ?= python3
PY     := $(VENV)/bin/python
CREATED    := $(VENV)/.created
RUNTIME    := $(VENV)/.runtime-installed
TEST_DEPS  := $(VENV)/.test-installed

.PHONY: run test test-full check install fuzz gallery-scenes clean

$(CREATED):
	$(if $(filter 1,$(shell $(PYTHON) -c 'import sys; print(int(sys.version_info >= (3, 11)))' 2>/dev/null)),,$(error svc-display needs Python 3.11 or newer: $(PYTHON) is $(or $(shell $(PYTHON) -V 2>&1),missing); set PYTHON=python3.11 or newer))
	@if [ -f $(VENV)/.installed ] && [ -x $(PY) ]; then touch $@; else \
	  set -e; echo "creating $(VENV)"; rm -rf $(VENV); $(PYTHON) -m venv $(VENV); \
	  $(PY) -m pip install --upgrade pip setuptools wheel; touch $@; fi

$(RUNTIME): pyproject.toml $(CREATED)
	$(PY) -m pip install --progress-bar on -e .
	touch $@

$(TEST_DEPS): pyproject.toml $(RUNTIME)
	$(PY) -m pip install -q -e '.[dev]'
	touch $@

install: $(TEST_DEPS)

# Exit status 75 means "start me again": a restore exits with it once the archive is
# committed, and the next start runs on the restored data. Any other status ends the loop.
run: $(RUNTIME)
	@while :; do $(VENV)/bin/svc-display serve; status=$$?; \
	  if [ $$status -ne 75 ]; then exit $$status; fi; \
	  echo "make run: svc-display exited with 75 (restore), starting it again" >&2; done

# Workers: for `make test` three per core, at most 8. A worker spends much of its time waiting on
# what it started (a server's answer, a canvas's next frame, a browser), so fewer leave the cores
# idle: measured on the 2-core machine, quiet, 2 workers ran `make test` in 1,208 s with the cores
# 80 % busy, 4 in 705 s (90 % busy), 6 in 680 s (99 % busy; docs/testing.md). `make check`'s tests
# are CPU-bound: two per core (112 s with 2, 94 s with 4).
TEST_WORKERS ?= $(shell n=$$(( $$(nproc 2>/dev/null || echo 1) * 3 )); [ $$n -gt 8 ] && n=8; echo $$n)
WORKERS ?= $(shell n=$$(( $$(nproc 2>/dev/null || echo 1) * 2 )); [ $$n -gt 8 ] && n=8; echo $$n)

# A module per worker (module-scoped servers start once), handed out heaviest first in the order
# tests/conftest.py gives them (tests/module_seconds.json; xdist's own reorder would put the
# modules with the most tests first instead); the 20 slowest tests are printed at the end.
PYTEST_ARGS ?= -n $(TEST_WORKERS) --dist loadscope --no-loadscope-reorder --durations=20

# Both first write the bytecode caches, one collection per core (tests/precompile.py): every
# worker collects the whole suite, and on a fresh clone each would otherwise rewrite the test
# modules' asserts and compile the project itself, all at once (with the caches there: nothing).
test: $(TEST_DEPS)
	$(PY) -m tests.precompile
	$(PY) -m pytest $(PYTEST_ARGS)

# The loop after each edit: unit, contract and docs tests, no server, CLI, canvas, browser or X
# server (tests/conftest.py marks the tests that start one `process`; under SVC_CHECK=1 a test
# starting one fails), on SQLite only (the PostgreSQL runs are make test's). No module-scoped
# servers here, so tests are balanced one by one.
CHECK_ARGS ?= -n $(WORKERS) --dist load -m "not process and not slow" --durations=10

check: $(TEST_DEPS)
	$(PY) -m tests.precompile
	SVC_CHECK=1 SVC_TEST_BACKENDS=sqlite $(PY) -m pytest $(CHECK_ARGS)

# The large property-based run (at least 10,000 generated requests over every operation;
# counts in docs/reliability.md). Not part of `make test`, which runs the bounded one.
fuzz: $(TEST_DEPS)
	SVC_FUZZ_PHASES=examples,coverage,fuzzing SVC_FUZZ_MAX_EXAMPLES=120 SVC_FUZZ_MAX_SECONDS=2400 SVC_FUZZ_MIN_CASES=10000 \
	  $(PY) -m pytest tests/host/test_openapi_fuzz.py -p no:xdist -p no:cacheprovider -s -q

# What `make test` runs bounded, the rest of it (CI runs this after `make test`: .ci/run;
# docs/testing.md): the gallery in every builtin theme (make test draws two) and the fuzz's
# coverage phase (make test runs its examples and fuzzing phases).
test-full: $(TEST_DEPS)
	$(PY) -m tests.precompile
	SVC_GALLERY_ALL=1 SVC_FUZZ_PHASES=coverage $(PY) -m pytest tests/display/test_gallery.py \
	  tests/host/test_openapi_fuzz.py -n 2 --dist loadscope -p no:cacheprovider -q

# The committed scene gallery (docs/gallery/scenes/, docs/display.md "Scenes"): the café welcome and
# the menu board under the café composition, four sizes, every builtin theme, small JPEGs.
gallery-scenes: $(RUNTIME)
	rm -rf docs/gallery/scenes
	$(VENV)/bin/svc-display gallery docs/gallery/scenes --scenes --type message --type menu_board --no-alert --thumbnails 640

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
