"""The agent's logger, which masks every mobile number before a line is written anywhere."""

from __future__ import annotations

import logging

from ...korean import mask_phones_in_text


class MaskPhones(logging.Filter):
    """Rewrite the formatted message with phone numbers masked ("010-****-5678").

    Formatting here (and dropping ``args``) means no handler can re-format the raw number in."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a broken format string: leave it to logging's own error report
            return True
        record.msg, record.args = mask_phones_in_text(message), ()
        return True


log = logging.getLogger("graphagents.slotfill")
if not any(isinstance(f, MaskPhones) for f in log.filters):
    log.addFilter(MaskPhones())
