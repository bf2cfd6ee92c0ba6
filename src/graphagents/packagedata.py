"""Files that ship inside the package (corpora, statutes, example tables, evaluation sets).

Everything an agent reads at run time is package data, found with ``importlib.resources`` from the
package that owns it, so a bare clone or a wheel install has it all. Each data folder carries its
source and licence in a README next to the files.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from .errors import ConfigError

__all__ = ["defog_dev_questions", "package_path"]


def package_path(package: str, *parts: str) -> Path:
    """``parts`` under the installed package ``package``, as a path on disk.

    Raises :class:`ConfigError` naming the file when it is missing (a broken or partial install)."""
    target = resources.files(package).joinpath(*parts)
    if not isinstance(target, Path):  # a zipped install: our loaders need real files
        raise ConfigError(f"{package} is installed as a zip archive; install graphagents from a wheel or a folder")
    if not target.exists():
        where = "/".join((package.replace(".", "/"), *parts))
        raise ConfigError(f"{where} is missing from the installed package: reinstall graphagents "
                          "(pip install --force-reinstall graphagents)")
    return target


def defog_dev_questions() -> Path:
    """110 questions with gold SQL over four ``defog-data`` databases (defog-ai/sql-eval, Apache-2.0),
    the development set of text2sql and of tableqa's multi-table evaluation."""
    return package_path("graphagents", "evaldata", "defog", "questions_dev_postgres.csv")
