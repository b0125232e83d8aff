"""Vetting the coach before launch: the real engine against simulated participants and scripted hard cases on a virtual
clock, each conversation checked and judged, and a report (``promptpipe evaluate``)."""
