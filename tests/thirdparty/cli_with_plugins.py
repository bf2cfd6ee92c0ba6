"""``graphagents`` with the third-party example agents registered (a real CLI process)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from notes_agent import NOTES, SHOUT  # noqa: E402

import graphagents as ga  # noqa: E402
from graphagents.cli import main  # noqa: E402

ga.register(NOTES)
ga.register(SHOUT)
main()
