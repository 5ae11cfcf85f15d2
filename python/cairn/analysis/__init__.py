"""Schedulability analysis for Cairn OS's scheduling policies: fixed priority (RM/DM), EDF with
the Stack Resource Policy, and EMERALDS's combined static/dynamic scheduler CSD-k, each with the
kernel's run-time overheads folded in, plus the EMERALDS breakdown-utilisation experiment.

The model and the tests follow the EMERALDS paper (Zuberi, Pillai and Shin, SOSP 1999),
sections 4 and 5; docs/analysis.md gives every formula.
"""
