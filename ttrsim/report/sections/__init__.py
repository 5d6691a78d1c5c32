"""The writers of the report's sections, one module per part: each function
writes one section (its text, tables and charts) from the frames of the
statistics it computed. Which section calls which statistic and writer is
listed in ``ttrsim.report.contents``; the header and the key findings
(written last, placed first) are called by ``ttrsim.report.document``.
"""
from . import europe, findings, header, interventions, passengers, routes, strategies, sweeps, tickets

__all__ = ["header", "findings", "interventions", "strategies", "tickets", "routes", "passengers", "europe", "sweeps"]
