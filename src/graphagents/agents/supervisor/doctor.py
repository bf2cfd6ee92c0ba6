"""``graphagents doctor``'s checks for supervisor (``AgentSpec.doctor``): the statutes, the synthetic
market and loan data, the loan rules and the statute index, each read without building anything."""

from __future__ import annotations

from pathlib import Path

from graphagents.registry import Check, DoctorContext

__all__ = ["checks"]


def checks(ctx: DoctorContext) -> list[Check]:
    return [Check("supervisor statutes", lambda: _statutes(ctx)),
            Check("supervisor market data", lambda: _market(ctx)),
            Check("supervisor loan rules", lambda: _loan_rules(ctx)),
            Check("supervisor statute index", lambda: _index(ctx))]


def _root(ctx: DoctorContext) -> Path:
    from .data import find_dataset

    return find_dataset(ctx.options.get("data"))


def _statutes(ctx: DoctorContext) -> str:
    from .data import load_articles

    articles = [a for a in load_articles(_root(ctx)) if not a.deleted]
    laws = sorted({a.law for a in articles})
    newest = max((a.effective for a in articles if a.effective), default="?")
    return f"{len(articles)} articles of {len(laws)} laws (latest 시행일자 {newest})"


def _market(ctx: DoctorContext) -> str:
    from .data import load_loan_products, transaction_rows

    root = _root(ctx)
    rows = transaction_rows(root)
    synthetic = sum(1 for r in rows if r[-1])
    products = load_loan_products(root)
    label = "synthetic" if synthetic == len(rows) else f"{synthetic} synthetic"
    market = ctx.options.get("market_db")
    where = " (the market_db option is queried instead)" if market else ""
    return f"{len(rows)} transactions ({label}), {len(products)} loan products{where}"


def _loan_rules(ctx: DoctorContext) -> str:
    from .tools.loan_rules import load_loan_rules

    rules = load_loan_rules(ctx.options.get("loan_rules"))
    unverified = sum(1 for r in rules.rules if not r.verified)
    return f"{len(rules.rules)} rules ({unverified} not checked against the official text: answers say so)"


def _index(ctx: DoctorContext) -> str:
    from graphagents.errors import redact_url
    from graphagents.retrieval import load_embedder, open_store

    from .tools.law_index import STORE_NAME

    url = ctx.options.get("law_store")
    location = url or f"file://{Path(ctx.settings.data_dir).resolve() / 'retrieval'}"
    store = open_store(location, STORE_NAME, load_embedder(ctx.settings.embedder))
    try:
        count = len(store)
    finally:
        store.close()
    where = redact_url(url) if url else "embedded under DATA_DIR"
    if count == 0:
        return f"{where}: empty, built on the first question"
    return f"{where}: {count} articles indexed"
