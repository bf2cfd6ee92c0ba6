"""The FastAPI server and web page."""

from .app import create_app

__all__ = ["create_app"]
