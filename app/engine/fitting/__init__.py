"""Fitting: every request inside the window, and cheap for the cache. ``fitter`` (the
``ContextFitter``: counting, idle cleanup, the stage schedule's steps before each request, the
request built from the view), ``steps`` (the light and media steps, what a summary pins),
``compression`` (a summary compression run), ``summary`` (the summary request, checked),
``overflow`` (what "prompt too long" and empty answers teach), ``exact_counts`` (when the
tokenizer is worth loading; counts kept for a resume), ``cache_keeper`` (each request's cache
lifetimes, the cache clock fed), ``outputs`` (full texts of truncated results), ``restore``
(``/context restore``), ``recall`` (the recall tool)."""
