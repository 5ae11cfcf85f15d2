"""Cairn: experiments, analysis and test harnesses around Cairn OS and cairn-sim."""

__version__ = "0.1.0"
