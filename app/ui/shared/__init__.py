"""What the interactive front ends share: one implementation of command parsing, ``@path``
mentions, completion candidates, status facts and start-up, so the TUI and line mode only
format. No Textual and no prompt-toolkit here.
"""
