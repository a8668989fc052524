"""Searching files: ``engines`` (ripgrep or pure Python, the same matches), ``run`` (a search
in a child process with a time limit), ``worker`` (that child process), ``walk`` (a tree
without tool and VCS folders), ``globpattern`` (glob patterns as regular expressions)."""
