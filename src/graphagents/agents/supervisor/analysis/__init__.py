"""Computations the analysis team runs: market statistics, lease law arithmetic, risk flags.

Each function returns plain dicts that carry the numbers they used, so an answer can show its
work and a reader can check it.
"""
