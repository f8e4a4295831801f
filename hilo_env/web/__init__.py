"""``hilo serve``: a local web table for every game of the registry (the ``web`` extra).

:mod:`hilo_env.web.sessions` holds the games (play, watch, replay), one behind each
unguessable id; :mod:`hilo_env.web.limits` bounds what a request may hold;
:mod:`hilo_env.web.fitting` says which agents play a table; :mod:`hilo_env.web.app` is the
Starlette app that serves them as JSON and ships the page (``static/``: plain HTML, CSS and
JavaScript, no build step, no CDN). ``docs/web.md`` is the manual.
"""
