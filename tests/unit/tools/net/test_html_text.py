from __future__ import annotations

from lull.tools.net.html_text import html_to_text


def test_blocks_become_lines_and_scripts_disappear() -> None:
    html = (
        "<html><head><title> My  Page </title><script>var x = 1;</script></head>"
        "<body><div>first&nbsp;block</div><p>second <i>para</i></p>"
        "<noscript>enable js</noscript><pre>code</pre></body></html>"
    )
    assert html_to_text(html) == "# My Page\n\nfirst block\n\nsecond para\n\ncode"


def test_runs_of_blank_lines_collapse() -> None:
    assert html_to_text("<p>a</p><p></p><p></p><p>b</p>") == "a\n\nb"


def test_plain_text_passes_through() -> None:
    assert html_to_text("just text & more") == "just text & more"
