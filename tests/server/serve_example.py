"""Start `graphagents serve` with the example agents and the third-party example package's agents
registered (a real process, for restart and browser tests)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "thirdparty"))

from notes_agent import NOTES, SHOUT  # noqa: E402

import graphagents as ga  # noqa: E402
from example_agent import SPEC, TRIP  # noqa: E402
from graphagents.cli import main  # noqa: E402

ga.register(SPEC)
ga.register(TRIP)
ga.register(NOTES)
ga.register(SHOUT)
sys.argv = ["graphagents", "serve", *sys.argv[1:]]
main()
