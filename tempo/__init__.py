"""tempo: a self-tuning configuration tool for the YARN Fair Scheduler."""

from tempo.errors import JournalError, RMError, TemplateSyntaxError, TempoError

__all__ = ["JournalError", "RMError", "TemplateSyntaxError", "TempoError"]
__version__ = "0.1.0"
