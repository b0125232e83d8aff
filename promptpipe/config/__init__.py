"""Settings: read once from the environment and ``.env``, validated, then passed down; no module outside this
package reads ``os.environ``. A bad value raises :class:`ConfigError` naming the variable and the fix."""

from promptpipe.config.load import load_settings, read_environment
from promptpipe.config.settings import DEFAULT_HISTORY_WINDOW, Settings, TransportName
from promptpipe.domain.setting_values import LogFormat

__all__ = ["DEFAULT_HISTORY_WINDOW", "LogFormat", "Settings", "TransportName", "load_settings", "read_environment"]
