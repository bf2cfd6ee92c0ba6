"""Document drafts (Markdown) filled from what the user said, each clause backed by articles."""

from .compose import compose_document, load_templates

__all__ = ["compose_document", "load_templates"]
