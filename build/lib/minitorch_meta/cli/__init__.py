"""The command line: ``python -m minitorch_meta {train,summary,bench} ...``."""
