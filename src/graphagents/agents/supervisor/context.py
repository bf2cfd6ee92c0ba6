"""The resources one supervisor shares across its turns: data, market sub-agent, loan rules,
statute index, planner, models.

Opening checks what can be checked at once (dataset found, market database reachable, rules
valid), so ``ga.load("supervisor")`` fails with one line rather than the first question. The
statute index and the classifier (embedding work) are built on first use.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel

from graphagents.registry import SubAgent
from graphagents.settings import Settings

from . import data
from .options import SupervisorOptions
from .records import Article, LoanProduct
from .tools.loan_rules import LoanRules, load_loan_rules
from .tools.market import MarketSource


@dataclass
class Models:
    """The chat models of each role; None everywhere means the offline brain."""

    planner: BaseChatModel | None = None
    orchestrator: BaseChatModel | None = None
    responder: BaseChatModel | None = None
    sql: BaseChatModel | None = None


@dataclass
class SupervisorContext:
    settings: Settings
    options: SupervisorOptions
    root: Path
    models: Models
    market_source: MarketSource
    market_agent: SubAgent
    loan_rules: LoanRules
    loan_products: tuple[LoanProduct, ...]
    embedder: Any = None
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)
    _laws: Any = field(default=None, init=False)
    _classifier: Any = field(default=None, init=False)

    @property
    def articles(self) -> dict[str, Article]:
        return {a.id: a for a in data.load_articles(self.root)}

    def cite(self, article_id: str) -> str:
        article = self.articles.get(article_id)
        return article.citation if article else article_id

    @property
    def laws(self) -> Any:
        """The statute index (hybrid retrieval), built on first use."""
        with self._lock:
            if self._laws is None:
                from .tools.law_index import LawIndex

                self._laws = LawIndex.open(data.load_articles(self.root), self.options.law_store,
                                           self.get_embedder(), data_dir=self.settings.data_dir)
            return self._laws

    @property
    def classifier(self) -> Any:
        with self._lock:
            if self._classifier is None:
                from .offline.classifier import PlanningClassifier

                self._classifier = PlanningClassifier(self.get_embedder())
            return self._classifier

    def get_embedder(self) -> Any:
        """The process's sentence embedder (the one the runtime configured, else the default)."""
        if self.embedder is None:
            from graphagents.retrieval import load_embedder

            self.embedder = load_embedder()
        return self.embedder


def open_market(build: Any, options: SupervisorOptions, root: Path,
                sql_model: BaseChatModel | None) -> tuple[MarketSource, SubAgent]:
    """The registered text2sql agent over the transactions database, a sub-agent handle configured
    through its own options (never patched)."""
    from graphagents.registry import subagent

    if options.market_db:
        url = options.market_db
        synthetic = bool(options.market_synthetic)
    else:
        url = f"sqlite:///{data.transactions_sqlite(root, Path(build.settings.data_dir)).resolve()}"
        synthetic = True if options.market_synthetic is None else options.market_synthetic
    agent = subagent("text2sql", build, llm=sql_model, db=url, max_rows=5000)
    return MarketSource(url, synthetic), agent


def open_context(build: Any) -> SupervisorContext:
    """Everything the graph needs, from the runtime's BuildContext (fails fast, one line per problem).

    Roles: ``planner``, ``orchestrator``, ``responder`` and ``sql`` (the text2sql sub-agent); each
    is the agent's model unless ``models={role: ...}`` names another (``"offline"`` included)."""
    from .options import parse_options

    typed = build.typed_options
    options = typed if isinstance(typed, SupervisorOptions) else parse_options(build.options)
    root = data.find_dataset(options.data)
    models = Models(planner=build.model("planner"), orchestrator=build.model("orchestrator"),
                    responder=build.model("responder"), sql=build.model("sql"))
    embedder = build.embedder if getattr(build, "embedder_factory", None) is not None else None
    market_source, market_agent = open_market(build, options, root, models.sql)
    return SupervisorContext(
        settings=build.settings, options=options, root=root, models=models, market_source=market_source,
        market_agent=market_agent, loan_rules=load_loan_rules(options.loan_rules),
        loan_products=data.load_loan_products(root), embedder=embedder,
    )
