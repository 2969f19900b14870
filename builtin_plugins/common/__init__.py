"""Helpers shared by builtin plugins (not a plugin itself: no entry point).

Anything two plugins need goes here rather than being written twice.
"""
