"""Fuzz targets: hypothesis strategies that damage logs, and the properties every input must keep."""
