"""Settings: read once from the environment and ``.env``, validated, then passed down.

No module outside this package reads ``os.environ`` (:mod:`.process_env` holds what a restart carries over and what
the WhatsApp library reads). Each setting is declared once on its :class:`Settings` field (:mod:`.settings`,
:mod:`.declared`); :func:`load_settings` parses them, and ``.env.example``, the README's table and ``promptpipe check``
are generated from them (:mod:`.generate`). A bad value raises :class:`ConfigError` naming the variable and the fix.
"""

from promptpipe.config.load import load_settings, read_environment
from promptpipe.config.settings import DEFAULT_HISTORY_WINDOW, Settings, TransportName
from promptpipe.domain.setting_values import LogFormat

__all__ = ["DEFAULT_HISTORY_WINDOW", "LogFormat", "Settings", "TransportName", "load_settings", "read_environment"]
