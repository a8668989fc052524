"""Tools: what the model can do. ``builtin`` holds exactly the tools it is offered; beside it
the machinery they share: ``base`` (what a tool is), ``registry`` (the offered set, repair,
validation, retries), ``params``, ``repair`` and ``validation`` (arguments: the params
dataclass a schema is generated from, repair, checking), ``output`` (capping output),
``sources`` (tools that arrive later, from MCP), and the rooms ``files``, ``search``, ``net``,
``process``, ``media`` and ``permissions``."""
