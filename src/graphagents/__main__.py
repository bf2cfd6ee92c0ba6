"""``python -m graphagents`` is the ``graphagents`` command."""

from .cli import main

main()
