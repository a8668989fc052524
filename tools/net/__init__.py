"""The network as tools reach it: ``netguard`` (which addresses need approval),
``guarded_http`` (a urllib opener that checks every connection and redirect), ``html_text``
(HTML as plain text), ``search_backends`` (web search APIs behind ``web_search``)."""
