"""The model's tool calls, from request to result. ``runner`` (argument repair, duplicates,
hooks, permission rules and approval, parallel calls with one result each, checkpoints),
``scope`` (the tools one turn may use: a custom command's ``allowed-tools``), ``user_shell``
(``!command`` and a custom command's ``!`command```, through the same rules), ``approvals``
(the built-in approvers for runs with nobody to ask)."""
