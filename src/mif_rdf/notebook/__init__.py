"""Jupyter: the HTML views and the relationship-graph figure."""
