"""Whether a tool call may run: ``policy`` (deny > ask > allow > the approval mode), ``rules``
(saved rules matched against calls), ``shell_split`` (a command line split into the simple
commands rules are checked against)."""
