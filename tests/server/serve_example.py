"""Start `graphagents serve` with the example agents registered (a real process, for restart tests)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import graphagents as ga  # noqa: E402
from example_agent import SPEC, TRIP  # noqa: E402
from graphagents.cli import main  # noqa: E402

ga.register(SPEC)
ga.register(TRIP)
sys.argv = ["graphagents", "serve", *sys.argv[1:]]
main()
