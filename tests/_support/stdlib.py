"""Standard-library behaviours that differ from one Python to another, measured on the
interpreter that runs the test rather than read off its version number.

A behaviour change can arrive in a bug-fix release, or be backported to an older minor
version, so a test that expects one behaviour asks the standard library which it has.
Each measurement is a short program (``*_SOURCE``) that prints ``True`` or ``False``, so
that another interpreter can be asked the same question (``measured_on``).
"""

from __future__ import annotations

import subprocess
import sys

__all__ = [
    "EMAIL_HEADER_KEEPS_FINAL_NEWLINE_SOURCE",
    "KEYWORD_ERROR_SUGGESTS_SOURCE",
    "MINIDOM_ESCAPES_ATTRIBUTE_WHITESPACE_SOURCE",
    "email_header_keeps_final_newline",
    "keyword_error_suggests",
    "measured_on",
    "minidom_escapes_attribute_whitespace",
]

#: Does ``xml.dom.minidom`` write tab and line breaks in an attribute value as character
#: references (gh-50002, Python 3.13), or raw, for the reader to normalize into spaces?
MINIDOM_ESCAPES_ATTRIBUTE_WHITESPACE_SOURCE = """
from xml.dom import minidom
element = minidom.Document().createElement("a")
element.setAttribute("v", "a\\tb\\nc\\rd")
written = element.toxml()
print(not any(ch in written for ch in "\\t\\n\\r"))
"""

#: Does an email ``Subject`` ending in a line break keep it through ``as_bytes`` and
#: ``message_from_bytes`` (3.13 encodes it), or is it dropped (up to 3.12)?
EMAIL_HEADER_KEEPS_FINAL_NEWLINE_SOURCE = """
import email, email.message, email.policy
message = email.message.EmailMessage()
message["Subject"] = "x\\n"
back = email.message_from_bytes(message.as_bytes(), policy=email.policy.default)
print(str(back["Subject"]) == "x\\n")
"""

#: Does a ``TypeError`` for an unexpected keyword argument suggest the one meant
#: ("Did you mean 'allow'?", from 3.13 on)?
KEYWORD_ERROR_SUGGESTS_SOURCE = """
def takes(*, allow=None):
    return allow
try:
    takes(alow=1)
except TypeError as exc:
    print("Did you mean 'allow'?" in str(exc))
"""


def _here(source: str) -> bool:
    namespace: dict[str, object] = {}
    printed: list[str] = []
    namespace["print"] = lambda value: printed.append(str(value))
    exec(compile(source, "<stdlib measurement>", "exec"), namespace)
    (answer,) = printed
    return answer == "True"


def measured_on(python: str, source: str) -> bool:
    """The answer of the measurement ``source`` on the interpreter ``python``."""
    if python == sys.executable:
        return _here(source)
    done = subprocess.run(
        [python, "-c", source], capture_output=True, text=True, timeout=60, check=True
    )
    return done.stdout.strip() == "True"


def minidom_escapes_attribute_whitespace() -> bool:
    """Whether this Python's minidom keeps tab and line breaks in attribute values."""
    return _here(MINIDOM_ESCAPES_ATTRIBUTE_WHITESPACE_SOURCE)


def email_header_keeps_final_newline() -> bool:
    """Whether this Python's email package keeps a header's final line break."""
    return _here(EMAIL_HEADER_KEEPS_FINAL_NEWLINE_SOURCE)


def keyword_error_suggests() -> bool:
    """Whether this Python's ``TypeError`` for an unknown keyword suggests a near name."""
    return _here(KEYWORD_ERROR_SUGGESTS_SOURCE)
