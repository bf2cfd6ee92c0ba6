# One command for each thing people do. Everything runs inside .venv, created on first use.
PYTHON ?= python3
# pytest-xdist processes for `make test` (0: one process)
TEST_PROCS ?= 2
# `make eval`: cases run at once per agent, where the reports go, extra flags (e.g. EVAL_ARGS="--limit 20")
EVAL_JOBS ?= 2
EVAL_DIR ?= .graphagents/eval
EVAL_ARGS ?=
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
# LangGraph's own server in its own environment (langgraph-api pins jsonschema-rs below our test extra's)
LG_VENV  := .venv-langgraph
LG_STAMP := $(LG_VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
LG_PINS  := "langgraph-cli[inmem]==0.4.40" "langgraph-api==0.16.7"

.PHONY: run test test-local lint typecheck bench eval demo clean langgraph-check

$(STAMP): pyproject.toml
	@test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	@rm -f $(VENV)/.installed-* && touch $@

run: $(STAMP)  ## start the server and web page on http://127.0.0.1:8000 (offline mode)
	$(BIN)/graphagents serve

test: $(STAMP) lint typecheck  ## lint, type check and the whole test suite
	$(BIN)/pytest -n $(TEST_PROCS)

# The local model (llama.cpp + a 1.1 GB GGUF): llama-cpp-python builds from its sdist, for any x86-64
# with AVX2 (not -march=native: a cached wheel must not carry this machine's AVX-512 to another one)
LOCAL_STAMP := $(VENV)/.local-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
LOCAL_CMAKE := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON

$(LOCAL_STAMP): $(STAMP)
	CMAKE_ARGS="$(LOCAL_CMAKE)" $(BIN)/python -m pip install -q -e '.[dev,local]'
	@rm -f $(VENV)/.local-* && touch $@

test-local: $(LOCAL_STAMP)  ## the tests that run the real local model (pytest -m local)
	$(BIN)/pytest -m local -n 0

lint: $(STAMP)  ## ruff, and the import contracts of pyproject.toml (agents independent, the core names none)
	$(BIN)/ruff check src tests $(wildcard bench scripts)
	$(BIN)/lint-imports --no-cache

typecheck: $(STAMP)
	$(BIN)/mypy

bench: $(STAMP)  ## speed and memory figures with same-run baselines
	@for f in bench/*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

eval: $(STAMP)  ## every evaluable agent's dev set, offline; reports in $(EVAL_DIR)/<agent> (EVAL_ARGS: more flags)
	@for agent in $$($(BIN)/graphagents agents --names --evaluable); do \
		echo "== $$agent"; $(BIN)/graphagents eval $$agent --dataset dev --jobs $(EVAL_JOBS) \
			--report $(EVAL_DIR)/$$agent $(EVAL_ARGS) || exit 1; done

$(LG_STAMP): pyproject.toml
	@test -d $(LG_VENV) || $(PYTHON) -m venv $(LG_VENV)
	$(LG_VENV)/bin/python -m pip install -q $(LG_PINS) -e .
	@rm -f $(LG_VENV)/.installed-* && touch $@

langgraph-check: $(LG_STAMP)  ## every graph of langgraph.json run by `langgraph dev` (LangGraph's in-memory server)
	$(LG_VENV)/bin/python scripts/langgraph_dev_check.py

demo: $(STAMP)
	$(BIN)/graphagents demo

clean:
	rm -rf $(VENV) $(LG_VENV) .graphagents .pytest_cache .mypy_cache .ruff_cache
