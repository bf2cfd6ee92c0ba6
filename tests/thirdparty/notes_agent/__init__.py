"""A third-party agent package, as another project would ship one (here inside the tests): ``notes``
keeps a user's notes and uses every hook of the agent interface, ``shout`` is the sub-agent it calls.
A real package would register them under the ``graphagents.agents`` entry point; the tests use
``ga.register``."""

from .spec import NOTES, SHOUT

__all__ = ["NOTES", "SHOUT"]
