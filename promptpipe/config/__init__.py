"""Settings: read once from the environment and ``.env``, validated, then passed down.

No module outside this package reads ``os.environ`` (:mod:`.process_env` holds the rest: what a restart carries over,
what the WhatsApp library reads). Each setting is declared once, on its :class:`Settings` field (:mod:`.settings`;
``setting(VARIABLE, default, parser, section=…, meaning=…)``, see :mod:`.declared`): :func:`load_settings`
(:mod:`.load`) parses what the declarations say, and ``.env.example``, the README's table and ``promptpipe check`` are
made from them (:mod:`.generate`; a test compares the files). Input is friendly (``90s``, ``15m``, ``5h``, ``on``); a
bad value fails with a :class:`ConfigError` that names the variable and the fix.
"""

from promptpipe.config.load import load_settings, read_environment
from promptpipe.config.settings import DEFAULT_HISTORY_WINDOW, Settings, TransportName
from promptpipe.domain.setting_values import LogFormat

__all__ = ["DEFAULT_HISTORY_WINDOW", "LogFormat", "Settings", "TransportName", "load_settings", "read_environment"]
