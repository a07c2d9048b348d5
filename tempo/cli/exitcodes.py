"""Exit statuses of every `tempo` command (documented in docs/cli.md, "CLI conventions").

A script can tell the answer "no" from a broken input and from a broken cluster
connection without reading the output.
"""

from __future__ import annotations

#: Success: the command did what was asked and the answer is "yes" (or there is no question).
OK = 0
#: The answer is "no": an SLO is not met (``qs``, ``whatif``, ``optimize``), a regression
#: was rolled back (``tune``), a file is invalid (``config validate``), a reload was
#: refused (``emulate-rm refresh``), a predicted job never finishes (``predict``, ``qs``).
NO = 1
#: Usage or input error: a bad option, or a file that cannot be read or is wrong.
USAGE = 2
#: The ResourceManager, the JobHistory Server or another remote service failed.
REMOTE = 3
#: The reader of standard output went away (``tempo ... | head``): silent, as a process
#: ended by SIGPIPE is to the shell (128 + 13).
BROKEN_PIPE = 141
